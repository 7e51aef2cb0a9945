// Kept while plugins/command-hooks still imports it: the matcher lives in lib/rules/match.ts.
export * from "../../lib/rules/match.ts";
