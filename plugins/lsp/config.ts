/**
 * `lspServers` of every loaded plugin → validated server definitions and the extension table.
 * Rules (Claude Code's, see shared/formats.md §2.1): an invalid server is skipped with a problem
 * naming plugin, file and JSON path, and claims no extensions; others still start; unknown fields
 * only warn (a newer field must never silently kill a server); two servers claiming one extension:
 * the first in (plugin id, server name) order wins and the other is reported.
 */
import fs from "node:fs";
import path from "node:path";
import { createHash } from "node:crypto";
import { stableStringify, suggest, type LoadedPlugin, type ProblemReport } from "../../core/index.ts";

export interface ServerDef {
  /** `plugin:<plugin>:<server>` (Claude Code's naming). */
  id: string;
  name: string;
  plugin: string;
  file: string;
  /** JSON path of the server's config inside `file`. */
  jsonPath: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  extensionToLanguage: Record<string, string>;
  initializationOptions?: unknown;
  settings?: unknown;
  workspaceFolder: string;
  startupTimeout: number;
  /** undefined = Claude Code's "no timeout"; we still kill after DEFAULT_SHUTDOWN_MS so nothing is orphaned. */
  shutdownTimeout?: number;
  restartOnCrash: boolean;
  maxRestarts: number;
  diagnostics: boolean;
  /** Hash of everything that makes a process different: the connection cache key. */
  key: string;
}

export interface ServerTable {
  servers: ServerDef[];
  /** ".ts" → the server that won the extension. */
  byExt: Map<string, ServerDef>;
  problems: ProblemReport[];
}

export const DEFAULT_STARTUP_MS = 30_000;
export const DEFAULT_MAX_RESTARTS = 3;

const KNOWN = [
  "command",
  "args",
  "extensionToLanguage",
  "transport",
  "env",
  "initializationOptions",
  "settings",
  "workspaceFolder",
  "startupTimeout",
  "shutdownTimeout",
  "restartOnCrash",
  "maxRestarts",
  "diagnostics",
];

export function readServers(plugins: readonly LoadedPlugin[], cwd: string): ServerTable {
  const problems: ProblemReport[] = [];
  const found: ServerDef[] = [];
  for (const lp of plugins) {
    for (const comp of lp.components.lspServers) {
      const base = comp.jsonPath === "/" ? "" : comp.jsonPath;
      for (const [name, raw] of Object.entries(comp.value)) {
        const def = validate(lp, name, raw as Record<string, unknown>, comp.file, `${base}/${escapePointer(name)}`, cwd, problems);
        if (def) found.push(def);
      }
    }
  }
  found.sort((a, b) => cmp(a.plugin, b.plugin) || cmp(a.name, b.name));
  const byExt = new Map<string, ServerDef>();
  for (const s of found) {
    for (const ext of Object.keys(s.extensionToLanguage)) {
      const owner = byExt.get(ext);
      if (!owner) byExt.set(ext, s);
      else
        problems.push({
          plugin: s.plugin,
          file: s.file,
          path: `${s.jsonPath}/extensionToLanguage/${escapePointer(ext)}`,
          message: `extension "${ext}" is already handled by LSP server ${owner.id} (${owner.file}); the first registered server wins (order: plugin id, server name), so ${s.id} does not get "${ext}"`,
          severity: "warning",
        });
    }
  }
  return { servers: found, byExt, problems };
}

/** Reports a problem at a field of the server's config (a JSON pointer suffix such as "/command"). */
type Report = (field: string, message: string) => void;

/** The checked fields of one server's config (meaningful only when no error was reported). */
interface Checked {
  command: string;
  extMap: Record<string, string>;
  args: string[];
  env: Record<string, string>;
  startupTimeout?: number;
  shutdownTimeout?: number;
  maxRestarts?: number;
}

function validate(
  lp: LoadedPlugin,
  name: string,
  cfg: Record<string, unknown>,
  file: string,
  jp: string,
  cwd: string,
  problems: ProblemReport[],
): ServerDef | undefined {
  const errors: ProblemReport[] = [];
  const err: Report = (field, message) => errors.push({ plugin: lp.id, file, path: `${jp}${field}`, message, severity: "error" });
  const warn: Report = (field, message) => problems.push({ plugin: lp.id, file, path: `${jp}${field}`, message, severity: "warning" });
  const id = `plugin:${lp.id}:${name}`;
  const checked = checkFields(name, cfg, err, warn);
  if (errors.length) {
    problems.push(...errors.map((p) => ({ ...p, message: `${p.message}; LSP server ${id} is skipped and claims no extensions` })));
    return undefined;
  }
  const def = serverDef(lp, { id, name, file, jsonPath: jp, cwd }, cfg, checked);
  const missing = whichProblem(def);
  if (missing) problems.push({ plugin: lp.id, file, path: `${jp}/command`, message: `${missing}; calls for ${Object.keys(checked.extMap).join(" ")} files will fail until it is installed`, severity: "error" });
  return def;
}

function checkFields(name: string, cfg: Record<string, unknown>, err: Report, warn: Report): Checked {
  for (const k of Object.keys(cfg)) {
    if (!KNOWN.includes(k)) warn(`/${k}`, `unknown LSP server field "${k}" is ignored${suggest(k, KNOWN)}; the server still starts`);
  }
  const command = cfg.command;
  if (typeof command !== "string" || !command.trim()) err("/command", `LSP server "${name}" needs "command": the executable to start (a non-empty string, e.g. "typescript-language-server")`);
  const extMap = checkExtensions(name, cfg.extensionToLanguage, err);
  let args: string[] = [];
  if (cfg.args !== undefined) {
    if (!Array.isArray(cfg.args) || cfg.args.some((a) => typeof a !== "string" || !a)) err("/args", "must be an array of non-empty strings, e.g. [\"--stdio\"]");
    else args = cfg.args as string[];
  }
  let env: Record<string, string> = {};
  if (cfg.env !== undefined) {
    if (!cfg.env || typeof cfg.env !== "object" || Array.isArray(cfg.env) || Object.values(cfg.env).some((v) => typeof v !== "string")) err("/env", "must be an object of string values");
    else env = cfg.env as Record<string, string>;
  }
  if (cfg.transport !== undefined && cfg.transport !== "stdio" && cfg.transport !== "socket") err("/transport", `must be "stdio" or "socket"`);
  if (cfg.transport === "socket") warn("/transport", `"socket" is accepted for compatibility, but the server runs over stdio (as in Claude Code)`);
  if (cfg.workspaceFolder !== undefined && typeof cfg.workspaceFolder !== "string") err("/workspaceFolder", "must be a string (a directory)");
  const startupTimeout = posInt(cfg, "startupTimeout", 1, err);
  const shutdownTimeout = posInt(cfg, "shutdownTimeout", 1, err);
  const maxRestarts = posInt(cfg, "maxRestarts", 0, err);
  for (const k of ["restartOnCrash", "diagnostics"]) if (cfg[k] !== undefined && typeof cfg[k] !== "boolean") err(`/${k}`, "must be true or false");
  return { command: command as string, extMap, args, env, startupTimeout, shutdownTimeout, maxRestarts };
}

function checkExtensions(name: string, etl: unknown, err: Report): Record<string, string> {
  const extMap: Record<string, string> = {};
  if (!etl || typeof etl !== "object" || Array.isArray(etl)) {
    err("/extensionToLanguage", `LSP server "${name}" needs "extensionToLanguage": an object mapping file extensions to language ids, e.g. {".ts": "typescript"}`);
    return extMap;
  }
  if (!Object.keys(etl).length) err("/extensionToLanguage", "must map at least one extension");
  for (const [ext, lang] of Object.entries(etl)) {
    const at = `/extensionToLanguage/${escapePointer(ext)}`;
    if (!ext.startsWith(".") || ext.length < 2) err(at, `extension key "${ext}" must start with "." and have at least one more character (e.g. ".ts")`);
    else if (typeof lang !== "string" || !lang) err(at, `language id for "${ext}" must be a non-empty string (an LSP language id such as "typescript")`);
    else extMap[ext] = lang;
  }
  return extMap;
}

function posInt(cfg: Record<string, unknown>, k: string, min: number, err: Report): number | undefined {
  const v = cfg[k];
  if (v === undefined) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v) || v < min) {
    err(`/${k}`, `must be an integer ≥ ${min}${k.endsWith("Timeout") ? " (milliseconds)" : ""}`);
    return undefined;
  }
  return v;
}

/** A valid server's definition: command resolved against the plugin root, defaults filled in, the cache key hashed. */
function serverDef(
  lp: LoadedPlugin,
  where: { id: string; name: string; file: string; jsonPath: string; cwd: string },
  cfg: Record<string, unknown>,
  c: Checked,
): ServerDef {
  const workspaceFolder = path.resolve(where.cwd, (cfg.workspaceFolder as string | undefined) ?? ".");
  const resolved = {
    command: resolveCommand(c.command, lp.root),
    args: c.args,
    env: { ...lp.env, ...c.env },
    initializationOptions: cfg.initializationOptions,
    settings: cfg.settings,
    workspaceFolder,
  };
  const { id, name, file, jsonPath } = where;
  return {
    id,
    name,
    plugin: lp.id,
    file,
    jsonPath,
    ...resolved,
    extensionToLanguage: c.extMap,
    startupTimeout: c.startupTimeout ?? DEFAULT_STARTUP_MS,
    shutdownTimeout: c.shutdownTimeout,
    restartOnCrash: cfg.restartOnCrash !== false,
    maxRestarts: c.maxRestarts ?? DEFAULT_MAX_RESTARTS,
    diagnostics: cfg.diagnostics !== false,
    key: createHash("sha256").update(stableStringify({ ...resolved, id })).digest("hex").slice(0, 16),
  };
}

/** A relative command with a slash is relative to the plugin root (`./bin/server`); bare names go through $PATH. */
function resolveCommand(command: string, root: string): string {
  if (path.isAbsolute(command) || !/[\\/]/.test(command)) return command;
  return path.resolve(root, command);
}

/** `Executable not found in $PATH` and friends, or undefined when the command can be spawned. */
export function whichProblem(def: Pick<ServerDef, "command" | "env">): string | undefined {
  const { command } = def;
  if (path.isAbsolute(command)) {
    try {
      fs.accessSync(command, fs.constants.X_OK);
      return undefined;
    } catch {
      return `executable "${command}" does not exist or is not executable`;
    }
  }
  const PATH = def.env.PATH ?? process.env.PATH ?? "";
  for (const dir of PATH.split(path.delimiter)) {
    if (!dir) continue;
    try {
      fs.accessSync(path.join(dir, command), fs.constants.X_OK);
      return undefined;
    } catch {}
  }
  return `Executable not found in $PATH: "${command}" (install the language server, or set "command" to its absolute path)`;
}

function escapePointer(s: string): string {
  return s.replace(/~/g, "~0").replace(/\//g, "~1");
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

