/**
 * A call's trace (ExecuteOutcome.trace) as a tree of span records: one root span for the call, one
 * child per core stage mark and per hook tap. Pure data, no OpenTelemetry import (export.ts sends them).
 *
 * Timing: a core stage entry's `ms` runs from the previous mark to its own (marks are contiguous from
 * the call's start), so its start and end are exact. A hook entry records its duration only; it is
 * placed right after the previous mark or the previous hook, whichever ended later — durations are
 * measured, hook start times are reconstructed in trace order.
 */
import type { CallRecord, TraceEntry } from "../../core/index.ts";

export type Attr = string | number | boolean;
export interface SpanRecord {
  name: string;
  /** Epoch milliseconds (fractional). */
  start: number;
  end: number;
  attributes: Record<string, Attr>;
  error?: string;
}
export interface CallSpans {
  root: SpanRecord;
  children: SpanRecord[];
}

const BEHAVIORS = new Set(["allow", "deny", "ask", "defer"]);
const MAX_DETAIL = 1000;

function detailText(d: unknown): string | undefined {
  if (d === undefined) return undefined;
  let s: string;
  try {
    s = typeof d === "string" ? d : JSON.stringify(d);
  } catch {
    return undefined;
  }
  return s.length > MAX_DETAIL ? s.slice(0, MAX_DETAIL) + "…" : s;
}

function set(a: Record<string, Attr>, k: string, v: unknown): void {
  if (v !== undefined && v !== null && v !== "") a[k] = typeof v === "number" || typeof v === "boolean" ? v : String(v);
}

/** Is this entry one of core's own stage marks (vs a plugin's hook tap)? */
export const isStage = (t: TraceEntry): boolean => t.plugin === "toolhost" && !t.stage.startsWith("build.");

export function callSpans(rec: CallRecord, endedAt: number, instance?: string): CallSpans {
  const { call, outcome } = rec;
  const t0 = call.startedAt;
  const root: SpanRecord = { name: `toolhost.call ${outcome.tool}`, start: t0, end: Math.max(endedAt, t0), attributes: {} };
  const ra = root.attributes;
  set(ra, "toolhost.tool", outcome.tool);
  set(ra, "toolhost.tool_use_id", outcome.toolUseId);
  set(ra, "toolhost.session", call.sessionId);
  set(ra, "toolhost.source", call.source);
  set(ra, "toolhost.generation", call.generation);
  set(ra, "toolhost.decision", outcome.decision);
  set(ra, "toolhost.status", outcome.status);
  set(ra, "toolhost.executed", outcome.executed);
  set(ra, "toolhost.rule", outcome.rule);
  set(ra, "toolhost.plugin", outcome.plugin);
  set(ra, "toolhost.file", outcome.file);
  set(ra, "toolhost.reason", outcome.reason);
  set(ra, "toolhost.instance", instance);
  if (outcome.status !== "ok" && outcome.status !== "dry-run") root.error = outcome.status;

  const children: SpanRecord[] = [];
  let mark = t0; // end of the last core stage mark
  let cursor = t0; // end of the last placed span
  let ruled = false; // the rule goes on the first hook entry that answered the call's decision
  for (const t of outcome.trace) {
    const stage = isStage(t);
    const start = stage ? mark : Math.max(mark, cursor);
    const end = start + Math.max(0, t.ms);
    if (stage) mark = end;
    cursor = Math.max(cursor, end);
    const a: Record<string, Attr> = {};
    set(a, "toolhost.kind", stage ? "stage" : "hook");
    set(a, stage ? "toolhost.stage" : "toolhost.hook", t.stage);
    set(a, "toolhost.plugin", t.plugin);
    set(a, "toolhost.outcome", t.outcome);
    set(a, "toolhost.ms", Math.round(t.ms * 1000) / 1000);
    if (t.outcome && BEHAVIORS.has(t.outcome)) {
      set(a, "toolhost.decision", t.outcome);
      if (!stage && !ruled && t.outcome === outcome.decision && outcome.rule) {
        ruled = true;
        set(a, "toolhost.rule", outcome.rule);
        set(a, "toolhost.rule_plugin", outcome.plugin); // the rule's owner (a plugin, "config", "settings:project" …)
        set(a, "toolhost.rule_file", outcome.file);
      }
    }
    set(a, "toolhost.detail", detailText(t.detail));
    children.push({ name: stage ? `stage ${t.stage}` : `hook ${t.stage} ${t.plugin ?? ""}`.trim(), start, end, attributes: a, ...(t.outcome === "error" ? { error: detailText(t.detail) ?? "error" } : {}) });
  }
  root.end = Math.max(root.end, cursor);
  return { root, children };
}
