/**
 * Stage checkRewrite (first of every recheck): a rewritten input (a PreToolUse hook's or an approval's
 * updatedInput) must pass the tool's schema as it is — no type coercion, so `{"command": 42}` is refused
 * and nothing runs, where the model's own input may still be repaired and coerced. Claude Code 2.1.328
 * does the same (recorded: test/conformance/shapes/rewrite.json): it drops fields the schema does not
 * know and reads a numeric string as a number ("5000" for a timeout), and refuses everything else.
 */
import type { ExecuteOutcome, Tool } from "../../types.ts";
import type { Call } from "../call.ts";
import { refuse } from "../outcome.ts";
import { schemaErrors } from "../../../lib/schema-errors.ts";

const NUMERIC = /^-?\d+(\.\d+)?$/;

/** Claude Code's leniency on a rewrite: unknown top-level fields dropped, "5000" read as 5000, "true" as true. */
function lenient(tool: Tool, input: Record<string, unknown>): Record<string, unknown> {
  const props = tool.inputSchema.properties as Record<string, { type?: unknown }> | undefined;
  if (!props) return input;
  const closed = tool.inputSchema.additionalProperties === false;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    const p = props[k];
    if (!p) {
      if (!closed) out[k] = v;
      continue;
    }
    const types = Array.isArray(p.type) ? p.type : [p.type];
    if (typeof v === "string" && !types.includes("string") && (types.includes("number") || types.includes("integer")) && NUMERIC.test(v)) out[k] = Number(v);
    else if (typeof v === "string" && !types.includes("string") && types.includes("boolean") && (v === "true" || v === "false")) out[k] = v === "true";
    else out[k] = v;
  }
  return out;
}

export function checkRewrite(call: Call): ExecuteOutcome | undefined {
  const tool = call.tool!;
  const by = call.rewrittenBy;
  if (!by) return undefined;
  const v = call.build.strictValidator?.(tool);
  if (!v) return undefined;
  const input = call.input;
  if (!input || typeof input !== "object" || Array.isArray(input)) {
    call.mark("checkRewrite", "invalid");
    return refuse(call, "invalid-input", `${by} returned an updatedInput for ${tool.name} that is not a JSON object; nothing ran. The tool input from the model was valid; the rewrite of it was not.`);
  }
  const fixed = lenient(tool, input as Record<string, unknown>);
  const ok = v(fixed);
  call.mark("checkRewrite", ok ? "ok" : "invalid");
  if (ok) {
    call.input = fixed;
    return undefined;
  }
  return refuse(call, "invalid-input", `${by} returned an updatedInput for ${tool.name} that failed its input schema (${schemaErrors(tool, fixed, v.errors ?? [])}); nothing ran. The tool input from the model was valid; the rewrite of it was not.`);
}
