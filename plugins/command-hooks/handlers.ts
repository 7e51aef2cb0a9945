/**
 * Turning every loaded plugin's `components.hooks` into a flat, ordered list of command handlers
 * per event, compiled once per Build: matchers become predicates, identical handlers from settings
 * sources collapse into one, and each handler keeps its provenance (plugin, file, JSON path).
 */
import fs from "node:fs";
import path from "node:path";
import type { LoadedPlugin, ProblemReport } from "../../core/index.ts";
import { TOOL_ALIASES } from "../../lib/tool-names.ts";
import { layerRank } from "../../lib/settings-layers.ts";
import { RUN_EVENTS, runsText } from "./events-table.ts";

export interface Handler {
  event: string;
  /** Declaration index across all sources (composition order). */
  index: number;
  plugin: string;
  pluginKind: LoadedPlugin["kind"];
  file: string;
  /** JSON path of the handler, e.g. "/hooks/PreToolUse/0/hooks/1". */
  jsonPath: string;
  matcher?: string;
  matches: (toolName: string) => boolean;
  if?: string;
  rulesRoot: string;
  /**
   * "command" (a process), "http" (a POST of the same JSON to `command`, which holds the URL) or
   * "mcp_tool" (a call of `tool` on MCP server `server` — `command` holds "server/tool" for labels).
   */
  type: "command" | "http" | "mcp_tool";
  /** mcp_tool: the server as configured (`name`, or `plugin:<plugin>:<server>`) and the tool's own name. */
  server?: string;
  tool?: string;
  /** mcp_tool: the tool's arguments; string values may hold `${tool_input.file_path}`-style paths into the hook input. */
  input?: Record<string, unknown>;
  /** The command line, or the URL for http hooks. */
  command: string;
  args?: string[];
  /** http: request headers; `$VAR` / `${VAR}` expand only for names in allowedEnvVars (others → ""). */
  headers?: Record<string, string>;
  allowedEnvVars: string[];
  /** Seconds. */
  timeout: number;
  onFailure: "continue" | "block";
  /** Variables exported to the process (CLAUDE_PROJECT_DIR, CLAUDE_PLUGIN_ROOT …). */
  env: Record<string, string>;
  statusMessage?: string;
  /** `async: true`: runs in the background; only additionalContext/systemMessage count, delivered with the session's next call. */
  async: boolean;
  /** Other declarations this one stands for (identical settings handlers run once). */
  duplicates: string[];
  /** `"shell": "powershell"`: run with pwsh (or powershell) from PATH; any other value runs `sh -c`, as Claude Code's "bash" does on Linux (recorded). */
  shell?: "powershell";
}

const pwshCache = new Map<string, string | null>();
/** pwsh, else powershell, on PATH (cached per PATH), or null: Claude Code's lookup for `"shell": "powershell"`. */
export function findPowerShell(envPath = process.env.PATH ?? ""): string | null {
  let hit = pwshCache.get(envPath);
  if (hit !== undefined) return hit;
  hit = null;
  for (const name of ["pwsh", "powershell"]) {
    for (const d of envPath.split(":").filter(Boolean)) {
      try {
        fs.accessSync(path.join(d, name), fs.constants.X_OK);
        hit = path.join(d, name);
      } catch {}
      if (hit) break;
    }
    if (hit) break;
  }
  pwshCache.set(envPath, hit);
  return hit;
}

/** Why a `"shell": "powershell"` hook cannot run here (Claude Code's words, naming the hook), or undefined. */
export function noPowerShell(h: Pick<Handler, "shell" | "plugin" | "file" | "jsonPath">, envPath?: string): string | undefined {
  if (h.shell !== "powershell" || findPowerShell(envPath)) return undefined;
  return `hook (${h.plugin} ${h.file}${h.jsonPath}) has shell: 'powershell' but no PowerShell executable (pwsh or powershell) was found on PATH. Install PowerShell, or remove "shell": "powershell" to run it with sh.`;
}

/** Events whose matcher filters on the tool name and where `if` rules apply. */
export const TOOL_EVENTS = new Set(["PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied"]);
/** Events something in toolhost fires (events-table.ts); handlers of the others are reported as not run. */
export const SUPPORTED_EVENTS = [...RUN_EVENTS];
export const DEFAULT_TIMEOUT_S = 600;

/**
 * Source order = composition order: the toolhost config, then Claude Code's settings layers from the
 * lowest precedence to the highest (user, project, local, --settings, managed: lib/settings-layers.ts, so a
 * rewrite conflict goes to the stronger layer), then plugins in load order (manifest `order`, then id).
 * Within a source: file order, event groups, handlers, as written.
 */
export function orderSources(plugins: readonly LoadedPlugin[]): LoadedPlugin[] {
  return plugins.map((p, i) => ({ p, i })).sort((a, b) => layerRank(a.p.id) - layerRank(b.p.id) || a.i - b.i).map((x) => x.p);
}

/** Claude Code matcher semantics (formats §3.3). */
export function compileMatcher(matcher: string | undefined): { test: (name: string) => boolean; error?: string } {
  if (matcher === undefined || matcher === "" || matcher === "*") return { test: () => true };
  if (/^[A-Za-z0-9_ ,|-]+$/.test(matcher)) {
    const names = new Set(matcher.split(/[|,]/).map((s) => s.trim()).filter(Boolean));
    for (const n of [...names]) if (TOOL_ALIASES[n]) names.add(TOOL_ALIASES[n]!); // legacy names (SDK LEGACY_TOOL_NAME_ALIASES)
    return { test: (n) => names.has(n) };
  }
  try {
    const re = new RegExp(matcher);
    return { test: (n) => re.test(n) };
  } catch (e) {
    return { test: () => false, error: `matcher "${matcher}" is not a valid regular expression: ${(e as Error).message}` };
  }
}

type Problem = Omit<ProblemReport, "plugin" | "file">;

/** Why a raw handler entry cannot run (it is then ignored), or a warning it runs with. */
function checkHandler(h: Record<string, unknown>, jsonPath: string): Problem | undefined {
  if (h.type !== "command" && h.type !== "http" && h.type !== "mcp_tool") {
    return {
      path: `${jsonPath}/type`,
      message: `hook type "${String(h.type)}" is not supported by toolhost (only "command", "http" and "mcp_tool"; "prompt" and "agent" need a model); this handler is ignored`,
      severity: "warning",
    };
  }
  if (h.type === "mcp_tool") {
    for (const k of ["server", "tool"] as const) {
      if (typeof h[k] !== "string" || !h[k]) return { path: `${jsonPath}/${k}`, message: `mcp_tool hook needs a non-empty "${k}"; this handler is ignored`, severity: "error" };
    }
    if (h.input !== undefined && (typeof h.input !== "object" || h.input === null || Array.isArray(h.input))) {
      return { path: `${jsonPath}/input`, message: `mcp_tool hook "input" must be an object of the tool's arguments; this handler is ignored`, severity: "error" };
    }
    return undefined;
  }
  const key = h.type === "http" ? "url" : "command";
  if (typeof h[key] !== "string" || !h[key]) return { path: `${jsonPath}/${key}`, message: `${h.type} hook needs a non-empty "${key}"; this handler is ignored`, severity: "error" };
  return undefined;
}

function toHandler(h: Record<string, unknown>, at: { event: string; index: number; lp: LoadedPlugin; file: string; jsonPath: string; matcher?: string; matches: (n: string) => boolean }): Handler {
  const mcp = h.type === "mcp_tool";
  return {
    event: at.event,
    index: at.index,
    plugin: at.lp.id,
    pluginKind: at.lp.kind,
    file: at.file,
    jsonPath: at.jsonPath,
    matcher: at.matcher,
    matches: at.matches,
    if: typeof h.if === "string" && h.if ? h.if : undefined,
    rulesRoot: at.lp.rulesRoot,
    type: h.type as Handler["type"],
    command: mcp ? `${String(h.server)}/${String(h.tool)}` : String(h[h.type === "http" ? "url" : "command"]),
    server: mcp ? String(h.server) : undefined,
    tool: mcp ? String(h.tool) : undefined,
    input: mcp ? ((h.input as Record<string, unknown> | undefined) ?? {}) : undefined,
    headers: h.type === "http" && h.headers && typeof h.headers === "object" ? (h.headers as Record<string, string>) : undefined,
    allowedEnvVars: Array.isArray(h.allowedEnvVars) ? h.allowedEnvVars.map(String) : [],
    args: Array.isArray(h.args) ? h.args.map(String) : undefined,
    timeout: typeof h.timeout === "number" && h.timeout > 0 ? h.timeout : DEFAULT_TIMEOUT_S,
    onFailure: h.onFailure === "block" ? "block" : "continue",
    env: at.lp.env,
    statusMessage: typeof h.statusMessage === "string" ? h.statusMessage : undefined,
    async: h.async === true || h.asyncRewake === true,
    duplicates: [],
    ...(h.type === "command" && h.shell === "powershell" ? { shell: "powershell" as const } : {}),
  };
}

/** Every handler of the supported events, in composition order; identical settings handlers once. */
export function collectHandlers(plugins: readonly LoadedPlugin[], problems: ProblemReport[]): Map<string, Handler[]> {
  const out = new Map<string, Handler[]>();
  const seen = new Map<string, Handler>();
  let index = 0;
  for (const lp of orderSources(plugins)) {
    for (const comp of lp.components.hooks) {
      const report = (p: Problem) => problems.push({ plugin: lp.id, file: comp.file, ...p });
      for (const [event, groups] of Object.entries(comp.value)) {
        if (!RUN_EVENTS.has(event)) {
          const n = (groups as Array<{ hooks?: unknown[] }>).reduce((k, g) => k + (g.hooks?.length ?? 0), 0);
          if (n) report({ path: `${comp.jsonPath === "/" ? "" : comp.jsonPath}/${event}`, message: `${n} ${event} hook${n > 1 ? "s are" : " is"} ${runsText(event)}; ${n > 1 ? "they never fire" : "it never fires"} in toolhost`, severity: "warning" });
          continue;
        }
        (groups as Array<{ matcher?: string; hooks?: unknown[] }>).forEach((group, gi) => {
          const base = `${comp.jsonPath === "/" ? "" : comp.jsonPath}/${event}/${gi}`;
          const m = compileMatcher(group.matcher);
          if (m.error) report({ path: `${base}/matcher`, message: `${m.error}; this group never fires`, severity: "warning" });
          (group.hooks ?? []).forEach((raw, hi) => {
            const h = raw as Record<string, unknown>;
            const jsonPath = `${base}/hooks/${hi}`;
            const problem = checkHandler(h, jsonPath);
            if (problem) return void report(problem);
            if (h.asyncRewake === true) report({ path: `${jsonPath}/asyncRewake`, message: `asyncRewake is not supported; the handler runs as a plain async hook`, severity: "warning" });
            const handler = toHandler(h, { event, index: index++, lp, file: comp.file, jsonPath, matcher: group.matcher, matches: m.test });
            const noPwsh = noPowerShell(handler);
            if (noPwsh) report({ path: `${jsonPath}/shell`, message: `${noPwsh} It fails (non-blocking) each time it fires, as in Claude Code`, severity: "warning" });
            // Identical handlers from settings files run once; a plugin's copy stays separate (formats §3.1).
            if (lp.kind === "settings" || lp.kind === "config") {
              const dedupKey = JSON.stringify([event, handler.type, handler.command, handler.args ?? null, handler.matcher ?? "", handler.if ?? ""]);
              const first = seen.get(dedupKey);
              if (first) return void first.duplicates.push(`${lp.id} ${comp.file}${jsonPath}`);
              seen.set(dedupKey, handler);
            }
            let list = out.get(event);
            if (!list) out.set(event, (list = []));
            list.push(handler);
          });
        });
      }
    }
  }
  return out;
}

/** A short label for traces and messages. */
export function label(h: Handler): string {
  const cmd = h.args ? [h.command, ...h.args].join(" ") : h.command;
  return cmd.length > 80 ? cmd.slice(0, 77) + "…" : cmd;
}
