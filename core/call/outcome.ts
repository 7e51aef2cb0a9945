/** How a call ends: the outcome object, refusals, denial texts, and tool answers normalised to a result. */
import { errorMessage, PluginError } from "../errors.ts";
import { textResult } from "../tool.ts";
import { TRACE, type Decision, type ExecuteOutcome, type OutcomeStatus, type ToolResult } from "../types.ts";
import type { Call } from "./call.ts";

type OutcomeFields = Partial<ExecuteOutcome> & Pick<ExecuteOutcome, "status" | "result">;

export function finish(call: Call, o: OutcomeFields): ExecuteOutcome {
  return {
    tool: call.tool?.name ?? call.requestedName,
    toolUseId: call.toolUseId,
    decision: o.decision ?? (o.status === "ok" || o.status === "tool-error" || o.status === "dry-run" ? "allow" : "deny"),
    executed: o.executed ?? false,
    input: call.input,
    trace: call[TRACE],
    generation: call.generation,
    ...o,
  };
}

/**
 * The outcome of a call that ran (or had a PreToolUse substitute): the same fields, in the same order, as
 * finish() gives it, written out — the per-call path makes no object spread.
 */
export function finishRan(call: Call, result: ToolResult, d: Decision): ExecuteOutcome {
  return {
    tool: call.tool!.name,
    toolUseId: call.toolUseId,
    decision: "allow",
    executed: !call.substitute,
    input: call.input,
    trace: call[TRACE],
    generation: call.generation,
    status: result.isError ? "tool-error" : "ok",
    reason: d.reason,
    rule: d.rule,
    plugin: d.plugin,
    result,
  };
}

/** The call ends without running: `msg` is what the model reads, `d` the rule behind it. */
export function refuse(call: Call, status: OutcomeStatus, msg: string, d?: Decision): ExecuteOutcome {
  return finish(call, { status, reason: msg, rule: d?.rule, plugin: d?.plugin, file: d?.file, decision: d?.behavior === "ask" ? "ask" : "deny", result: textResult(msg, true) });
}

export function denialText(tool: string, d: Decision): string {
  const where = [d.rule && `rule ${d.rule}`, d.plugin && `plugin ${d.plugin}`, d.file].filter(Boolean).join(", ");
  return `Permission to use ${tool} was denied: ${d.reason}${where ? ` (${where})` : ""}.`;
}

/** A decision stage that threw or rejected denies the call. */
export function failClosed(e: unknown, stage: string): Decision {
  const plugin = e instanceof PluginError ? e.plugin : undefined;
  return { behavior: "deny", reason: `${stage} check failed, so the call is denied (fail closed): ${errorMessage(e)}`, rule: `${stage} error`, plugin };
}

/** Whatever a tool returned, as a ToolResult: strings become text, other values JSON. */
export function normalizeResult(r: unknown): ToolResult {
  if (typeof r === "string") return textResult(r);
  if (r && typeof r === "object" && Array.isArray((r as ToolResult).content)) return r as ToolResult;
  if (r === undefined || r === null) return textResult("");
  return { content: [{ type: "text", text: JSON.stringify(r, null, 2) }], structuredContent: typeof r === "object" ? (r as Record<string, unknown>) : undefined };
}
