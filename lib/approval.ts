/**
 * Can a tool ever run without a person saying yes? Used to hide tools that cannot run: in `dontAsk`
 * mode (every call that is not pre-approved is refused) and from `toolhost serve` clients that cannot
 * be asked (no MCP elicitation). Conservative: it answers "always needs approval" only when nothing in
 * the configuration could approve a call unasked — no allow rule names the tool, no mode approves it,
 * the tool is not read-only and has no permission check of its own, no hook could answer for it, and no
 * plugin runs permission code of its own in-process.
 */
import type { LoadedPlugin, Tool } from "../core/types.ts";
import { EDIT_TOOLS, TOOL_ALIASES } from "./tool-names.ts";
import { BASH_TOOLS, STDIN_TOOLS } from "./rules/rule.ts";

export interface ApprovalContext {
  plugins: readonly LoadedPlugin[];
  mode: string;
  /** Asks reach PermissionRequest/PreToolUse hooks (default mode, serve); in dontAsk a call is refused before them. */
  hooksAnswer: boolean;
  /**
   * May outside plugin `id` grant for `tool` — its own tool, or the user's pluginTrust (with `rule`: may that allow
   * rule of its manifest apply)? The permissions plugin's answer; absent, every plugin's grant counts (conservative).
   */
  mayGrant?: (id: string, tool: Tool, rule?: string) => boolean;
}

/** What the plugins of one generation could approve, read once (per Build) instead of per tool. */
interface Approvers {
  /** Some plugin runs code of its own in-process (an inline plugin, a plugin directory's main module). */
  inProcess: boolean;
  allows: Array<{ rule: string } & Grantor>;
  hooks: Array<{ events: Record<string, unknown[]> } & Grantor>;
}
/** Who wrote an allow rule or a hook: an outside plugin's grants reach only its own tools unless the user grants it more. */
interface Grantor {
  plugin: string;
  outside: boolean;
}
/** A plugin from outside toolhost (npm, a directory): its grants reach only its own tools unless the user grants it more. */
export function isOutsidePlugin(lp: LoadedPlugin): boolean {
  return lp.kind === "plugin" && lp.source.kind !== "bundled";
}

const approversOf = new WeakMap<readonly LoadedPlugin[], Approvers>();

function approvers(plugins: readonly LoadedPlugin[]): Approvers {
  let a = approversOf.get(plugins);
  if (a) return a;
  a = { inProcess: false, allows: [], hooks: [] };
  for (const lp of plugins) {
    if (lp.kind === "inline" || (lp.source.kind !== "bundled" && lp.components.main)) a.inProcess = true;
    const by = { plugin: lp.id, outside: isOutsidePlugin(lp) };
    for (const r of lp.components.permissions?.value.allow ?? []) if (typeof r === "string") a.allows.push({ rule: r, ...by });
    for (const h of lp.components.hooks) a.hooks.push({ events: h.value, ...by });
  }
  approversOf.set(plugins, a);
  return a;
}

/** The permissions plugin's mayGrant for one generation (`build`; the latest when absent), if it is active. */
export function grantCheck(host: { service<T>(name: string): T | undefined }, build?: object): ApprovalContext["mayGrant"] {
  const svc = host.service<{ mayGrant?(build: object | undefined, id: string, tool: Tool, rule?: string): boolean }>("permissions.grants");
  return svc?.mayGrant ? (id, tool, rule) => svc.mayGrant!(build, id, tool, rule) : undefined;
}

/** Why every call of `tool` needs approval, or undefined when some call may run unasked. */
export function alwaysNeedsApproval(tool: Tool, c: ApprovalContext): string | undefined {
  if (c.mode === "bypassPermissions") return undefined;
  const edit = EDIT_TOOLS.has(tool.name) && tool.origin === "builtin";
  if (edit && c.mode === "acceptEdits") return undefined;
  if (typeof tool.isReadOnly === "function" || tool.isReadOnly === true) return undefined;
  if (BASH_TOOLS.has(tool.name)) return undefined; // a shell: read-only commands are approved per call
  if (tool.checkPermissions && !edit) return undefined; // its own check may approve (the built-in edit tools' approve only in acceptEdits)
  const a = approvers(c.plugins);
  if (a.inProcess) return undefined; // plugin code may approve in-process
  const counts = (g: Grantor, rule?: string) => !g.outside || !c.mayGrant || c.mayGrant(g.plugin, tool, rule);
  if (a.allows.some((r) => ruleNames(r.rule, tool.name) && counts(r, r.rule))) return undefined;
  if (c.hooksAnswer && a.hooks.some((h) => hookMatches(h.events, tool.name) && counts(h))) return undefined;
  return `no allow rule names ${tool.name}, it is not read-only, and no mode${c.hooksAnswer ? ", hook" : ""} or check of its own approves it: every call needs a person's approval`;
}

/** Could permission rule `rule` be about tool `name`? (Its tool part, an alias, the edit family, an MCP server or a glob.) */
export function ruleNames(rule: string, name: string): boolean {
  const raw = rule.trim().replace(/\(.*$/s, "").trim();
  const part = TOOL_ALIASES[raw] ?? raw;
  if (part === name || part === "*") return true;
  if (EDIT_TOOLS.has(name) && EDIT_TOOLS.has(part)) return true;
  if (STDIN_TOOLS.has(name) && BASH_TOOLS.has(part)) return true; // conservative: a shell rule may be about what is typed
  if (part.endsWith("*")) return name.startsWith(part.slice(0, -1));
  return name.startsWith("mcp__") && name.startsWith(`${part}__`);
}

function hookMatches(events: Record<string, unknown[]>, name: string): boolean {
  for (const ev of ["PreToolUse", "PermissionRequest"]) {
    for (const g of events?.[ev] ?? []) {
      if (matcherMayMatch((g as { matcher?: unknown })?.matcher, name)) return true;
    }
  }
  return false;
}

/** Could a hook group's `matcher` match tool `name`? Conservative: an absent, wildcard or unreadable matcher may. */
export function matcherMayMatch(m: unknown, name: string): boolean {
  if (m === undefined || m === "" || m === "*" || typeof m !== "string") return true;
  try {
    return new RegExp(`^(?:${m})$`).test(name) || m.split(/[|,]/).map((s) => s.trim()).includes(name);
  } catch {
    return true;
  }
}
