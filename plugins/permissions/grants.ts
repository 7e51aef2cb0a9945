/**
 * Grants and their limits. A plugin from outside toolhost may restrict anything, but what it grants —
 * allow rules in its manifest, a PreToolUse hook's `allow` — reaches only its own tools, unless the
 * user's own configuration grants it more: `pluginTrust: { "<plugin>": "grant" | { "allow": [rules] } }`
 * in a toolhost config the user named (createHost({config}), --config FILE) or in TOOLHOST_HOME/trust.json
 * (`plugins`). A config found in the project is the repository's: its pluginTrust is refused.
 * Session rules ("allow always") belong to the session that gave them.
 */
import fs from "node:fs";
import path from "node:path";
import type { BuildView, CallState, LoadedPlugin, PluginContext, PoolSnapshot, PreToolUseContext, ProblemReport, Tool } from "../../core/index.ts";
import { TRACE } from "../../core/index.ts";
import { isOutsidePlugin, matcherMayMatch } from "../../lib/approval.ts";
import { handlersOf } from "../../lib/hook-scripts.ts";
import { where, type PluginGrant, type RuleEntry, type RuleSet } from "./rules.ts";

const PLUGIN = "permissions";

export const PLUGIN_TRUST_SCHEMA = {
  type: "object",
  additionalProperties: {
    oneOf: [{ const: "grant" }, { type: "object", properties: { allow: { type: "array", items: { type: "string" } } }, required: ["allow"], additionalProperties: false }],
  },
};

function normal(v: unknown): PluginGrant | undefined {
  if (v === "grant") return v;
  if (v && typeof v === "object" && Array.isArray((v as { allow?: unknown }).allow)) return { allow: (v as { allow: unknown[] }).allow.filter((x): x is string => typeof x === "string") };
  return undefined;
}

/** The user's grants for this build, and a warning when a project-found config tries to grant. */
export function userGrants(ctx: PluginContext, build: BuildView, problems: ProblemReport[]): (id: string) => PluginGrant | undefined {
  const opts = ctx.host.options as { config?: { pluginTrust?: Record<string, unknown> }; configFile?: string };
  const merged = (build.config as { pluginTrust?: Record<string, unknown> }).pluginTrust;
  const mine = opts.configFile ? merged : opts.config?.pluginTrust;
  if (merged && !opts.configFile && merged !== opts.config?.pluginTrust) {
    problems.push({ plugin: "permissions", path: "/pluginTrust", message: "pluginTrust in a toolhost config found in the project is refused (a repository may not grant its own plugins more); put it in a config you name with --config, createHost({config}) or TOOLHOST_HOME/trust.json", severity: "warning" });
  }
  const svc = ctx.host.service<{ pluginGrant(id: string): PluginGrant | undefined }>("workspace.trust");
  return (id) => normal(mine?.[id]) ?? svc?.pluginGrant(id);
}

/** Does a rule name this tool (by name, alias, `mcp__server__*` or a name glob)? */
export function namesTool(e: RuleEntry, tool: Tool): boolean {
  const r = e.rule;
  if (r.mcpServer !== undefined) return tool.name.startsWith(`mcp__${r.mcpServer}__`);
  if (r.toolRe) return r.toolRe.test(tool.name);
  return r.tool === tool.name || !!tool.aliases?.includes(r.tool);
}

/** check / tools --json: every plugin allow rule that names none of the plugin's own tools is refused, and says so. */
export function refusedGrants(rs: RuleSet, pool: PoolSnapshot): ProblemReport[] {
  const all = [...pool.byName.values()];
  const out: ProblemReport[] = [];
  for (const e of rs.allow) {
    if (!e.scope) continue;
    const own = all.filter((t) => t.plugin === e.scope);
    if (own.some((t) => namesTool(e, t))) continue;
    out.push({
      plugin: e.plugin,
      file: e.file,
      path: e.jsonPath,
      message: `allow rule "${e.source}" of plugin "${e.plugin}" is refused: a plugin may allow only its own tools (${own.map((t) => t.name).join(", ") || "it has none"}); to let it allow more, add pluginTrust: {"${e.plugin}": "grant"} (or {"allow": ["${e.source}"]}) to your own toolhost config (--config / createHost({config})) or TOOLHOST_HOME/trust.json`,
      severity: "warning",
    });
  }
  return out;
}

/** The rules one call sees: unscoped rules, its tool's plugin's own allow rules, and its session's rules. */
export function rulesForCalls(rs: RuleSet, session: RuleEntry[]): (call?: CallState) => RuleSet {
  let seen = -1;
  const cache = new Map<string, RuleSet>();
  let lastCall: CallState | undefined;
  let lastTool: unknown;
  let last: RuleSet = rs;
  const scoped = rs.allow.some((e) => e.scope);
  return (call) => {
    if (seen !== session.length) {
      seen = session.length;
      cache.clear();
      lastCall = undefined;
    }
    // no session rules and no plugin-scoped allow: every call sees the build's rules as they are
    if (!session.length && !scoped) return rs;
    // the four permission taps of one call ask in a row: answer them from the last lookup
    if (call && call === lastCall && call.tool === lastTool) return last;
    const sid = call?.sessionId;
    const owner = call?.tool?.plugin ?? "";
    const key = `${sid ?? ""}\0${owner}`;
    let v = cache.get(key);
    if (!v) {
      const mine = session.filter((e) => e.sessionId === undefined || (sid !== undefined && e.sessionId === sid));
      const pick = (b: RuleEntry["behavior"]) => mine.filter((e) => e.behavior === b);
      const allow = rs.allow.filter((e) => !e.scope || e.scope === owner);
      v = !mine.length && allow.length === rs.allow.length ? rs : { ...rs, deny: [...rs.deny, ...pick("deny")], ask: [...rs.ask, ...pick("ask")], allow: [...allow, ...pick("allow")] };
      cache.set(key, v);
    }
    if (call) (lastCall = call), (lastTool = call.tool), (last = v);
    return v;
  };
}

/** Where a hook's answer is written, for the refusal's message. */
export interface HookAt {
  event: string;
  file?: string;
  path?: string;
}

/**
 * May the hook of plugin `id` answer `allow` for `tool`? Only an outside plugin's hook is ever refused
 * (not the user's config or settings, not a bundled or in-process plugin), and only for a tool not its
 * own, unless the user's pluginTrust says "grant". Returns the refusal ("grant refused: …") or undefined.
 * A refused allow is dropped: the call goes on as if the hook had not answered (the rules, then an ask).
 */
export function hookAllowRefused(plugins: readonly LoadedPlugin[], grants: (id: string) => PluginGrant | undefined, id: string, tool: Tool, at: HookAt): string | undefined {
  if (mayGrant(plugins, grants, id, tool)) return undefined;
  const lp = plugins.find((p) => p.id === id)!;
  const file = at.file ?? lp.manifestFile ?? lp.root;
  return `grant refused: plugin "${id}" may not allow tool ${tool.name} (file ${file}${at.path ?? ""}): its ${at.event} hook answered allow, but a plugin's hook may allow only the plugin's own tools, so the call is decided as if it had not answered; to let it allow more, add pluginTrust: {"${id}": "grant"} to your own toolhost config (--config / createHost({config})) or TOOLHOST_HOME/trust.json`;
}

/**
 * May outside plugin `id` grant for `tool` at all (lib/approval.ts: could anything of it approve a call unasked)?
 * Its own tools, a "grant", or — for one allow rule of its manifest — that rule in its pluginTrust list.
 */
export function mayGrant(plugins: readonly LoadedPlugin[], grants: (id: string) => PluginGrant | undefined, id: string, tool: Tool, rule?: string): boolean {
  const lp = plugins.find((p) => p.id === id);
  if (!lp || !isOutsidePlugin(lp) || tool.plugin === id) return true;
  const g = grants(id);
  return g === "grant" || (rule !== undefined && !!g && g.allow.includes(rule));
}

/** A refused hook allow, on the call's trace (stage `grant.refused`) and as a note on its result. */
function traceRefusal(call: CallState, id: string, at: HookAt, message: string): void {
  call[TRACE].push({ stage: "grant.refused", plugin: PLUGIN, ms: 0, outcome: "refused", detail: { hookPlugin: id, event: at.event, file: at.file, jsonPath: at.path, message } });
  call.notes.push(`toolhost: ${message}`);
}

/** hookAllowRefused, traced: the command hooks' PermissionRequest path asks this for each allow (the permissions.grants service). */
export function refuseHookAllow(plugins: readonly LoadedPlugin[], grants: (id: string) => PluginGrant | undefined, call: CallState, id: string, at: HookAt): string | undefined {
  const tool = call.tool;
  const why = tool && hookAllowRefused(plugins, grants, id, tool, at);
  if (why) traceRefusal(call, id, at, why);
  return why || undefined;
}

/**
 * build.preToolUse, after the command hooks: a PreToolUse `allow` from an outside plugin's hook counts
 * only for that plugin's own tools (unless granted); a refused one is dropped and traced, so the call
 * falls back to the rules (usually an ask). deny / ask / defer from any hook always count.
 */
export function refuseForeignHookAllows(pre: PreToolUseContext, plugins: readonly LoadedPlugin[], grants: (id: string) => PluginGrant | undefined): void {
  const tool = pre.call.tool;
  if (!tool) return;
  for (let i = pre.decisions.length - 1; i >= 0; i--) {
    const d = pre.decisions[i]!;
    if (d.decision !== "allow") continue;
    const id = d.source.split(": ")[0]!;
    // the hook's own trace entry says where it is written
    const entry = pre.call[TRACE].find((t) => t.stage === "hook.PreToolUse" && t.plugin === id && t.outcome === "allow");
    const detail = (entry?.detail ?? {}) as { file?: string; jsonPath?: string };
    const at = { event: "PreToolUse", file: detail.file, path: detail.jsonPath };
    const why = hookAllowRefused(plugins, grants, id, tool, at);
    if (!why) continue;
    (pre.decisions as Array<(typeof pre.decisions)[number]>).splice(i, 1);
    traceRefusal(pre.call, id, at, why);
  }
}

/** explain: an outside plugin's PreToolUse / PermissionRequest hooks that may answer for `tool`, and whether an allow of theirs would count. */
export function hookGrantsFor(plugins: readonly LoadedPlugin[], grants: (id: string) => PluginGrant | undefined, tool: Tool): Array<{ rule: string; plugin: string; file: string | null; path: string; applies: string }> {
  const out = [];
  for (const lp of plugins) {
    if (!isOutsidePlugin(lp)) continue;
    for (const c of lp.components.hooks) {
      for (const h of handlersOf(c.value as Record<string, unknown>, c.jsonPath || "/")) {
        if ((h.event !== "PreToolUse" && h.event !== "PermissionRequest") || !matcherMayMatch(h.matcher, tool.name)) continue;
        const at = { event: h.event, file: c.file, path: h.path };
        const why = hookAllowRefused(plugins, grants, lp.id, tool, at);
        const applies = why ? `refused: plugin "${lp.id}" may not allow tool ${tool.name}; an allow from this hook is dropped and the call asks as usual` : tool.plugin === lp.id ? `yes (plugin "${lp.id}"'s own tool)` : `yes (pluginTrust grants plugin "${lp.id}")`;
        out.push({ rule: `${h.event} hook${h.matcher ? ` (matcher "${h.matcher}")` : ""}: allow`, plugin: lp.id, file: c.file, path: h.path, applies });
      }
    }
  }
  return out;
}

/** explain: the allow rules that name a tool, where each came from, and whether it applies. */
export function grantsFor(rs: RuleSet, session: readonly RuleEntry[], tool: Tool): Array<{ rule: string; plugin: string; file: string | null; path: string; applies: string }> {
  const out = [];
  for (const e of [...rs.allow, ...session.filter((s) => s.behavior === "allow")]) {
    if (!namesTool(e, tool) && !(e.rule.kind !== "tool" && e.rule.tool === tool.name)) continue;
    const applies = e.sessionId ? `only in session ${e.sessionId}` : e.scope ? (e.scope === tool.plugin ? `yes (plugin "${e.scope}"'s own tool)` : `refused: plugin "${e.scope}" may allow only its own tools`) : `yes (${where(e)})`;
    out.push({ rule: e.source, plugin: e.plugin, file: e.file ?? null, path: e.jsonPath, applies });
  }
  return out;
}

/**
 * A toolhost config found in the project (not named with --config, not createHost's inline config) is the
 * repository's: in an untrusted workspace its allow rules and additionalDirectories are withheld, as
 * .claude/settings.json's are (the claude-settings plugin). Returns the filter and reports what it withheld.
 */
const SAID = new WeakMap<PluginContext, Set<string>>();

export function projectConfigGate(ctx: PluginContext, plugins: readonly LoadedPlugin[], problems: ProblemReport[]): (lp: LoadedPlugin, text: unknown) => boolean {
  const opts = ctx.host.options as { configFile?: string; config?: { permissions?: { allow?: unknown[] } }; trustWorkspace?: unknown };
  // the config file's source (createHost's inline config is a source of its own, without a manifestFile)
  const cfg = plugins.find((p) => p.id === "config" && p.kind === "config" && !!p.manifestFile);
  const file = cfg?.manifestFile;
  if (!cfg || opts.configFile || !file || !fs.existsSync(file) || path.relative(ctx.host.cwd, file).startsWith("..")) return () => false;
  const svc = ctx.host.service<{ state(): { trusted: boolean; by: string } }>("workspace.trust");
  const state = svc?.state() ?? { trusted: opts.trustWorkspace === true, by: "the trust plugin is not active" };
  if (state.trusted) return () => false;
  const v = cfg.components.permissions?.value;
  const held = v?.allow ?? [];
  if (held.length || v?.additionalDirectories !== undefined) {
    const what = [held.length ? `${held.length} allow rule${held.length > 1 ? "s" : ""} (${held.slice(0, 3).map((t) => JSON.stringify(t)).join(", ")}${held.length > 3 ? ", …" : ""})` : "", v?.additionalDirectories !== undefined ? "permissions.additionalDirectories" : ""].filter(Boolean).join(" and ");
    const message = `workspace ${ctx.host.cwd} is not trusted (${state.by}); not applied: ${what} of the toolhost config found in the project. Trust it with \`toolhost trust ${ctx.host.cwd}\`, or name your own config with --config`;
    problems.push({ plugin: "trust", file, path: cfg.components.permissions?.jsonPath ?? "/permissions", message, severity: "warning" });
    // said once per host on stderr, as the claude-settings plugin does for the settings files
    const said = SAID.get(ctx) ?? new Set<string>();
    SAID.set(ctx, said);
    if (!said.has(message)) said.add(message), ctx.host.log.warn(`toolhost: ${message}`);
  }
  return (lp) => lp === cfg;
}
