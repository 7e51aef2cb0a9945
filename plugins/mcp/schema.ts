/**
 * Real-world MCP quirks, repaired instead of losing the server's tools:
 *  - an inputSchema without `type` (or none at all) becomes an object schema;
 *  - a `$schema` other than draft-07 is dropped (ajv compiles draft-07 semantics; the keywords
 *    servers use are the same);
 *  - descriptions longer than 2 KB are truncated (Claude Code caps MCP descriptions the same way).
 */
import type { JsonSchema } from "../../core/index.ts";

export const MAX_DESCRIPTION = 2048;

export function repairSchema(s: unknown, optional = false): { schema: JsonSchema; note?: string } {
  if (s === undefined || s === null) {
    return optional ? { schema: undefined as unknown as JsonSchema } : { schema: { type: "object" }, note: "the server sent no inputSchema; treated as an object with any properties" };
  }
  if (typeof s !== "object" || Array.isArray(s)) return { schema: { type: "object" }, note: `the server sent an invalid inputSchema (${Array.isArray(s) ? "an array" : typeof s}); treated as an object with any properties` };
  const schema = { ...(s as JsonSchema) };
  let note: string | undefined;
  if (typeof schema.$schema === "string" && !/draft-07|draft-06|draft-04/.test(schema.$schema)) delete schema.$schema;
  if (schema.type === undefined) {
    schema.type = "object";
    note = `the server's inputSchema has no "type"; "type": "object" added`;
  } else if (schema.type !== "object") {
    return { schema: { type: "object" }, note: `the server's inputSchema has type ${JSON.stringify(schema.type)} (tool input must be an object); treated as an object with any properties` };
  }
  return { schema, note };
}

export function truncateDescription(d: string): { text: string; note?: string } {
  if (d.length <= MAX_DESCRIPTION) return { text: d };
  return {
    text: d.slice(0, MAX_DESCRIPTION) + "… [truncated]",
    note: `description truncated from ${d.length} to ${MAX_DESCRIPTION} characters`,
  };
}
