/**
 * Usage-driven deferral (issue 18 item 3): per-tool usage across sessions, suggestions to promote tools
 * used in more than half of sessions to always-loaded and to defer rarely used large ones, and the
 * opt-in policy that applies them at the next build (`toolSearch.usage.policy: "apply"`).
 *
 * Counts come from the session store through the sessions plugin's "sessions.usage" service
 * (lib/session-store `SessionUsage`): `counts()` gives calls per tool; its optional `sessionCounts()`
 * gives how many sessions used each tool (session frequency). Without the service, `MemoryUsage` (this
 * process only) answers. The promotion rule needs session frequency: with call counts alone it is
 * reported as unavailable and nothing is promoted.
 */
import type { HostConfig, LoadedPlugin, Tool } from "../../core/index.ts";
import type { SessionStore, SessionUsage, UsageCount } from "../../lib/session-store/index.ts";

export const USAGE_SERVICE = "sessions.usage";

export interface ToolUsage {
  calls: number;
  /** Sessions that used the tool at least once (when the store can say). */
  sessions?: number;
  lastUsed?: number;
}

export interface UsageSnapshot {
  /** Sessions in the store (when known): the denominator of session frequency. */
  sessions?: number;
  tools: Record<string, ToolUsage>;
  /** Where the counts came from (shown by `tools --usage`). */
  source: string;
}

/** What usage-driven deferral reads. */
export interface UsageProvider {
  snapshot(): Promise<UsageSnapshot>;
}

/** The sessions plugin's service, optionally with session frequency (requested in notes/toolsearch-to-sessions.md). */
export type SessionUsageLike = SessionUsage & { sessionCounts?(): Promise<{ sessions: number; tools: Record<string, number> }> };

export function sessionUsageProvider(svc: SessionUsageLike): UsageProvider {
  return {
    async snapshot() {
      const counts: Record<string, UsageCount> = await svc.counts();
      const freq = svc.sessionCounts ? await svc.sessionCounts() : undefined;
      const tools: Record<string, ToolUsage> = {};
      for (const [name, c] of Object.entries(counts)) tools[name] = { calls: c.count, lastUsed: c.lastUsed, sessions: freq?.tools[name] ?? (freq ? 0 : undefined) };
      if (freq) for (const [name, n] of Object.entries(freq.tools)) tools[name] ??= { calls: 0, sessions: n };
      return { sessions: freq?.sessions, tools, source: freq ? "session store (calls and session frequency)" : "session store (calls; this store gives no session frequency)" };
    },
  };
}

/** In-memory usage (tests, hosts without a session store): record calls per session. */
export class MemoryUsage implements UsageProvider {
  private readonly perSession = new Map<string, Map<string, number>>();
  record(sessionId: string, tool: string, n = 1): void {
    let m = this.perSession.get(sessionId);
    if (!m) this.perSession.set(sessionId, (m = new Map()));
    m.set(tool, (m.get(tool) ?? 0) + n);
  }
  async snapshot(): Promise<UsageSnapshot> {
    const tools: Record<string, ToolUsage> = {};
    for (const m of this.perSession.values())
      for (const [t, n] of m) {
        const u = (tools[t] ??= { calls: 0, sessions: 0 });
        u.calls += n;
        u.sessions!++;
      }
    return { sessions: this.perSession.size, tools, source: "in-memory (this process)" };
  }
}

export interface UsageSettings {
  /** "suggest" (default): `tools --usage` shows suggestions; "apply": the next build follows them; "off". */
  policy: "off" | "suggest" | "apply";
  /** Promote a deferred tool used in more than this share of sessions (default 0.5). */
  promoteAbove: number;
  /** Defer an eager deferrable tool used in fewer than this share of sessions (default 0.05)… */
  deferBelow: number;
  /** … when its definition is at least this many tokens (default 1000). */
  largeTokens: number;
  /** No suggestion before this many sessions are known (default 5). */
  minSessions: number;
}

export const DEFAULT_USAGE: UsageSettings = { policy: "suggest", promoteAbove: 0.5, deferBelow: 0.05, largeTokens: 1000, minSessions: 5 };

export function readUsageSettings(raw: unknown, problems: string[]): UsageSettings {
  const out = { ...DEFAULT_USAGE };
  if (raw === undefined) return out;
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) {
    problems.push(`toolSearch.usage must be an object {policy, promoteAbove, deferBelow, largeTokens, minSessions}; got ${JSON.stringify(raw)} — using the defaults`);
    return out;
  }
  const r = raw as Record<string, unknown>;
  if (r.policy !== undefined) {
    if (r.policy === "off" || r.policy === "suggest" || r.policy === "apply") out.policy = r.policy;
    else problems.push(`toolSearch.usage.policy must be "off", "suggest" or "apply"; got ${JSON.stringify(r.policy)} — using "suggest"`);
  }
  const num = (k: "promoteAbove" | "deferBelow" | "largeTokens" | "minSessions", max: number) => {
    const v = r[k];
    if (v === undefined) return;
    if (typeof v === "number" && v >= 0 && v <= max) out[k] = v;
    else problems.push(`toolSearch.usage.${k} must be a number from 0 to ${max}; got ${JSON.stringify(v)} — using ${DEFAULT_USAGE[k]}`);
  };
  num("promoteAbove", 1);
  num("deferBelow", 1);
  num("largeTokens", 1e9);
  num("minSessions", 1e9);
  return out;
}

export interface UsageSuggestion {
  tool: string;
  action: "always-load" | "defer";
  reason: string;
  share: number;
  tokens: number;
  /** Why it cannot be applied, when it cannot (unconfirmed trust class, user override). */
  blocked?: string;
}

export interface PoolView {
  /** Every candidate tool with whether it is deferred now, its definition tokens, and whether it may move. */
  tools: Array<{ name: string; deferred: boolean; tokens: number; deferrable: boolean; blocked?: string }>;
}

/** The suggestions for a usage snapshot over a pool. Deterministic: sorted by action, then share, then name. */
export function suggest(snap: UsageSnapshot, pool: PoolView, s: UsageSettings): { suggestions: UsageSuggestion[]; note?: string } {
  if (snap.sessions === undefined) return { suggestions: [], note: "session frequency unavailable from this store (calls only): no promotion or deferral suggested" };
  if (snap.sessions < s.minSessions) return { suggestions: [], note: `${snap.sessions} sessions known, fewer than toolSearch.usage.minSessions (${s.minSessions}): no suggestion yet` };
  const out: UsageSuggestion[] = [];
  const pct = (x: number) => `${Math.round(x * 100)}%`;
  for (const t of pool.tools) {
    if (!t.deferrable) continue;
    const used = snap.tools[t.name]?.sessions ?? 0;
    const share = used / snap.sessions;
    if (t.deferred && share > s.promoteAbove)
      out.push({ tool: t.name, action: "always-load", share, tokens: t.tokens, reason: `used in ${used} of ${snap.sessions} sessions (${pct(share)} > ${pct(s.promoteAbove)})`, ...(t.blocked ? { blocked: t.blocked } : {}) });
    else if (!t.deferred && share < s.deferBelow && t.tokens >= s.largeTokens)
      out.push({ tool: t.name, action: "defer", share, tokens: t.tokens, reason: `used in ${used} of ${snap.sessions} sessions (${pct(share)} < ${pct(s.deferBelow)}) and ${t.tokens} tokens every turn`, ...(t.blocked ? { blocked: t.blocked } : {}) });
  }
  out.sort((a, b) => (a.action < b.action ? -1 : a.action > b.action ? 1 : b.share - a.share || (a.tool < b.tool ? -1 : 1)));
  return { suggestions: out };
}

/** The store behind the sessions plugin ("sessions.admin" → runtime.store()), for session frequency. */
type AdminLike = { runtime?: { store?(): Promise<Pick<SessionStore, "list" | "usage">> } };

/**
 * Session frequency from a store: its live sessions, and per tool how many of them have a usage count
 * (`list()` + `usage({sessionId})` each; the store keeps at most `maxSessions`, 1000 by default).
 */
export function storeSessionCounts(store: () => Promise<Pick<SessionStore, "list" | "usage">>): () => Promise<{ sessions: number; tools: Record<string, number> }> {
  return async () => {
    const st = await store();
    const list = await st.list();
    const tools: Record<string, number> = {};
    for (const s of list) for (const name of Object.keys(await st.usage({ sessionId: s.id }))) tools[name] = (tools[name] ?? 0) + 1;
    return { sessions: list.length, tools };
  };
}

/** The usage provider of a host: the sessions plugin's service when present (session frequency from its store). */
export function providerOf(service: <T>(name: string) => T | undefined, fallback?: UsageProvider): UsageProvider | undefined {
  const svc = service<SessionUsageLike>(USAGE_SERVICE);
  if (!svc || typeof svc.counts !== "function") return fallback;
  if (svc.sessionCounts) return sessionUsageProvider(svc);
  const rt = service<AdminLike>("sessions.admin")?.runtime;
  if (rt && typeof rt.store === "function") return sessionUsageProvider({ counts: (o) => svc.counts(o), sessionCounts: storeSessionCounts(() => rt.store!()) });
  return sessionUsageProvider(svc);
}

/**
 * Trust class of a tool's source (README "Trust model"): "host" (bundled plugins, in-process plugins, the
 * user's config), "workspace" (the project's settings and .mcp.json: confirmed when the workspace is
 * trusted), "outside plugin" (npm, --plugin-dir: confirmed by a pluginTrust grant). Returns why it is not
 * confirmed, or undefined when it is. Without the trust plugin nothing outside the host is confirmed.
 */
export function unconfirmedTrust(t: Tool, plugins: readonly LoadedPlugin[], trust: TrustView | undefined): string | undefined {
  const lp = plugins.find((p) => p.id === t.plugin);
  if (!lp) return undefined;
  if (lp.kind === "inline" || lp.kind === "config" || lp.source.kind === "bundled") return undefined;
  if (lp.kind === "settings" || lp.kind === "mcpjson") {
    return trust?.workspaceTrusted() ? undefined : `its source (${lp.kind === "mcpjson" ? ".mcp.json" : "project settings"} of plugin ${lp.id}) is the workspace's, which is not trusted`;
  }
  return trust?.pluginGranted(lp.id) ? undefined : `plugin ${lp.id} (${lp.source.kind}) has no pluginTrust grant`;
}

export interface TrustView {
  workspaceTrusted(): boolean;
  pluginGranted(id: string): boolean;
}

/** The trust plugin's service ("workspace.trust") reduced to what deferral asks. */
export function trustViewOf(service: <T>(name: string) => T | undefined): TrustView | undefined {
  const svc = service<{ state(): { trusted: boolean }; pluginGrant(id: string): unknown }>("workspace.trust");
  if (!svc) return undefined;
  let trusted: boolean | undefined;
  return {
    workspaceTrusted: () => (trusted ??= (() => { try { return svc.state().trusted; } catch { return false; } })()),
    pluginGranted: (id) => svc.pluginGrant(id) !== undefined,
  };
}

export type ToolSearchScope = "all" | "mcp_only" | "builtins_only" | "none";
export const SCOPES: readonly ToolSearchScope[] = ["all", "mcp_only", "builtins_only", "none"];

/** Whether the scope lets this tool be deferred at all: MCP tools, and other tools that declare shouldDefer. */
export function inScope(t: Tool, scope: ToolSearchScope): boolean {
  const mcp = t.origin === "mcp";
  if (!mcp && t.shouldDefer !== true) return false;
  return scope === "all" || (scope === "mcp_only" ? mcp : scope === "builtins_only" ? !mcp : false);
}

export function readScope(ts: NonNullable<HostConfig["toolSearch"]>, problems: string[]): ToolSearchScope {
  const v = ts.scope;
  if (v === undefined) return "all";
  if (SCOPES.includes(v as ToolSearchScope)) return v as ToolSearchScope;
  problems.push(`toolSearch.scope must be one of ${SCOPES.map((s) => `"${s}"`).join(", ")}; got ${JSON.stringify(v)} — using "all"`);
  return "all";
}
