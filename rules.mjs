// `toolhost/rules`: permission-rule grammar and matching (lib/rules/index.ts): dist/ when fresh, else the TypeScript through jiti.
import { importEntry } from "./bin/dist.mjs";
import { importTs } from "./bin/jiti-load.mjs";
const api = await importEntry("lib/rules/index.ts", () => importTs(import.meta.url, "./lib/rules/index.ts", { interopDefault: true }));
export const {
  parseRule, matchesRule, matchesHookIf, callFacts, ruleHit, readDenyFilter, formatRule, isBlanket, lintRule, toolMatches, canonicalTool, KNOWN_TOOLS, analyzeBash,
  factsFor, isReadOnlyCommand, isReadOnlyInside, EDIT_TOOLS, READ_TOOLS, TOOL_ALIASES, EDIT_TOOL_FILE_FIELD, isInside, realpathLoose,
} = api;
export default api;
