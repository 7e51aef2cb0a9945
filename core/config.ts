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

  // Claude Code compatibility: project and local settings, then .mcp.json.
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
  }
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
  return { config, file, problems, sources: sources.filter((s) => !s.failed), watched };
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
