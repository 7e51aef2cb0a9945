/**
 * What one hook run means on a session or turn event (Claude Code 2.1.328, recorded in
 * test/conformance/events/): plain stdout is context on SessionStart and UserPromptSubmit only;
 * `hookSpecificOutput.additionalContext` is context, framed "<Event> hook additional context: …"; exit 2 or
 * `decision: "block"` blocks where the event can block (UserPromptSubmit erases the prompt, Stop /
 * SubagentStop go on with the reason, PreCompact skips compaction) and is a message for the user elsewhere;
 * `continue: false` stops the run; exit codes other than 0 and 2 are non-blocking errors.
 */
import type { Handler } from "../handlers.ts";
import { label } from "../handlers.ts";
import type { RunResult } from "../run.ts";
import { HOOK_EVENTS } from "../events-table.ts";
import { nullProto } from "../../../lib/null-proto.ts";

export interface SessionEffect {
  context: string[];
  block?: { reason: string; message: string };
  stop?: string;
  messages: string[];
  fields: Record<string, unknown>;
  outcome: string;
}

type Json = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === "string" && v.trim() ? v : undefined);
/** hookSpecificOutput fields an event may answer with, besides additionalContext. */
const FIELDS: Record<string, string[]> = nullProto({
  SessionStart: ["initialUserMessage", "sessionTitle", "watchPaths", "reloadSkills"],
  UserPromptSubmit: ["sessionTitle", "suppressOriginalPrompt"],
});
const CONTEXT_EVENTS = new Set(["SessionStart", "UserPromptSubmit", "Stop", "SubagentStop", "SubagentStart", "Notification", "PostCompact", "PreCompact"]);

/** Claude Code's framing of a block, as the user (or, on Stop, the model) reads it. */
function blockMessage(event: string, reason: string, input: Readonly<Json>): string {
  if (event === "UserPromptSubmit") return `UserPromptSubmit operation blocked by hook:\n${reason}\n\nOriginal prompt: ${String(input.prompt ?? "")}`;
  if (event === "Stop" || event === "SubagentStop") return `${event} hook feedback:\n${reason}`;
  return `${event} operation blocked by hook:\n${reason}`;
}

export function interpretSession(event: string, h: Handler, run: RunResult, input: Readonly<Json>): SessionEffect {
  const e: SessionEffect = { context: [], messages: [], fields: {}, outcome: run.status };
  if (run.status === "aborted") return e;
  const blocks = HOOK_EVENTS[event]?.blocks === true;
  const block = (reason: string) => {
    e.block ??= { reason, message: blockMessage(event, reason, input) };
    e.outcome = "block";
  };
  if (run.status === "block") {
    const stderr = run.stderr.trim() || `${event} hook exited 2`;
    if (blocks) block(event === "UserPromptSubmit" ? `[${label(h)}]: ${stderr}` : stderr);
    else e.messages.push(`${event} hook error (exit 2, non-blocking): ${stderr}`);
    return e;
  }
  if (run.status !== "ok") {
    const why = run.message ?? run.status;
    if (h.onFailure === "block" && blocks && event !== "Stop" && event !== "SubagentStop") block(`hook failed (${why}) and its onFailure is "block"`);
    else e.messages.push(`${event} hook "${label(h)}" failed (non-blocking): ${why}`);
  }
  const j = run.json;
  if (!j) {
    const text = run.status === "ok" && !run.badJson ? run.stdout.trim() : "";
    if (text && (event === "SessionStart" || event === "UserPromptSubmit")) e.context.push(`${event}${event === "SessionStart" ? `:${String(input.source ?? "startup")}` : ""} hook success: ${text}`);
    if (run.badJson) e.messages.push(`${event} hook "${label(h)}": ${run.badJson}`);
    return e;
  }
  applyJson(e, event, j, blocks, block);
  return e;
}

function applyJson(e: SessionEffect, event: string, j: Json, blocks: boolean, block: (reason: string) => void): void {
  const hso = j.hookSpecificOutput && typeof j.hookSpecificOutput === "object" ? (j.hookSpecificOutput as Json) : undefined;
  if (j.continue === false) {
    e.stop = str(j.stopReason) ?? `a ${event} hook asked to stop (continue: false)`;
    e.outcome = "stop";
  }
  if (str(j.systemMessage)) e.messages.push(j.systemMessage as string);
  if (j.decision === "block" && blocks) block(str(j.reason) ?? `blocked by a ${event} hook`);
  const ctx = hso && str(hso.additionalContext);
  if (ctx && CONTEXT_EVENTS.has(event)) e.context.push(`${event} hook additional context: ${ctx}`);
  for (const f of FIELDS[event] ?? []) if (hso && hso[f] !== undefined) e.fields[f] = hso[f];
}
