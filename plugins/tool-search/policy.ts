/**
 * The deferral policy: which tools the model sees by name only until ToolSearch loads them.
 * Every decision names its rule, the plugin and (for config rules) the file, so `toolhost explain`
 * can say exactly why a tool is loaded or deferred.
 *
 * Never defer (checked first, DEFER_STAGE_ALWAYS_LOAD):
 *   ToolSearch itself · `toolSearch.enabled: false` · MCP `_meta["anthropic/alwaysLoad"]: true` ·
 *   tool `alwaysLoad: true` · config `toolSearch.alwaysLoad: [names|globs]` · MCP server config `alwaysLoad: true`
 *   (unless the tool's `_meta["anthropic/alwaysLoad"]` is `false`, which opts it back out).
 * Defer (DEFER_STAGE_POLICY): MCP tools and `shouldDefer` tools, unless `toolSearch.enabled` is
 * `"auto"`/`"auto:N"` and the deferrable definitions stay under N% (default 10) of the context budget
 * (`toolSearch.contextTokens`, default 200,000).
 */
import picomatch from "picomatch";
import type { DeferDecision, HostConfig, LoadedPlugin, Tool } from "../../core/index.ts";
import { toolTokens } from "./adapters.ts";
import { TOOL_SEARCH_NAME } from "./tool.ts";
import { inScope, readScope, readUsageSettings, suggest, unconfirmedTrust, type PoolView, type ToolSearchScope, type TrustView, type UsageSettings, type UsageSnapshot } from "./usage.ts";

export const PLUGIN_NAME = "tool-search";
export const DEFAULT_CONTEXT_TOKENS = 200_000;
export const DEFAULT_AUTO_PERCENT = 10;

export interface ToolSearchSettings {
  mode: "on" | "off" | "auto";
  /** auto: percent of the context budget. */
  percent: number;
  contextTokens: number;
  alwaysLoad: string[];
  /** Which tools may be deferred: MCP and shouldDefer tools ("all"), only MCP, only non-MCP, none. */
  scope: ToolSearchScope;
  usage: UsageSettings;
  /** The config file the settings came from (for explanations). */
  file?: string;
  problems: string[];
}

export function readSettings(config: HostConfig, plugins: readonly LoadedPlugin[]): ToolSearchSettings {
  const file = plugins.find((p) => p.id === "config")?.manifestFile;
  const ts = (config.toolSearch ?? {}) as NonNullable<HostConfig["toolSearch"]>;
  const out: ToolSearchSettings = { mode: "on", percent: DEFAULT_AUTO_PERCENT, contextTokens: DEFAULT_CONTEXT_TOKENS, alwaysLoad: [], scope: "all", usage: readUsageSettings(undefined, []), file, problems: [] };
  out.scope = readScope(ts, out.problems);
  out.usage = readUsageSettings(ts.usage, out.problems);
  const en = ts.enabled;
  if (en === false) out.mode = "off";
  else if (en === true || en === undefined) out.mode = "on";
  else if (typeof en === "string" && /^auto(:\d+(\.\d+)?)?$/.test(en)) {
    out.mode = "auto";
    if (en.includes(":")) out.percent = Math.min(100, Math.max(0, Number(en.slice(5))));
  } else out.problems.push(`toolSearch.enabled must be true, false, "auto" or "auto:N" (0–100); got ${JSON.stringify(en)} — using true`);
  if (ts.contextTokens !== undefined) {
    if (typeof ts.contextTokens === "number" && ts.contextTokens > 0) out.contextTokens = ts.contextTokens;
    else out.problems.push(`toolSearch.contextTokens must be a positive number; got ${JSON.stringify(ts.contextTokens)} — using ${DEFAULT_CONTEXT_TOKENS}`);
  }
  if (ts.alwaysLoad !== undefined) {
    if (Array.isArray(ts.alwaysLoad) && ts.alwaysLoad.every((x) => typeof x === "string")) out.alwaysLoad = ts.alwaysLoad;
    else out.problems.push(`toolSearch.alwaysLoad must be an array of tool names or globs`);
  }
  return out;
}

function metaAlwaysLoad(t: Tool): boolean | undefined {
  const ex = t.extra as Record<string, any> | undefined;
  const v = ex?._meta?.["anthropic/alwaysLoad"] ?? ex?.meta?.["anthropic/alwaysLoad"];
  return typeof v === "boolean" ? v : undefined;
}

function serverAlwaysLoad(t: Tool): boolean {
  const ex = t.extra as Record<string, any> | undefined;
  return ex?.serverConfig?.alwaysLoad === true;
}

/** A tool's own claim to be always loaded (tool flag, MCP _meta, its server's config) — not the user's list. */
function claimsAlwaysLoad(t: Tool): boolean {
  const meta = metaAlwaysLoad(t);
  return meta === true || t.alwaysLoad === true || (serverAlwaysLoad(t) && meta !== false);
}

/** What usage-driven deferral decided for this build (toolSearch.usage.policy "apply"). */
export interface UsagePlan {
  promote: Map<string, string>;
  defer: Map<string, string>;
}

export class DeferralPolicy {
  private readonly matchers: Array<{ pattern: string; test: (n: string) => boolean }>;
  /** auto mode: the deferrable-schema token total and whether it crossed the threshold (set by `measure`). */
  auto?: { tokens: number; threshold: number; defer: boolean };

  /** Set per build: the trust view (trust plugin) and loaded plugins, for trust-gated promotion. */
  trust?: TrustView;
  plugins: readonly LoadedPlugin[] = [];
  usagePlan?: UsagePlan;
  private readonly isDeferrable: (t: Tool) => boolean;

  constructor(readonly settings: ToolSearchSettings) {
    this.isDeferrable = (t) => inScope(t, settings.scope);
    this.matchers = settings.alwaysLoad.map((p) => ({ pattern: p, test: picomatch(p, { dot: true }) }));
  }

  private base(rule: string, defer: boolean, reason: string, file?: string): DeferDecision {
    const d: DeferDecision = { defer, reason, rule, plugin: PLUGIN_NAME };
    if (file) d.file = file;
    return d;
  }

  /** DEFER_STAGE_ALWAYS_LOAD: the explicit never-defer rules. */
  alwaysLoad(t: Tool): DeferDecision | undefined {
    const s = this.settings;
    if (t.name === TOOL_SEARCH_NAME && t.plugin === PLUGIN_NAME) return this.base("toolSearch: self", false, "ToolSearch is never deferred: it is how deferred tools are loaded");
    if (!this.isDeferrable(t)) return undefined;
    if (s.mode === "off") return this.base("toolSearch.enabled: false", false, "tool search is disabled (toolSearch.enabled: false): every tool is loaded up front", s.file);
    // the user's own list is the override: before the tool's own claims, usage and trust gating
    const m = this.matchers.find((x) => x.test(t.name));
    if (m) return this.base(`toolSearch.alwaysLoad: ${m.pattern}`, false, `config toolSearch.alwaysLoad lists "${m.pattern}"`, s.file);
    if (this.usagePlan?.defer.has(t.name) || this.trustBlocked(t)) return undefined; // policy() defers it and says why
    const meta = metaAlwaysLoad(t);
    if (meta === true) return this.base('_meta["anthropic/alwaysLoad"]', false, `the MCP tool sets _meta["anthropic/alwaysLoad"]: true${t.server ? ` (server ${t.server})` : ""}`);
    if (t.alwaysLoad === true) return this.base("tool: alwaysLoad", false, `the tool declares alwaysLoad: true`, t.file);
    if (serverAlwaysLoad(t)) {
      if (meta === false) return undefined; // opted back out: the policy decides
      return this.base("mcp server: alwaysLoad", false, `MCP server ${t.server ?? "?"} is configured with alwaysLoad: true`, (t.extra as any)?.serverConfigFile ?? t.file);
    }
    const up = this.usagePlan?.promote.get(t.name);
    if (up) return this.base("toolSearch.usage: promote", false, `usage-driven (toolSearch.usage.policy: apply): ${up}; always loaded`, s.file);
    return undefined;
  }

  /** Why a tool that asks to be always loaded (or is promoted by usage) stays deferred: its trust class is not confirmed. */
  private trustBlocked(t: Tool): string | undefined {
    if (!claimsAlwaysLoad(t) && !this.usagePlan?.promote.has(t.name)) return undefined;
    if (this.matchers.some((x) => x.test(t.name))) return undefined; // the user's own list is the override
    return unconfirmedTrust(t, this.plugins, this.trust);
  }

  /** DEFER_STAGE_POLICY: the default policy for deferrable tools. */
  policy(t: Tool): DeferDecision | undefined {
    if (!this.isDeferrable(t)) return undefined;
    const s = this.settings;
    const ud = this.usagePlan?.defer.get(t.name);
    if (ud) return this.base("toolSearch.usage: defer", true, `usage-driven (toolSearch.usage.policy: apply): ${ud}; deferred`, s.file);
    const tb = this.trustBlocked(t);
    if (tb) return this.base("trust: unconfirmed", true, `it asks to be always loaded, but ${tb}: stays deferred until its trust class is confirmed (README "Trust model")`, t.file);
    const what = t.origin === "mcp" ? "mcp: deferred by default" : "tool: shouldDefer";
    const why = t.origin === "mcp" ? `MCP tools are deferred by default${t.server ? ` (server ${t.server})` : ""}; ToolSearch loads them` : "the tool declares shouldDefer: true; ToolSearch loads it";
    if (s.mode === "auto" && this.auto) {
      const pct = `${s.percent}% of ${s.contextTokens} context tokens = ${Math.round(this.auto.threshold)}`;
      if (!this.auto.defer) return this.base(`toolSearch.enabled: auto:${s.percent}`, false, `auto: deferrable tool definitions total ${this.auto.tokens} tokens, under ${pct}; loaded up front`, s.file);
      return this.base(`${what}; toolSearch.enabled: auto:${s.percent}`, true, `${why}; auto: deferrable definitions total ${this.auto.tokens} tokens, over ${pct}`, s.file);
    }
    const mcpMetaOptOut = metaAlwaysLoad(t) === false && serverAlwaysLoad(t);
    if (mcpMetaOptOut) return this.base('_meta["anthropic/alwaysLoad"]: false', true, `the MCP tool sets _meta["anthropic/alwaysLoad"]: false, opting out of its server's alwaysLoad; deferred`);
    return this.base(what, true, why, t.origin === "mcp" ? undefined : t.file);
  }

  /** The pool as usage suggestions see it: deferrable tools, deferred or not without usage, their tokens, what blocks a move. */
  poolView(tools: readonly Tool[], isDeferred: (t: Tool) => boolean): PoolView {
    const view: PoolView = { tools: [] };
    for (const t of tools) {
      if (!this.isDeferrable(t)) continue;
      const deferred = isDeferred(t);
      const listed = this.matchers.find((x) => x.test(t.name));
      const blocked = deferred ? unconfirmedTrust(t, this.plugins, this.trust) : listed ? `listed in toolSearch.alwaysLoad ("${listed.pattern}")` : undefined;
      view.tools.push({ name: t.name, deferred, tokens: toolTokens(t), deferrable: true, ...(blocked ? { blocked } : {}) });
    }
    return view;
  }

  /** toolSearch.usage.policy "apply": the plan for this build from a usage snapshot (blocked suggestions are left out). */
  planUsage(tools: readonly Tool[], snap: UsageSnapshot | undefined): void {
    this.usagePlan = undefined;
    if (!snap || this.settings.usage.policy !== "apply" || this.settings.mode === "off") return;
    const view = this.poolView(tools, (t) => !this.alwaysLoad(t) && this.policy(t)?.defer === true);
    const plan: UsagePlan = { promote: new Map(), defer: new Map() };
    for (const x of suggest(snap, view, this.settings.usage).suggestions) if (!x.blocked) (x.action === "always-load" ? plan.promote : plan.defer).set(x.tool, x.reason);
    this.usagePlan = plan;
  }

  /** auto mode: measure the deferrable definitions of the whole (sorted) pool once per build. */
  measure(tools: readonly Tool[]): void {
    if (this.settings.mode !== "auto") return;
    let tokens = 0;
    for (const t of tools) if (!this.alwaysLoad(t) && this.isDeferrable(t)) tokens += toolTokens(t);
    const threshold = (this.settings.percent / 100) * this.settings.contextTokens;
    this.auto = { tokens, threshold, defer: tokens > threshold };
  }
}
