/**
 * What one hook's run means for its event (formats §3.6/§3.7): an Effect. How several effects combine
 * is aggregate.ts.
 */
import type { HookDecision, ToolContent, ToolResult } from "../../core/index.ts";
import type { Handler } from "./handlers.ts";
import type { RunResult } from "./run.ts";

export interface Effect {
  handler: Handler;
  run: RunResult;
  decision?: HookDecision;
  reason?: string;
  updatedInput?: Record<string, unknown>;
  additionalContext?: string;
  /** PostToolUse: `decision: "block"` / exit 2 feedback shown to the model. */
  feedback?: string;
  updatedOutput?: ToolResult;
  /** PostToolUse: the hook's raw replacement, resolved per tool by tool-response.ts into updatedOutput. */
  replacement?: { field: "updatedToolOutput" | "updatedMCPToolOutput"; value: unknown };
  substitute?: ToolResult;
  /** `continue: false` → stopReason. */
  stop?: string;
  /** PermissionRequest deny with `interrupt: true` (or continue: false): the run ends too. */
  interrupt?: boolean;
  systemMessage?: string;
  /** Schema problems in the hook's output (printed loudly). */
  warnings: string[];
  /** Parts of the output ignored as Claude Code ignores them: traced and logged, not shown to the model. */
  notices?: string[];
  /** The hook did not run cleanly (non-blocking unless onFailure is "block"). */
  failure?: string;
}

type Json = Record<string, unknown>;

const DECISIONS = new Set(["allow", "deny", "ask", "defer"]);

function str(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() ? v : undefined;
}

/** Interpret one run for `event`. */
export function interpret(event: string, h: Handler, run: RunResult): Effect {
  const e: Effect = { handler: h, run, warnings: [] };
  if (run.status === "aborted") return e;
  const { j, hso } = common(e, event, run);
  if (event === "PreToolUse") preToolUse(e, run, j, hso);
  else if (event === "PostToolUse" || event === "PostToolUseFailure") postToolUse(e, event, run, j, hso);
  else if (event === "PostToolBatch") postToolBatch(e, run, j);
  else if (event === "PermissionRequest") permissionRequest(e, run, hso);
  if (e.failure && h.onFailure === "block") failureBlocks(e, event);
  return e;
}

/** Failures, bad JSON and the fields every event shares (continue, systemMessage, additionalContext). */
function common(e: Effect, event: string, run: RunResult): { j?: Json; hso?: Json } {
  if (run.status === "missing" || run.status === "error" || run.status === "timeout" || run.status === "spawn-error") {
    e.failure = run.message ?? run.status;
  }
  if (run.badJson) {
    if (run.status === "block") e.warnings.push(run.badJson);
    else e.failure = run.badJson;
  }
  const j = run.json;
  const hso = j && typeof j.hookSpecificOutput === "object" && j.hookSpecificOutput ? (j.hookSpecificOutput as Json) : undefined;
  if (hso && hso.hookEventName !== undefined && hso.hookEventName !== event) {
    e.warnings.push(`hookSpecificOutput.hookEventName is "${String(hso.hookEventName)}" but the event is ${event}; the output is used anyway`);
  }
  if (j) {
    if (j.continue === false) e.stop = str(j.stopReason) ?? "a hook asked to stop (continue: false)";
    if (str(j.systemMessage)) e.systemMessage = j.systemMessage as string;
    if (hso && str(hso.additionalContext)) e.additionalContext = hso.additionalContext as string;
  }
  return { j, hso };
}

function preToolUse(e: Effect, run: RunResult, j: Json | undefined, hso: Json | undefined): void {
  if (j) preDecision(e, j, hso);
  if (hso && hso.updatedInput !== undefined) {
    if (hso.updatedInput && typeof hso.updatedInput === "object" && !Array.isArray(hso.updatedInput)) e.updatedInput = hso.updatedInput as Json;
    else e.warnings.push("hookSpecificOutput.updatedInput must be an object; ignored");
  }
  if (hso && hso.toolhostSubstituteResult !== undefined) {
    const r = toResult(hso.toolhostSubstituteResult);
    if (r) e.substitute = r;
    else e.warnings.push("hookSpecificOutput.toolhostSubstituteResult must be a string, a content array or {content: [...]}; ignored");
  }
  if (run.status === "block") {
    // Exit 2 blocks; a JSON allow cannot override it. Reason: JSON reason, else stderr.
    const jsonReason = e.decision === "deny" ? e.reason : undefined; // an allow's reason is not a block reason
    e.decision = "deny";
    e.reason = jsonReason ?? str(j?.reason) ?? (str(run.stderr)?.trim() || "blocked by hook (exit 2)");
  }
  // continue: false is no deny: the tool still runs, then the agent stops (Claude Code 2.1.328, recorded).
}

/** hookSpecificOutput.permissionDecision; a misplaced top-level one; the legacy approve/block. */
function preDecision(e: Effect, j: Json, hso: Json | undefined): void {
  if (hso && hso.permissionDecision !== undefined) {
    if (DECISIONS.has(hso.permissionDecision as string)) e.decision = hso.permissionDecision as HookDecision;
    else e.warnings.push(`hookSpecificOutput.permissionDecision must be allow, deny, ask or defer, got ${JSON.stringify(hso.permissionDecision)}; ignored`);
    e.reason = str(hso.permissionDecisionReason);
  } else if (j.permissionDecision !== undefined) {
    // formats §7 #8: a top-level permissionDecision is ignored by Claude Code and nothing warns.
    // toolhost warns loudly and honours it only when it makes the call stricter.
    const d = j.permissionDecision as string;
    const strict = d === "deny" || d === "ask" || d === "defer";
    e.warnings.push(
      `permissionDecision is at the top level of the hook output; it belongs inside hookSpecificOutput ({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": ${JSON.stringify(d)}}}). ` +
        (strict ? `toolhost honours this "${d}" because it is stricter; Claude Code would ignore it.` : `It is ignored (an allow is only taken from hookSpecificOutput).`),
    );
    if (strict) {
      e.decision = d as HookDecision;
      e.reason = str(j.permissionDecisionReason) ?? str(j.reason);
    }
  } else if (j.decision === "approve" || j.decision === "block") {
    e.decision = j.decision === "approve" ? "allow" : "deny";
    e.reason = str(j.reason);
  }
}

function postToolUse(e: Effect, event: string, run: RunResult, j: Json | undefined, hso: Json | undefined): void {
  if (j && j.decision === "block") e.feedback = str(j.reason) ?? "blocked by a PostToolUse hook";
  if (run.status === "block") e.feedback = e.feedback ?? (str(run.stderr)?.trim() || `${event} hook exited 2`);
  if (hso && event === "PostToolUse") {
    if (hso.updatedToolOutput !== undefined) e.replacement = { field: "updatedToolOutput", value: hso.updatedToolOutput };
    else if (hso.updatedMCPToolOutput !== undefined) e.replacement = { field: "updatedMCPToolOutput", value: hso.updatedMCPToolOutput };
  }
  // continue: false stops the agent before the model sees this result (aggregate.ts → post.stop).
}

/** A block (decision "block", exit 2 or continue: false) stops the agent loop before its next model call. */
function postToolBatch(e: Effect, run: RunResult, j: Json | undefined): void {
  if (j && j.decision === "block") e.stop = str(j.reason) ?? "blocked by a PostToolBatch hook";
  if (run.status === "block") e.stop = e.stop ?? (str(run.stderr)?.trim() || "PostToolBatch hook exited 2");
}

function permissionRequest(e: Effect, run: RunResult, hso: Json | undefined): void {
  if (run.status === "block") e.warnings.push("exit 2 is ignored on PermissionRequest; print {\"hookSpecificOutput\": {\"decision\": {\"behavior\": \"deny\"}}} instead");
  const d = hso?.decision as Json | undefined;
  if (d && typeof d === "object") {
    if (d.behavior === "allow" || d.behavior === "deny") {
      e.decision = d.behavior;
      e.reason = str(d.message);
      if (d.behavior === "deny" && d.interrupt === true) e.interrupt = true;
      if (d.updatedInput && typeof d.updatedInput === "object" && !Array.isArray(d.updatedInput)) e.updatedInput = d.updatedInput as Json;
    } else e.warnings.push(`hookSpecificOutput.decision.behavior must be "allow" or "deny", got ${JSON.stringify(d.behavior)}; ignored`);
  }
  if (e.stop) {
    e.decision = "deny";
    e.reason = e.stop;
    e.interrupt = true;
  }
}

function failureBlocks(e: Effect, event: string): void {
  const why = `hook failed (${e.failure}) and its onFailure is "block"`;
  if (event === "PreToolUse" || event === "PermissionRequest") {
    e.decision = "deny";
    e.reason = why;
  } else if (event === "PostToolBatch") e.stop = why;
  else e.feedback = why;
}

export function toResult(v: unknown): ToolResult | undefined {
  if (typeof v === "string") return { content: [{ type: "text", text: v }] };
  if (Array.isArray(v)) return v.every((c) => c && typeof c === "object" && typeof (c as ToolContent).type === "string") ? { content: v as ToolContent[] } : undefined;
  if (v && typeof v === "object") {
    const o = v as Json;
    if (Array.isArray(o.content)) return o as unknown as ToolResult;
    return { content: [{ type: "text", text: JSON.stringify(v, null, 2) }], structuredContent: o };
  }
  return undefined;
}
