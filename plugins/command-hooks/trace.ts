/** One trace entry per handler run, and the loud warnings (notes + log) its failures deserve. */
import { TRACE, type CallState, type HostView } from "../../core/index.ts";
import { label } from "./handlers.ts";
import type { Effect } from "./interpret.ts";

function outcomeOf(e: Effect): string {
  const r = e.run;
  if (r.status === "aborted") return "aborted";
  if (e.decision) return e.decision;
  if (e.feedback) return "block";
  if (e.failure) return r.status === "ok" ? "bad-output" : r.status;
  return e.updatedOutput ? "output-updated" : "ok";
}

/** Push the handler's trace entry and warn; returns the entry's detail (aggregation may add to it). */
export function traceEffect(host: HostView, call: CallState, event: string, e: Effect): Record<string, unknown> {
  const h = e.handler;
  const r = e.run;
  const detail: Record<string, unknown> = { file: h.file, jsonPath: h.jsonPath, command: label(h), exitCode: r.exitCode, status: r.status };
  if (e.reason) detail.reason = e.reason;
  if (e.failure) detail.error = e.failure;
  if (e.warnings.length) detail.warnings = e.warnings;
  if (e.notices?.length) detail.ignored = e.notices;
  if (e.systemMessage) detail.systemMessage = e.systemMessage;
  if (e.stop) detail.stop = e.stop;
  if (e.substitute) detail.substitute = true;
  if (h.duplicates.length) detail.dedupedFrom = h.duplicates;
  if (r.stderr.trim()) detail.stderr = r.stderr.trim().slice(0, 500);
  call[TRACE].push({ stage: `hook.${event}`, plugin: h.plugin, ms: r.ms, outcome: outcomeOf(e), detail });
  warn(host, call, event, e);
  return detail;
}

function warn(host: HostView, call: CallState, event: string, e: Effect): void {
  const h = e.handler;
  const where = `${h.plugin} ${h.file}${h.jsonPath}`;
  const loud = (msg: string) => {
    call.notes.push(msg);
    host.log.warn(msg);
  };
  // A missing script silently disables a gate in Claude Code; here it is loud.
  if (e.run.status === "missing") loud(`[toolhost warning] ${event} hook "${label(h)}" (${where}) could not run: ${e.failure}. It did NOT check this call.`);
  else if (e.failure) host.log.warn(`${event} hook "${label(h)}" (${where}): ${e.failure}${h.onFailure === "block" ? " (onFailure: block)" : " (non-blocking)"}`);
  for (const n of e.notices ?? []) host.log.warn(`${event} hook "${label(h)}" (${where}): ${n}`);
  for (const w of e.warnings) loud(`[toolhost warning] ${event} hook "${label(h)}" (${where}): ${w}`);
  if (e.systemMessage) host.log.warn(`${event} hook "${label(h)}": ${e.systemMessage}`);
}
