/**
 * Usage counts for `toolhost sessions` and ToolSearch's usage signal: the store's totals plus what this
 * process counted and has not flushed yet. A store that cannot be read is a warning, never an error.
 */
import type { SessionStore, UsageCount } from "../../lib/session-store/index.ts";
import type { Track } from "./track.ts";

export interface UsageSource {
  readonly backend: string;
  readonly tracks: ReadonlyMap<string, Track>;
  store(): Promise<SessionStore>;
  warn(kind: string, message: string): void;
}

/** Usage counts: the store's totals (or one session's) plus what this process has not flushed yet. */
export async function usageTotals(rt: UsageSource, opts: { sessionId?: string } = {}): Promise<Record<string, UsageCount>> {
  const out: Record<string, UsageCount> = {};
  if (rt.backend !== "memory") {
    try {
      Object.assign(out, await (await rt.store()).usage(opts));
    } catch (e) {
      rt.warn("usage", `usage counts could not be read: ${(e as Error).message}`);
    }
  }
  for (const [id, t] of rt.tracks) {
    if (opts.sessionId !== undefined && id !== opts.sessionId) continue;
    for (const [tool, n] of t.usage) out[tool] = { count: (out[tool]?.count ?? 0) + n, lastUsed: Date.now() };
  }
  return out;
}

/** How many sessions used each tool: the store's sessions, and sessions of this process not stored (or not yet). */
export async function sessionCounts(rt: UsageSource): Promise<{ sessions: number; tools: Record<string, number> }> {
  const tools: Record<string, number> = {};
  const seen = new Set<string>();
  const count = (names: Iterable<string>) => {
    for (const n of new Set(names)) tools[n] = (tools[n] ?? 0) + 1;
  };
  if (rt.backend !== "memory") {
    try {
      const st = await rt.store();
      for (const s of await st.list()) {
        seen.add(s.id);
        count([...Object.keys(await st.usage({ sessionId: s.id })), ...(rt.tracks.get(s.id)?.usage.keys() ?? [])]);
      }
    } catch (e) {
      rt.warn("usage", `usage counts could not be read: ${(e as Error).message}`);
    }
  }
  for (const [id, t] of rt.tracks) if (!seen.has(id) && t.usage.size) (seen.add(id), count(t.usage.keys()));
  return { sessions: seen.size, tools };
}
