/**
 * What one hook's run means (interpret), and how the runs of several hooks of one event combine
 * (composeInputs). Handlers of one event run in parallel; their effects are applied afterwards in
 * declaration order, so the outcome never depends on which process finished first.
 */
import { isDeepStrictEqual } from "node:util";
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
  substitute?: ToolResult;
  /** `continue: false` → stopReason. */
  stop?: string;
  systemMessage?: string;
  /** Schema problems in the hook's output (printed loudly). */
  warnings: string[];
  /** The hook did not run cleanly (non-blocking unless onFailure is "block"). */
  failure?: string;
}

const DECISIONS = new Set(["allow", "deny", "ask", "defer"]);

function str(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() ? v : undefined;
}

/** Interpret one run for `event` (formats §3.6/§3.7). */
export function interpret(event: string, h: Handler, run: RunResult): Effect {
  const e: Effect = { handler: h, run, warnings: [] };
  if (run.status === "aborted") return e;
  if (run.status === "missing" || run.status === "error" || run.status === "timeout" || run.status === "spawn-error") {
    e.failure = run.message ?? run.status;
  }
  if (run.badJson) {
    if (run.status === "block") e.warnings.push(run.badJson);
    else e.failure = run.badJson;
  }
  const j = run.json;
  const hso = j && typeof j.hookSpecificOutput === "object" && j.hookSpecificOutput ? (j.hookSpecificOutput as Record<string, unknown>) : undefined;
  if (hso && hso.hookEventName !== undefined && hso.hookEventName !== event) {
    e.warnings.push(`hookSpecificOutput.hookEventName is "${String(hso.hookEventName)}" but the event is ${event}; the output is used anyway`);
  }
  if (j) {
    if (j.continue === false) e.stop = str(j.stopReason) ?? "a hook asked to stop (continue: false)";
    if (str(j.systemMessage)) e.systemMessage = j.systemMessage as string;
    if (hso && str(hso.additionalContext)) e.additionalContext = hso.additionalContext as string;
  }

  if (event === "PreToolUse") {
    if (j) {
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
      if (hso && hso.updatedInput !== undefined) {
        if (hso.updatedInput && typeof hso.updatedInput === "object" && !Array.isArray(hso.updatedInput)) e.updatedInput = hso.updatedInput as Record<string, unknown>;
        else e.warnings.push("hookSpecificOutput.updatedInput must be an object; ignored");
      }
      if (hso && hso.toolhostSubstituteResult !== undefined) {
        const r = toResult(hso.toolhostSubstituteResult);
        if (r) e.substitute = r;
        else e.warnings.push("hookSpecificOutput.toolhostSubstituteResult must be a string, a content array or {content: [...]}; ignored");
      }
    }
    if (run.status === "block") {
      // Exit 2 blocks; a JSON allow cannot override it. Reason: JSON reason, else stderr.
      const jsonReason = e.decision === "deny" ? e.reason : undefined; // an allow's reason is not a block reason
      e.decision = "deny";
      e.reason = jsonReason ?? str(j?.reason) ?? (str(run.stderr)?.trim() || "blocked by hook (exit 2)");
    }
    if (e.stop) {
      e.decision = "deny";
      e.reason = e.stop;
    }
  } else if (event === "PostToolUse" || event === "PostToolUseFailure") {
    if (j && j.decision === "block") e.feedback = str(j.reason) ?? "blocked by a PostToolUse hook";
    if (run.status === "block") e.feedback = e.feedback ?? (str(run.stderr)?.trim() || `${event} hook exited 2`);
    if (hso && event === "PostToolUse") {
      const upd = hso.updatedToolOutput ?? hso.updatedMCPToolOutput;
      if (upd !== undefined) {
        const r = toResult(upd);
        if (r) e.updatedOutput = r;
        else e.warnings.push("hookSpecificOutput.updatedToolOutput has an unsupported shape; ignored");
      }
    }
    if (e.stop) e.feedback = e.feedback ?? e.stop;
  } else if (event === "PostToolBatch") {
    // a block (decision "block", exit 2 or continue: false) stops the agent loop before its next model call
    if (j && j.decision === "block") e.stop = str(j.reason) ?? "blocked by a PostToolBatch hook";
    if (run.status === "block") e.stop = e.stop ?? (str(run.stderr)?.trim() || "PostToolBatch hook exited 2");
  } else if (event === "PermissionRequest") {
    if (run.status === "block") e.warnings.push("exit 2 is ignored on PermissionRequest; print {\"hookSpecificOutput\": {\"decision\": {\"behavior\": \"deny\"}}} instead");
    const d = hso?.decision as Record<string, unknown> | undefined;
    if (d && typeof d === "object") {
      if (d.behavior === "allow" || d.behavior === "deny") {
        e.decision = d.behavior;
        e.reason = str(d.message);
        if (d.updatedInput && typeof d.updatedInput === "object" && !Array.isArray(d.updatedInput)) e.updatedInput = d.updatedInput as Record<string, unknown>;
      } else e.warnings.push(`hookSpecificOutput.decision.behavior must be "allow" or "deny", got ${JSON.stringify(d.behavior)}; ignored`);
    }
    if (e.stop) {
      e.decision = "deny";
      e.reason = e.stop;
    }
  }

  if (e.failure && h.onFailure === "block") {
    const why = `hook failed (${e.failure}) and its onFailure is "block"`;
    if (event === "PreToolUse" || event === "PermissionRequest") {
      e.decision = "deny";
      e.reason = why;
    } else if (event === "PostToolBatch") e.stop = why;
    else e.feedback = why;
  }
  return e;
}

export function toResult(v: unknown): ToolResult | undefined {
  if (typeof v === "string") return { content: [{ type: "text", text: v }] };
  if (Array.isArray(v)) return v.every((c) => c && typeof c === "object" && typeof (c as ToolContent).type === "string") ? { content: v as ToolContent[] } : undefined;
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    if (Array.isArray(o.content)) return o as unknown as ToolResult;
    return { content: [{ type: "text", text: JSON.stringify(v, null, 2) }], structuredContent: o };
  }
  return undefined;
}

export interface InputComposition {
  input: Record<string, unknown>;
  changed: boolean;
  /** key → handler index that set it last. */
  setBy: Map<string, Handler>;
  conflicts: Array<{ key: string; earlier: Handler; later: Handler }>;
  /** Per effect: keys it changed. */
  changes: Map<Effect, string[]>;
}

/**
 * Compose several `updatedInput`s without lost updates: each is diffed (top-level keys) against the
 * input that handler received; the changed keys (set or removed) are applied in declaration order.
 * Two handlers changing the same key to different values is a conflict: the later declaration wins
 * and the conflict is traced.
 */
export function composeInputs(base: Record<string, unknown>, effects: Effect[]): InputComposition {
  const input: Record<string, unknown> = { ...base };
  const setBy = new Map<string, Handler>();
  const conflicts: InputComposition["conflicts"] = [];
  const changes = new Map<Effect, string[]>();
  for (const e of effects) {
    if (!e.updatedInput || e.decision === "deny") continue;
    const keys = new Set([...Object.keys(base), ...Object.keys(e.updatedInput)]);
    const mine: string[] = [];
    for (const k of keys) {
      const had = Object.prototype.hasOwnProperty.call(e.updatedInput, k);
      const next = e.updatedInput[k];
      if (had ? isDeepStrictEqual(base[k], next) && k in base : !(k in base)) continue;
      const prev = setBy.get(k);
      if (prev) {
        const sameValue = had ? isDeepStrictEqual(input[k], next) && k in input : !(k in input);
        if (!sameValue) conflicts.push({ key: k, earlier: prev, later: e.handler });
      }
      if (had) input[k] = next;
      else delete input[k];
      setBy.set(k, e.handler);
      mine.push(k);
    }
    changes.set(e, mine);
  }
  return { input, changed: setBy.size > 0, setBy, conflicts, changes };
}
