// `toolhost/rules`: permission-rule grammar and matching (lib/rules/index.ts), run from TypeScript through jiti.
import { createJiti } from "jiti";
const jiti = createJiti(import.meta.url, { interopDefault: true });
const api = await jiti.import("./lib/rules/index.ts");
export const {
  parseRule, matchesRule, matchesHookIf, callFacts, ruleHit, readDenyFilter, formatRule, isBlanket, lintRule, toolMatches, canonicalTool, KNOWN_TOOLS, analyzeBash,
  factsFor, isReadOnlyCommand, isReadOnlyInside, EDIT_TOOLS, READ_TOOLS, TOOL_ALIASES, EDIT_TOOL_FILE_FIELD, isInside, realpathLoose,
} = api;
export default api;
