/**
 * Per-instance metrics in the Prometheus text format (served at `/metrics` by `toolhost serve --http`
 * when `telemetry.metrics` is on): calls by tool and status, decisions by behavior and deciding plugin,
 * and latency histograms of whole calls (by tool) and of hook taps (by hook and plugin).
 */
import type { CallRecord } from "../../core/index.ts";
import { isStage } from "./spans.ts";

/** Histogram bucket bounds in seconds (upper bounds; +Inf is implicit). */
export const BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

class Histogram {
  readonly counts = new Array<number>(BUCKETS.length + 1).fill(0);
  sum = 0;
  n = 0;
  observe(seconds: number): void {
    let i = 0;
    while (i < BUCKETS.length && seconds > BUCKETS[i]!) i++;
    this.counts[i]!++;
    this.sum += seconds;
    this.n++;
  }
}

const esc = (v: string) => v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
const labels = (l: Record<string, string>) => {
  const parts = Object.entries(l).map(([k, v]) => `${k}="${esc(v)}"`);
  return parts.length ? `{${parts.join(",")}}` : "";
};
const key = (l: Record<string, string>) => JSON.stringify(l);

export class Metrics {
  private readonly counters = new Map<string, Map<string, { l: Record<string, string>; v: number }>>();
  private readonly histograms = new Map<string, Map<string, { l: Record<string, string>; h: Histogram }>>();
  readonly startedAt = Date.now();
  constructor(readonly instance: string) {}

  inc(name: string, l: Record<string, string>, by = 1): void {
    let m = this.counters.get(name);
    if (!m) this.counters.set(name, (m = new Map()));
    const k = key(l);
    const e = m.get(k);
    if (e) e.v += by;
    else m.set(k, { l, v: by });
  }
  observe(name: string, l: Record<string, string>, seconds: number): void {
    let m = this.histograms.get(name);
    if (!m) this.histograms.set(name, (m = new Map()));
    const k = key(l);
    let e = m.get(k);
    if (!e) m.set(k, (e = { l, h: new Histogram() }));
    e.h.observe(seconds);
  }

  /** Count one finished call. */
  record(rec: CallRecord, endedAt: number): void {
    const o = rec.outcome;
    this.inc("toolhost_calls_total", { tool: o.tool, status: o.status });
    this.inc("toolhost_decisions_total", { decision: o.decision, plugin: o.plugin ?? "" });
    this.observe("toolhost_call_duration_seconds", { tool: o.tool }, Math.max(0, endedAt - rec.call.startedAt) / 1000);
    for (const t of o.trace) if (!isStage(t)) this.observe("toolhost_hook_duration_seconds", { hook: t.stage, plugin: t.plugin ?? "" }, t.ms / 1000);
  }

  /** A counter's value (tests, benchmarks); the sum over all label sets when `l` is omitted. */
  value(name: string, l?: Record<string, string>): number {
    const m = this.counters.get(name);
    if (!m) return 0;
    if (l) return m.get(key(l))?.v ?? 0;
    let s = 0;
    for (const e of m.values()) s += e.v;
    return s;
  }

  text(): string {
    const out: string[] = [];
    const inst = { instance: this.instance };
    out.push("# HELP toolhost_info This toolhost instance.", "# TYPE toolhost_info gauge", `toolhost_info${labels(inst)} 1`);
    out.push("# HELP toolhost_uptime_seconds Seconds since this instance's telemetry started.", "# TYPE toolhost_uptime_seconds gauge", `toolhost_uptime_seconds ${(Date.now() - this.startedAt) / 1000}`);
    const help: Record<string, string> = {
      toolhost_calls_total: "Tool calls by tool and outcome status.",
      toolhost_decisions_total: "Permission decisions by behavior and the plugin that decided.",
      toolhost_call_duration_seconds: "Whole-call latency (lookup to shaped result) by tool.",
      toolhost_hook_duration_seconds: "Hook tap latency by hook and plugin.",
    };
    for (const [name, m] of this.counters) {
      out.push(`# HELP ${name} ${help[name] ?? name}`, `# TYPE ${name} counter`);
      for (const e of m.values()) out.push(`${name}${labels(e.l)} ${e.v}`);
    }
    for (const [name, m] of this.histograms) {
      out.push(`# HELP ${name} ${help[name] ?? name}`, `# TYPE ${name} histogram`);
      for (const { l, h } of m.values()) {
        let cum = 0;
        for (let i = 0; i < BUCKETS.length; i++) {
          cum += h.counts[i]!;
          out.push(`${name}_bucket${labels({ ...l, le: String(BUCKETS[i]) })} ${cum}`);
        }
        out.push(`${name}_bucket${labels({ ...l, le: "+Inf" })} ${h.n}`, `${name}_sum${labels(l)} ${h.sum}`, `${name}_count${labels(l)} ${h.n}`);
      }
    }
    return out.join("\n") + "\n";
  }
}
