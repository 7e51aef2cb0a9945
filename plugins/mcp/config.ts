/**
 * Server configuration: every loaded plugin's `components.mcpServers` (toolhost config, `.mcp.json`,
 * plugin manifests / plugin `.mcp.json`) resolved into ServerSpecs with provenance (file + JSON path),
 * `${VAR}` / `${VAR:-default}` expanded, validated, and keyed by a hash of the resolved config so an
 * unchanged server keeps its connection across rebuilds.
 */
import path from "node:path";
import { createHash } from "node:crypto";
import type { LoadedPlugin, ProblemReport } from "../../core/index.ts";
import { stableStringify } from "../../core/index.ts";
import { serverSegment } from "./names.ts";

export type TransportKind = "stdio" | "http" | "sse";

export interface ServerSpec {
  /** Server name as configured. */
  name: string;
  /** Name segment for tools (`memory`, `plugin_<plugin>_<server>`). */
  segment: string;
  /** Human label: `memory` or `plugin:<plugin>:<server>`. */
  label: string;
  plugin: string;
  pluginKind: LoadedPlugin["kind"];
  file: string;
  jsonPath: string;
  transport: TransportKind;
  command?: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  url?: string;
  headers: Record<string, string>;
  /** Command printing a JSON object of headers, merged over `headers` at each connect (http/sse; headers-helper.ts). */
  headersHelper?: string;
  /** toolhost extension: how long the headersHelper may run (ms; default 10 000). */
  headersHelperTimeoutMs?: number;
  /** Where relative paths of this entry resolve: the plugin root, or the project directory. */
  baseDir: string;
  /** toolhost extension: only these tools (names or `*` globs of the server's own tool names). */
  include?: string[];
  /** toolhost extension: drop these tools. */
  exclude?: string[];
  /** Per-call timeout in ms (Claude Code `timeout`; values < 1000 are ignored like Claude Code does). */
  callTimeoutMs?: number;
  /** toolhost extension: startup timeout in ms (default MCP_TIMEOUT or 30 s). */
  startupTimeoutMs: number;
  alwaysLoad: boolean;
  /** Hash of everything that affects the connection. */
  key: string;
}

export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;

/** Keys toolhost understands in a server entry; others are ignored (Claude Code fields like oauth) with no error. */
const KNOWN_KEYS = new Set(["type", "command", "args", "env", "cwd", "url", "headers", "timeout", "alwaysLoad", "include", "exclude", "startupTimeout", "disabled", "headersHelper", "headersHelperTimeout", "oauth"]);

/** Expand `${VAR}` and `${VAR:-default}`; unset variables without a default stay literal and are reported. */
export function expandVars(value: string, env: NodeJS.ProcessEnv, missing: Set<string>): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (m, name: string, dflt: string | undefined) => {
    const v = env[name];
    if (v !== undefined && v !== "") return v;
    if (dflt !== undefined) return dflt;
    if (v === "") return "";
    missing.add(name);
    return m;
  });
}

function escapePointer(s: string): string {
  return s.replace(/~/g, "~0").replace(/\//g, "~1");
}

function startupDefault(env: NodeJS.ProcessEnv): number {
  const n = Number(env.MCP_TIMEOUT);
  return Number.isFinite(n) && n > 0 ? n : DEFAULT_STARTUP_TIMEOUT_MS;
}

/** Precedence when two settings sources define the same server name (one connection, whole entry wins). */
const KIND_RANK: Record<string, number> = { config: 0, inline: 1, settings: 2, mcpjson: 3 };

type Problem = (message: string, severity?: "error" | "warning", sub?: string) => void;

/** The transport an entry asks for, with its required fields checked; undefined (after a problem) skips it. */
function transportOf(c: Record<string, unknown>, problem: Problem): TransportKind | undefined {
  const type = typeof c.type === "string" ? c.type : c.command !== undefined ? "stdio" : c.url !== undefined ? "http" : undefined;
  let transport: TransportKind;
  if (type === "stdio" || type === "http" || type === "sse") transport = type;
  else if (type === "streamable-http" || type === "streamableHttp") transport = "http";
  else {
    problem(type === undefined ? `needs "command" (stdio) or "url" (http/sse)` : `transport type "${type}" is not supported (use stdio, http or sse)`, "error", type === undefined ? "" : "/type");
    return undefined;
  }
  if (transport === "stdio" && (typeof c.command !== "string" || !c.command)) return void problem(`"command" must be a non-empty string`, "error", "/command");
  if (transport !== "stdio" && (typeof c.url !== "string" || !c.url)) return void problem(`"url" must be a non-empty string`, "error", "/url");
  if (c.args !== undefined && (!Array.isArray(c.args) || c.args.some((a) => typeof a !== "string"))) return void problem(`"args" must be an array of strings`, "error", "/args");
  return transport;
}

/** `env` / `headers`: an object of strings, values with ${VAR} expanded; undefined (after a problem) skips the entry. */
function stringMap(c: Record<string, unknown>, key: "env" | "headers", problem: Problem, x: (v: string) => string): Record<string, string> | undefined {
  const v = c[key];
  if (v === undefined) return {};
  if (!v || typeof v !== "object" || Array.isArray(v)) {
    problem(`"${key}" must be an object of strings`, "error", `/${key}`);
    return undefined;
  }
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) out[k] = x(String(val));
  return out;
}

/** `include` / `exclude`: tool-name globs; false (after a problem) skips the entry. */
function nameList(c: Record<string, unknown>, key: "include" | "exclude", problem: Problem): string[] | undefined | false {
  const v = c[key];
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.some((s) => typeof s !== "string")) {
    problem(`"${key}" must be an array of tool names (globs with *)`, "error", `/${key}`);
    return false;
  }
  return v as string[];
}

/** Call and startup timeouts: the entry's, else MCP_TOOL_TIMEOUT / MCP_TIMEOUT, else the defaults. */
function timeoutsOf(c: Record<string, unknown>, env: NodeJS.ProcessEnv, problem: Problem): { callTimeoutMs?: number; startupTimeoutMs: number } {
  let callTimeoutMs: number | undefined;
  if (c.timeout !== undefined) {
    if (typeof c.timeout !== "number" || !(c.timeout > 0)) problem(`"timeout" must be a positive number of milliseconds`, "warning", "/timeout");
    else if (c.timeout < 1000) problem(`"timeout" ${c.timeout} ms is below 1000 ms and is ignored (Claude Code does the same); use milliseconds`, "warning", "/timeout");
    else callTimeoutMs = c.timeout;
  }
  if (callTimeoutMs === undefined) {
    const t = Number(env.MCP_TOOL_TIMEOUT);
    if (Number.isFinite(t) && t >= 1000) callTimeoutMs = t;
  }
  let startupTimeoutMs = startupDefault(env);
  if (c.startupTimeout !== undefined) {
    if (typeof c.startupTimeout !== "number" || !(c.startupTimeout > 0)) problem(`"startupTimeout" must be a positive number of milliseconds`, "warning", "/startupTimeout");
    else startupTimeoutMs = c.startupTimeout;
  }
  return { callTimeoutMs, startupTimeoutMs };
}

/** `headersHelper` (http/sse only) and its timeout; undefined (after a problem) skips the entry. */
function headersHelperOf(c: Record<string, unknown>, transport: TransportKind, problem: Problem, x: (v: string) => string): { headersHelper?: string; headersHelperTimeoutMs?: number } | undefined {
  let headersHelper: string | undefined;
  let headersHelperTimeoutMs: number | undefined;
  if (c.headersHelper !== undefined) {
    if (typeof c.headersHelper !== "string" || !c.headersHelper.trim()) {
      problem(`"headersHelper" must be a command (a non-empty string) that prints a JSON object of headers`, "error", "/headersHelper");
      return undefined;
    }
    if (transport === "stdio") problem(`"headersHelper" applies to http/sse servers only; ignored for a stdio server`, "warning", "/headersHelper");
    else headersHelper = x(c.headersHelper);
  }
  if (c.headersHelperTimeout !== undefined) {
    if (typeof c.headersHelperTimeout !== "number" || !(c.headersHelperTimeout > 0)) problem(`"headersHelperTimeout" must be a positive number of milliseconds`, "warning", "/headersHelperTimeout");
    else headersHelperTimeoutMs = c.headersHelperTimeout;
  }
  return { headersHelper, headersHelperTimeoutMs };
}

/** What identifies a running connection: a change here restarts the server, anything else is updated in place. */
function specKey(spec: ServerSpec, cwd: string): string {
  return createHash("sha256")
    .update(stableStringify({ s: spec.segment, t: spec.transport, c: spec.command, a: spec.args, e: spec.env, d: spec.cwd ?? cwd, u: spec.url, h: spec.headers, hh: spec.headersHelper, hd: spec.headersHelper ? spec.baseDir : undefined, st: spec.startupTimeoutMs }))
    .digest("hex")
    .slice(0, 16);
}

/** Where one server entry sits. */
interface EntryAt {
  lp: LoadedPlugin;
  file: ServerSpec["file"];
  jsonPath: string;
  name: string;
}

/** One server entry → its spec, or undefined when a problem (already reported) makes it unusable. */
function resolveEntry(at: EntryAt, raw: unknown, problem: Problem, opts: { cwd: string; env: NodeJS.ProcessEnv }): ServerSpec | undefined {
  const { lp, name } = at;
  const env = opts.env;
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return void problem("server config must be an object");
  const c = raw as Record<string, unknown>;
  if (c.disabled === true) return undefined;
  for (const k of Object.keys(c)) if (!KNOWN_KEYS.has(k)) problem(`unknown key "${k}" is ignored`, "warning", `/${escapePointer(k)}`);
  const isPluginServer = lp.kind === "plugin";
  const missing = new Set<string>();
  const x = (v: string) => expandVars(v, env, missing);
  const transport = transportOf(c, problem);
  if (!transport) return undefined;
  const envMap = stringMap(c, "env", problem, x);
  const headers = stringMap(c, "headers", problem, x);
  if (!envMap || !headers) return undefined;
  const include = nameList(c, "include", problem);
  const exclude = nameList(c, "exclude", problem);
  if (include === false || exclude === false) return undefined;
  const timeouts = timeoutsOf(c, env, problem);
  const helper = headersHelperOf(c, transport, problem, x);
  if (!helper) return undefined;
  const baseDir = isPluginServer ? lp.root : opts.cwd;
  const spec: ServerSpec = {
    name,
    segment: serverSegment(name, isPluginServer ? lp.id : undefined),
    label: isPluginServer ? `plugin:${lp.id}:${name}` : name,
    plugin: lp.id,
    pluginKind: lp.kind,
    file: at.file,
    jsonPath: at.jsonPath,
    transport,
    command: typeof c.command === "string" ? x(c.command) : undefined,
    args: ((c.args as string[] | undefined) ?? []).map(x),
    env: { ...(isPluginServer ? lp.env : {}), ...envMap },
    cwd: typeof c.cwd === "string" ? path.resolve(baseDir, x(c.cwd)) : undefined,
    url: typeof c.url === "string" ? x(c.url) : undefined,
    headers,
    headersHelper: helper.headersHelper,
    headersHelperTimeoutMs: helper.headersHelperTimeoutMs,
    baseDir,
    include,
    exclude,
    callTimeoutMs: timeouts.callTimeoutMs,
    startupTimeoutMs: timeouts.startupTimeoutMs,
    alwaysLoad: c.alwaysLoad === true,
    key: "",
  };
  if (missing.size) {
    problem(`environment variable${missing.size > 1 ? "s" : ""} ${[...missing].map((m) => "${" + m + "}").join(", ")} not set and no default given; kept literally`, "warning");
  }
  if (spec.url) {
    try {
      new URL(spec.url);
    } catch {
      return void problem(`"url" ${JSON.stringify(spec.url)} is not a valid URL`, "error", "/url");
    }
  }
  spec.key = specKey(spec, opts.cwd);
  return spec;
}

/**
 * Every loaded plugin's `mcpServers` entries → server specs, in precedence order (KIND_RANK; the first
 * definition of a name segment wins), with a problem for each entry that is wrong or ignored.
 */
export function resolveServers(
  plugins: readonly LoadedPlugin[],
  opts: { cwd: string; env?: NodeJS.ProcessEnv },
): { specs: ServerSpec[]; problems: ProblemReport[] } {
  const env = opts.env ?? process.env;
  const problems: ProblemReport[] = [];
  const specs: ServerSpec[] = [];
  const bySegment = new Map<string, ServerSpec>();
  // segments two plugins' servers both claim: neither is started, and later claims are ignored too
  const contested = new Set<string>();
  const ordered = [...plugins].sort((a, b) => (KIND_RANK[a.kind] ?? 9) - (KIND_RANK[b.kind] ?? 9));
  for (const lp of ordered) {
    for (const comp of lp.components.mcpServers) {
      for (const [name, raw] of Object.entries(comp.value ?? {})) {
        const jsonPath = `${comp.jsonPath === "/" ? "" : comp.jsonPath}/${escapePointer(name)}`;
        const problem: Problem = (message, severity = "error", sub = "") =>
          void problems.push({ plugin: lp.id, file: comp.file, path: jsonPath + sub, message: `MCP server "${name}": ${message}`, severity });
        const spec = resolveEntry({ lp, file: comp.file, jsonPath, name }, raw, problem, { cwd: opts.cwd, env });
        if (!spec) continue;
        const dup = bySegment.get(spec.segment);
        if (dup && (dup.pluginKind === "plugin" || spec.pluginKind === "plugin") && dup.plugin !== spec.plugin) {
          // A plugin's server owns mcp__plugin_<plugin>_<server>__*: no other source may take those names.
          const owner = ownerOf(dup, spec);
          for (const taker of owner ? [owner === dup ? spec : dup] : [dup, spec]) {
            const other = taker === dup ? spec : dup;
            problems.push({ plugin: taker.plugin, file: taker.file, path: taker.jsonPath, severity: "error", message: `MCP server "${taker.name}" (${source(taker)}, ${taker.file} ${taker.jsonPath}) is refused: its tool names mcp__${spec.segment}__* are those of ${owner ? "" : "another source's "}server "${other.name}" (${source(other)}, ${other.file} ${other.jsonPath})${owner ? ", and a plugin's server owns mcp__plugin_<plugin>_<server>__*" : "; two plugins' servers share the name, so neither is started"} — rename the server` });
          }
          const keep = owner ? [owner] : [];
          specs.splice(specs.indexOf(dup), 1, ...keep);
          if (owner) bySegment.set(spec.segment, owner);
          else contested.add(spec.segment);
          continue;
        }
        if (contested.has(spec.segment)) continue;
        if (dup) {
          problem(`also defined in ${dup.file} (${dup.jsonPath}), which takes precedence; this entry is ignored`, "warning");
          continue;
        }
        bySegment.set(spec.segment, spec);
        specs.push(spec);
      }
    }
  }
  return { specs, problems };
}

/** Of two servers with one name segment, the plugin server whose own name it is (the other is not a plugin's), or undefined. */
function ownerOf(a: ServerSpec, b: ServerSpec): ServerSpec | undefined {
  if (a.pluginKind === "plugin" && b.pluginKind !== "plugin") return a;
  if (b.pluginKind === "plugin" && a.pluginKind !== "plugin") return b;
  return undefined;
}

function source(s: ServerSpec): string {
  return s.pluginKind === "plugin" ? `plugin "${s.plugin}"` : s.pluginKind === "mcpjson" ? ".mcp.json" : `${s.pluginKind} "${s.plugin}"`;
}

/** `*` glob match on a tool's own (server-side) name. */
export function matchesAny(name: string, patterns: string[]): boolean {
  return patterns.some((p) => {
    if (!p.includes("*")) return p === name;
    const re = new RegExp(`^${p.split("*").map((s) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`);
    return re.test(name);
  });
}
