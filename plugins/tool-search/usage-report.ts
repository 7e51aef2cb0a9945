/**
 * `toolhost tools --usage` (core's tools command asks the "tool-search.usage" service this plugin provides):
 * per-tool session frequency and calls from the session store, and the usage-driven suggestions —
 * promote tools used in more than half of sessions to always-loaded, defer rarely used large ones — with
 * what blocks a suggestion (an unconfirmed trust class, the user's toolSearch.alwaysLoad list).
 */
import type { HostView, Tool } from "../../core/index.ts";
import type { DeferralPolicy } from "./policy.ts";
import { suggest, type UsageProvider, type UsageSuggestion } from "./usage.ts";

export const USAGE_REPORT_SERVICE = "tool-search.usage";

export interface UsageReport {
  source: string;
  sessions: number | null;
  policy: string;
  tools: Array<{ name: string; status: "loaded" | "deferred"; calls: number; sessions: number | null; share: number | null; tokens: number }>;
  suggestions: UsageSuggestion[];
  note: string | null;
}

export interface UsageReportService {
  report(): Promise<UsageReport>;
  text(r: UsageReport): string;
}

export function usageReportService(host: () => HostView | undefined, policy: () => DeferralPolicy | undefined, provider: () => UsageProvider | undefined): UsageReportService {
  return {
    async report() {
      const h = host();
      const p = policy();
      if (!h || !p) throw new Error("tool-search: no pool built yet (plugins/tool-search/usage-report.ts)");
      const pv = h.pool();
      if (!pv) throw new Error("tool-search: no pool built yet (plugins/tool-search/usage-report.ts)");
      const prov = provider();
      const snap = prov ? await prov.snapshot() : { sessions: undefined, tools: {}, source: "none: no session store (the sessions plugin provides sessions.usage)" };
      const all: Tool[] = [...pv.tools, ...pv.deferred];
      const deferred = new Set(pv.deferred.map((t) => t.name));
      const view = p.poolView(all, (t) => deferred.has(t.name));
      const tokens = new Map(view.tools.map((t) => [t.name, t.tokens]));
      const { suggestions, note } = suggest(snap, view, p.settings.usage);
      const rows = all.map((t) => {
        const u = snap.tools[t.name];
        const sessions = snap.sessions === undefined ? null : (u?.sessions ?? 0);
        return { name: t.name, status: deferred.has(t.name) ? ("deferred" as const) : ("loaded" as const), calls: u?.calls ?? 0, sessions, share: sessions === null || !snap.sessions ? null : sessions / snap.sessions, tokens: tokens.get(t.name) ?? 0 };
      });
      rows.sort((a, b) => (b.share ?? 0) - (a.share ?? 0) || b.calls - a.calls || (a.name < b.name ? -1 : 1));
      return { source: snap.source, sessions: snap.sessions ?? null, policy: p.settings.usage.policy, tools: rows, suggestions, note: note ?? null };
    },
    text(r) {
      const lines = [`Usage from ${r.source}${r.sessions !== null ? `: ${r.sessions} sessions` : ""} · toolSearch.usage.policy ${r.policy}`];
      const w = Math.max(4, ...r.tools.map((t) => t.name.length));
      lines.push(`${"NAME".padEnd(w)}  STATUS    SESSIONS        CALLS  TOKENS`);
      for (const t of r.tools) {
        const sess = t.sessions === null ? "n/a" : `${t.sessions}${t.share !== null ? ` (${Math.round(t.share * 100)}%)` : ""}`;
        lines.push(`${t.name.padEnd(w)}  ${t.status.padEnd(8)}  ${sess.padEnd(14)}  ${String(t.calls).padStart(5)}  ${t.tokens || ""}`);
      }
      if (r.note) lines.push(`\n${r.note}`);
      if (r.suggestions.length) {
        lines.push(`\nSuggestions${r.policy === "apply" ? " (applied at the next build unless blocked)" : ' (set toolSearch.usage.policy: "apply" to follow them, or list tools in toolSearch.alwaysLoad)'}:`);
        for (const s of r.suggestions) lines.push(`  ${s.action === "always-load" ? "always load" : "defer"} ${s.tool}: ${s.reason}${s.blocked ? ` — blocked: ${s.blocked}` : ""}`);
      } else if (!r.note) lines.push("\nNo suggestions.");
      return lines.join("\n");
    },
  };
}
