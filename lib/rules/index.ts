/** `toolhost/rules`: Claude Code permission-rule grammar and matching, for plugins and other hosts. */
export {
  parseRule, matchesRule, matchesHookIf, callFacts, ruleHit, readDenyFilter, formatRule, isBlanket, lintRule, toolMatches, canonicalTool, KNOWN_TOOLS, analyzeBash,
  type ParsedRule, type Behavior, type BashFacts, type Segment, type MatchCall, type MatchContext, type CallFacts, type Hit,
} from "./match.ts";
export { factsFor, type FactsCall } from "./facts.ts";
export { isReadOnlyCommand, isReadOnlyInside } from "./readonly.ts";
export { EDIT_TOOLS, READ_TOOLS, TOOL_ALIASES, EDIT_TOOL_FILE_FIELD } from "../tool-names.ts";
export { isInside, realpathLoose } from "../fs-path.ts";
