/**
 * What an untrusted workspace may apply of the repository's Claude Code files: everything that
 * restricts (deny, ask, a mode that is not an escalation, disableBypassPermissionsMode) at once;
 * everything that grants (allow rules, additionalDirectories, hooks, `.mcp.json` servers) only once
 * trusted — and each `.mcp.json` server only once approved (enabledMcpjsonServers / disabledMcpjsonServers /
 * enableAllProjectMcpServers, as Claude Code; `toolhost trust` approves the servers present when it runs).
 */
import type { PluginContext, SettingsCollector } from "../../core/index.ts";
import type { LayerId } from "./layers.ts";

export interface McpApprovals {
  all?: boolean;
  enabled?: string[];
  disabled?: string[];
}
/** The trust plugin's TrustState, as far as this plugin reads it. */
export interface TrustView {
  trusted: boolean;
  by: string;
  mcp: McpApprovals;
  problems?: string[];
}
interface TrustService {
  state(): TrustView;
  confirm(withheld: string[], mcpServers: string[]): Promise<TrustView>;
}

export interface FoundSettings {
  /** The layer (layers.ts): managed, flag, local, project or user. */
  id: LayerId;
  file: string;
  value: Record<string, unknown>;
  precedence: number;
  checkedIn: boolean;
  /** Came with the repository (settings.json, or a settings.local.json git tracks); the other layers are the user's or the admin's. */
  project: boolean;
}
export interface Found {
  settings: FoundSettings[];
  mcp?: { file: string; servers: Record<string, unknown> };
}
export interface Gated {
  settings: Array<FoundSettings & { permissions: unknown; hooks: unknown }>;
  mcpServers: Record<string, unknown>;
  withheld: string[];
}

const GRANTS = ["allow", "additionalDirectories"] as const;

function rel(file: string): string {
  const m = /(\.claude[\\/][^\\/]+|\.mcp\.json)$/.exec(file);
  return m ? m[1] : file;
}

function obj(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** The user's own approvals of `.mcp.json` servers in a settings.local.json that is theirs. */
function localApprovals(found: Found): McpApprovals {
  const own = found.settings.find((s) => s.id === "settings:local" && !s.project)?.value ?? {};
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : undefined);
  return { all: own.enableAllProjectMcpServers === true, enabled: list(own.enabledMcpjsonServers), disabled: list(own.disabledMcpjsonServers) };
}

function approved(state: TrustView, local: McpApprovals, name: string): boolean {
  if (!state.trusted) return false;
  if (state.mcp.disabled?.includes(name) || local.disabled?.includes(name)) return false;
  return state.mcp.all === true || local.all === true || !!state.mcp.enabled?.includes(name) || !!local.enabled?.includes(name);
}

function hookEvents(h: unknown): string[] {
  const o = obj(h);
  const inner = o && obj(o.hooks) ? obj(o.hooks)! : o;
  return inner ? Object.keys(inner) : [];
}

export function gate(found: Found, state: TrustView): Gated {
  const out: Gated = { settings: [], mcpServers: {}, withheld: [] };
  for (const s of found.settings) {
    const perms = obj(s.value.permissions);
    if (state.trusted || !s.project) {
      out.settings.push({ ...s, permissions: s.value.permissions, hooks: s.value.hooks });
      continue;
    }
    const kept = perms ? Object.fromEntries(Object.entries(perms).filter(([k]) => !(GRANTS as readonly string[]).includes(k))) : s.value.permissions;
    const allow = Array.isArray(perms?.allow) ? (perms!.allow as unknown[]) : [];
    if (allow.length) out.withheld.push(`${allow.length} allow rule${allow.length > 1 ? "s" : ""} from ${rel(s.file)} (${allow.slice(0, 3).map((r) => JSON.stringify(r)).join(", ")}${allow.length > 3 ? ", …" : ""})`);
    if (perms?.additionalDirectories !== undefined) out.withheld.push(`permissions.additionalDirectories from ${rel(s.file)}`);
    const events = hookEvents(s.value.hooks);
    if (events.length) out.withheld.push(`hooks (${events.join(", ")}) from ${rel(s.file)}`);
    out.settings.push({ ...s, permissions: kept, hooks: undefined });
  }
  const local = localApprovals(found);
  for (const [name, cfg] of Object.entries(found.mcp?.servers ?? {})) {
    if (approved(state, local, name)) out.mcpServers[name] = cfg;
    else out.withheld.push(`.mcp.json server "${name}"${state.trusted ? " (not approved: run `toolhost trust` again, or list it in enabledMcpjsonServers of .claude/settings.local.json)" : ""}`);
  }
  return out;
}

/** The workspace's trust, asking on a terminal when an untrusted workspace would withhold something. */
export async function trustOf(ctx: PluginContext, found: Found): Promise<TrustView> {
  const svc = ctx.host.service<TrustService>("workspace.trust");
  const opt = ctx.host.options.trustWorkspace;
  // Without the trust plugin, fail closed: only an embedding program's explicit declaration trusts.
  const state: TrustView = svc?.state() ?? { trusted: opt === true, by: opt === true ? "createHost option trustWorkspace: true" : "the trust plugin is not active", mcp: opt === true ? { all: true } : {} };
  if (state.trusted || !svc) return state;
  const g = gate(found, state);
  if (!g.withheld.length) return state;
  return svc.confirm(g.withheld, Object.keys(found.mcp?.servers ?? {}));
}

/** One warning per generation (a problem) and one stderr line per host for each new message. */
export function sayWithheld(ctx: PluginContext, c: SettingsCollector, state: TrustView, withheld: string[], said: Set<string>): void {
  for (const p of state.problems ?? []) c.problem({ plugin: "trust", message: p, severity: "warning" });
  if (!withheld.length) return;
  const message = state.trusted
    ? `not applied in ${c.cwd}: ${withheld.join("; ")}`
    : `workspace ${c.cwd} is not trusted (${state.by}); not applied: ${withheld.join("; ")}. Deny and ask rules apply. Trust it with \`toolhost trust ${c.cwd}\` (or accept Claude Code's trust dialog there; an embedding program passes createHost({ trustWorkspace: true }))`;
  c.problem({ plugin: "trust", file: c.cwd, path: "/", message, severity: "warning" });
  if (said.has(message)) return;
  said.add(message);
  ctx.host.log.warn(`toolhost: ${message}`);
}
