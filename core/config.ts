/**
 * Configuration discovery: toolhost's own config (cosmiconfig: toolhost.config.{json,js,mjs,ts},
 * .toolhostrc*, package.json#toolhost) and, for compatibility, the project's Claude Code settings
 * (.claude/settings.json, .claude/settings.local.json) and .mcp.json. Each becomes a pseudo-plugin
 * so consumers read permissions, hooks and MCP servers with their provenance.
 */
import fs from "node:fs";
import path from "node:path";
import { cosmiconfig, type Loader } from "cosmiconfig";
import { createJiti } from "jiti";
import { Ajv } from "ajv";
import type { ProblemReport } from "./errors.ts";
import { errorMessage } from "./errors.ts";
import { ajvProblems, readJson, settingsPlugin, type LoadedPlugin } from "./manifest.ts";
import { configSchema } from "./manifest-schema.ts";

export interface HostConfig {
  plugins?: string[];
  disabledPlugins?: string[];
  permissions?: { allow?: string[]; ask?: string[]; deny?: string[]; defaultMode?: string; additionalDirectories?: string[] };
  hooks?: Record<string, unknown>;
  mcpServers?: Record<string, unknown>;
  toolSearch?: { enabled?: boolean | "auto" | `auto:${number}`; alwaysLoad?: string[]; contextTokens?: number; [k: string]: unknown };
  mode?: string;
  /** Named tool sets (a task-type router): `{ review: ["Read", "Grep", "Glob"] }`. */
  toolSets?: Record<string, string[]>;
  /** The active tool set name. */
  toolSet?: string;
  output?: { maxChars?: number; perTool?: Record<string, number>; [k: string]: unknown };
  transcript?: string;
  /** agents-md plugin: instruction file names to compile (default ["AGENTS.md"]). */
  agentsMd?: { files?: string[] };
  [key: string]: unknown;
}

export interface ConfigResult {
  config: HostConfig;
  file?: string;
  problems: ProblemReport[];
  /** Pseudo-plugins for config, settings files and .mcp.json. */
  sources: LoadedPlugin[];
  /** Files that, when they change, should trigger a rebuild. */
  watched: string[];
  /** The permission mode the configuration asks for, and whether bypassPermissions is disabled (and by whom). */
  mode: ModeChoice;
}

/** Permission modes toolhost runs (Claude Code's, without the classifier-driven `auto`). */
export const PERMISSION_MODES = ["default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"] as const;
/** Modes a repo-committed project settings file may not switch on (Claude Code filters these escalations). */
const ESCALATING = new Set(["bypassPermissions", "acceptEdits", "auto"]);

export interface ModeSource {
  mode: string;
  /** "option" (createHost / --mode), "config", "settings:local", "settings:project", or "default". */
  source: string;
  file?: string;
  path?: string;
}
export interface ModeChoice {
  defaultMode?: ModeSource;
  /** Set when some file says `permissions.disableBypassPermissionsMode: "disable"`. */
  bypassDisabledBy?: { plugin: string; file?: string; path: string };
}

/**
 * Read a mode setting: "manual" is Claude Code's alias of "default"; `auto` and unknown names are
 * reported and ignored; a project file may not escalate. Returns the mode to use, or undefined.
 */
function modeSetting(value: unknown, where: { plugin: string; file?: string; path: string; checkedIn: boolean }, problems: ProblemReport[]): string | undefined {
  if (value === undefined) return undefined;
  const at = { plugin: where.plugin, file: where.file, path: where.path };
  if (typeof value !== "string") {
    problems.push({ ...at, message: `defaultMode must be a string, one of ${PERMISSION_MODES.join(", ")}`, severity: "error" });
    return undefined;
  }
  const mode = value === "manual" ? "default" : value;
  if (mode === "auto") {
    problems.push({ ...at, message: `defaultMode "auto" (Claude Code's classifier mode) is not supported by toolhost and is ignored; use default, acceptEdits, plan, dontAsk or bypassPermissions`, severity: "warning" });
    return undefined;
  }
  if (!(PERMISSION_MODES as readonly string[]).includes(mode)) {
    problems.push({ ...at, message: `unknown defaultMode "${value}" is ignored; use one of ${PERMISSION_MODES.join(", ")}`, severity: "warning" });
    return undefined;
  }
  if (where.checkedIn && ESCALATING.has(mode)) {
    problems.push({
      ...at,
      message: `mode "${mode}" in ${where.plugin === "config" ? "a toolhost config found in the project" : "the repo-committed project settings"} is ignored (a checked-in file may not loosen permissions; Claude Code filters it too) — set it in .claude/settings.local.json, pass --mode / createHost({mode}), or name a config file with --config`,
      severity: "warning",
    });
    return undefined;
  }
  return mode;
}

const ajv = new Ajv({ allErrors: true, strict: false });
const validateConfig = ajv.compile(configSchema);

const MODULE = "toolhost";
const SEARCH_PLACES = [
  "package.json",
  ".toolhostrc",
  ".toolhostrc.json",
  ".toolhostrc.js",
  ".toolhostrc.mjs",
  ".toolhostrc.ts",
  "toolhost.config.json",
  "toolhost.config.js",
  "toolhost.config.mjs",
  "toolhost.config.ts",
];

const jitiLoader: Loader = async (filepath) => {
  const jiti = createJiti(filepath, { moduleCache: false, fsCache: false });
  const mod = (await jiti.import(filepath)) as { default?: unknown };
  return mod && typeof mod === "object" && "default" in mod ? mod.default : mod;
};

export async function loadConfig(opts: { cwd: string; configFile?: string; inline?: HostConfig }): Promise<ConfigResult> {
  const problems: ProblemReport[] = [];
  const sources: LoadedPlugin[] = [];
  const watched: string[] = [];
  let config: HostConfig = {};
  let fileConfig: HostConfig | undefined;
  let file: string | undefined;
  const explorer = cosmiconfig(MODULE, {
    searchPlaces: SEARCH_PLACES,
    stopDir: opts.cwd,
    cache: false,
    loaders: { ".ts": jitiLoader, ".js": jitiLoader, ".mjs": jitiLoader, ".cjs": jitiLoader },
  });
  try {
    const res = opts.configFile ? await explorer.load(path.resolve(opts.cwd, opts.configFile)) : await explorer.search(opts.cwd);
    if (res && !res.isEmpty) {
      file = res.filepath;
      config = (res.config ?? {}) as HostConfig;
      fileConfig = config;
    } else if (res) file = res.filepath;
  } catch (e) {
    const f = opts.configFile ? path.resolve(opts.cwd, opts.configFile) : (e as { filepath?: string }).filepath;
    problems.push({ plugin: "config", file: f, path: "/", message: `cannot load config: ${errorMessage(e)}`, severity: "error" });
  }
  for (const p of SEARCH_PLACES) watched.push(path.join(opts.cwd, p));
  if (opts.configFile) watched.push(path.resolve(opts.cwd, opts.configFile));
  if (opts.inline) config = mergeConfig(config, opts.inline);
  const cfgFile = file ?? path.join(opts.cwd, "toolhost.config.json");
  const base = file && path.basename(file) === "package.json" ? "/toolhost" : "";
  if (!config || typeof config !== "object" || Array.isArray(config)) {
    problems.push({ plugin: "config", file: cfgFile, path: base || "/", message: "config must be an object", severity: "error" });
    config = {};
  } else if (!validateConfig(config)) {
    problems.push(...ajvProblems(validateConfig.errors, "config", cfgFile, base));
  } else {
    for (const k of Object.keys(config)) {
      if (!(k in configSchema.properties)) problems.push({ plugin: "config", file: cfgFile, path: `${base}/${k}`, message: `unknown config key "${k}" is ignored`, severity: "warning" });
    }
  }
  if (!problems.some((p) => p.severity === "error")) {
    sources.push(settingsPlugin("config", "config", cfgFile, config as Record<string, unknown>, { projectDir: opts.cwd, rulesRoot: opts.cwd, base }));
  }
  // Mode, first found wins: createHost's inline config → a config file named with --config → settings.local
  // → a config file found in the project → settings (project). The last two are checked in: no escalation.
  const modeChoice: ModeChoice = {};
  const modeCandidates: ModeSource[] = [];
  const noteMode = (cfgLike: unknown, top: unknown, plugin: string, file: string | undefined, prefix: string, checkedIn: boolean) => {
    const c = cfgLike && typeof cfgLike === "object" ? (cfgLike as Record<string, unknown>) : {};
    const p = c.permissions && typeof c.permissions === "object" ? (c.permissions as Record<string, unknown>) : {};
    for (const [value, jsonPath] of [
      [top === undefined ? undefined : c.mode, `${prefix}/mode`],
      [p.defaultMode, `${prefix}/permissions/defaultMode`],
    ] as const) {
      const m = modeSetting(value, { plugin, file, path: jsonPath, checkedIn }, problems);
      if (m) modeCandidates.push({ mode: m, source: plugin, file, path: jsonPath });
    }
    if (p.disableBypassPermissionsMode === "disable" && !modeChoice.bypassDisabledBy) modeChoice.bypassDisabledBy = { plugin, file, path: `${prefix}/permissions/disableBypassPermissionsMode` };
  };
  const fileOk = fileConfig && typeof fileConfig === "object" && !Array.isArray(fileConfig) && validateConfig(fileConfig);
  const inlineOk = opts.inline && typeof opts.inline === "object";

  // Claude Code compatibility: project and local settings, then .mcp.json.
  const settingsModes: Array<[unknown, string, string]> = [];
  for (const [id, rel] of [
    ["settings:project", path.join(".claude", "settings.json")],
    ["settings:local", path.join(".claude", "settings.local.json")],
  ] as const) {
    const f = path.join(opts.cwd, rel);
    watched.push(f);
    if (!fs.existsSync(f)) continue;
    const r = readJson(f);
    if (r.error || !r.value || typeof r.value !== "object") {
      problems.push({ plugin: id, file: f, path: "/", message: r.error ?? "settings must be a JSON object", severity: "error" });
      continue;
    }
    const v = r.value as Record<string, unknown>;
    sources.push(settingsPlugin(id, "settings", f, { permissions: v.permissions, hooks: v.hooks } as Record<string, unknown>, { projectDir: opts.cwd, rulesRoot: opts.cwd }));
    settingsModes.push([v.permissions, id, f]);
  }
  const settingsMode = (id: string) => {
    const e = settingsModes.find((x) => x[1] === id);
    if (e) noteMode({ permissions: e[0] }, undefined, id, e[2], "", id === "settings:project");
  };
  if (inlineOk) noteMode(opts.inline, true, "config", undefined, "", false);
  if (fileOk && opts.configFile) noteMode(fileConfig, true, "config", file, base, false);
  settingsMode("settings:local");
  if (fileOk && !opts.configFile) noteMode(fileConfig, true, "config", file, base, true);
  settingsMode("settings:project");
  modeChoice.defaultMode = modeCandidates[0];
  const mcpJson = path.join(opts.cwd, ".mcp.json");
  watched.push(mcpJson);
  if (fs.existsSync(mcpJson)) {
    const r = readJson(mcpJson);
    if (r.error || !r.value || typeof r.value !== "object") {
      problems.push({ plugin: "mcp.json", file: mcpJson, path: "/", message: r.error ?? ".mcp.json must be a JSON object", severity: "error" });
    } else {
      const v = r.value as Record<string, unknown>;
      const servers = v.mcpServers && typeof v.mcpServers === "object" ? v.mcpServers : v;
      sources.push(settingsPlugin("mcp.json", "mcpjson", mcpJson, { mcpServers: servers }, { projectDir: opts.cwd, rulesRoot: opts.cwd, base: v.mcpServers ? "" : "" }));
    }
  }
  for (const s of sources) problems.push(...s.problems);
  return { config, file, problems, sources: sources.filter((s) => !s.failed), watched, mode: modeChoice };
}

function mergeConfig(a: HostConfig, b: HostConfig): HostConfig {
  const out: HostConfig = { ...a, ...b };
  if (a.plugins || b.plugins) out.plugins = [...(a.plugins ?? []), ...(b.plugins ?? [])];
  if (a.permissions || b.permissions) {
    const pa = a.permissions ?? {};
    const pb = b.permissions ?? {};
    out.permissions = {
      ...pa,
      ...pb,
      allow: [...(pa.allow ?? []), ...(pb.allow ?? [])],
      ask: [...(pa.ask ?? []), ...(pb.ask ?? [])],
      deny: [...(pa.deny ?? []), ...(pb.deny ?? [])],
    };
  }
  return out;
}
