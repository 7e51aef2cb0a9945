/**
 * Configuration discovery: toolhost's own config (cosmiconfig: toolhost.config.{json,js,mjs,ts},
 * .toolhostrc*, package.json#toolhost) and, for compatibility, the project's Claude Code settings
 * (.claude/settings.json, .claude/settings.local.json) and .mcp.json. Each becomes a pseudo-plugin so
 * consumers read permissions, hooks and MCP servers with their provenance.
 */
import fs from "node:fs";
import path from "node:path";
import { errorMessage, type ProblemReport } from "../errors.ts";
import type { HostConfig, LoadedPlugin } from "../types.ts";
import { chooseMode, type ModeChoice, type ModePlace } from "./mode.ts";
import { readJson } from "./paths.ts";
import { ajvProblems, configSchema, validatorFor } from "./schema.ts";
import { settingsPlugin } from "./settings.ts";

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

const SEARCH_PLACES = ["package.json", ".toolhostrc", ".toolhostrc.json", ".toolhostrc.js", ".toolhostrc.mjs", ".toolhostrc.ts", "toolhost.config.json", "toolhost.config.js", "toolhost.config.mjs", "toolhost.config.ts"];

interface FileConfig {
  config?: HostConfig;
  file?: string;
  problem?: ProblemReport;
}

async function readConfigFile(cwd: string, configFile: string | undefined): Promise<FileConfig> {
  const [{ cosmiconfig }, { createJiti }] = await Promise.all([import("cosmiconfig"), import("jiti")]);
  const jitiLoader = async (filepath: string) => {
    const mod = (await createJiti(filepath, { moduleCache: false, fsCache: false }).import(filepath)) as { default?: unknown };
    return mod && typeof mod === "object" && "default" in mod ? mod.default : mod;
  };
  const explorer = cosmiconfig("toolhost", { searchPlaces: SEARCH_PLACES, stopDir: cwd, cache: false, loaders: { ".ts": jitiLoader, ".js": jitiLoader, ".mjs": jitiLoader, ".cjs": jitiLoader } });
  try {
    const res = configFile ? await explorer.load(path.resolve(cwd, configFile)) : await explorer.search(cwd);
    if (!res) return {};
    return { file: res.filepath, config: res.isEmpty ? undefined : ((res.config ?? {}) as HostConfig) };
  } catch (e) {
    const f = configFile ? path.resolve(cwd, configFile) : (e as { filepath?: string }).filepath;
    return { problem: { plugin: "config", file: f, path: "/", message: `cannot load config: ${errorMessage(e)}`, severity: "error" } };
  }
}

/** Schema problems of the merged config; unknown keys are checked later, against what plugins contribute. */
function checkConfig(config: unknown, file: string, base: string): ProblemReport[] {
  if (!config || typeof config !== "object" || Array.isArray(config)) return [{ plugin: "config", file, path: base || "/", message: "config must be an object", severity: "error" }];
  const validate = validatorFor(configSchema);
  return validate(config) ? [] : ajvProblems(validate.errors, "config", file, base);
}

/** .claude/settings.json and settings.local.json as pseudo-plugins (permissions and hooks only). */
function claudeSettings(cwd: string, out: { sources: LoadedPlugin[]; problems: ProblemReport[]; watched: string[] }): Map<string, { value: Record<string, unknown>; file: string }> {
  const found = new Map<string, { value: Record<string, unknown>; file: string }>();
  for (const [id, rel] of [["settings:project", path.join(".claude", "settings.json")], ["settings:local", path.join(".claude", "settings.local.json")]] as const) {
    const f = path.join(cwd, rel);
    out.watched.push(f);
    if (!fs.existsSync(f)) continue;
    const r = readJson(f);
    if (r.error || !r.value || typeof r.value !== "object") {
      out.problems.push({ plugin: id, file: f, path: "/", message: r.error ?? "settings must be a JSON object", severity: "error" });
      continue;
    }
    const v = r.value as Record<string, unknown>;
    out.sources.push(settingsPlugin(id, "settings", f, { permissions: v.permissions, hooks: v.hooks }, { projectDir: cwd, rulesRoot: cwd }));
    found.set(id, { value: v, file: f });
  }
  return found;
}

function mcpJson(cwd: string, out: { sources: LoadedPlugin[]; problems: ProblemReport[]; watched: string[] }): void {
  const file = path.join(cwd, ".mcp.json");
  out.watched.push(file);
  if (!fs.existsSync(file)) return;
  const r = readJson(file);
  if (r.error || !r.value || typeof r.value !== "object") {
    out.problems.push({ plugin: "mcp.json", file, path: "/", message: r.error ?? ".mcp.json must be a JSON object", severity: "error" });
    return;
  }
  const v = r.value as Record<string, unknown>;
  const servers = v.mcpServers && typeof v.mcpServers === "object" ? v.mcpServers : v;
  out.sources.push(settingsPlugin("mcp.json", "mcpjson", file, { mcpServers: servers }, { projectDir: cwd, rulesRoot: cwd }));
}

export async function loadConfig(opts: { cwd: string; configFile?: string; inline?: HostConfig }): Promise<ConfigResult> {
  const out = { sources: [] as LoadedPlugin[], problems: [] as ProblemReport[], watched: [] as string[] };
  const fc = await readConfigFile(opts.cwd, opts.configFile);
  if (fc.problem) out.problems.push(fc.problem);
  for (const p of SEARCH_PLACES) out.watched.push(path.join(opts.cwd, p));
  if (opts.configFile) out.watched.push(path.resolve(opts.cwd, opts.configFile));
  let config: HostConfig = fc.config ?? {};
  if (opts.inline) config = mergeConfig(config, opts.inline);
  const cfgFile = fc.file ?? path.join(opts.cwd, "toolhost.config.json");
  const base = fc.file && path.basename(fc.file) === "package.json" ? "/toolhost" : "";
  const bad = checkConfig(config, cfgFile, base);
  out.problems.push(...bad);
  if (!config || typeof config !== "object" || Array.isArray(config)) config = {};
  if (!bad.length) out.sources.push(settingsPlugin("config", "config", cfgFile, config as Record<string, unknown>, { projectDir: opts.cwd, rulesRoot: opts.cwd, base }));
  const settings = claudeSettings(opts.cwd, out);
  const fileOk = !!fc.config && !checkConfig(fc.config, cfgFile, base).length;
  const place = (value: unknown, topMode: boolean, plugin: string, file: string | undefined, prefix: string, checkedIn: boolean): ModePlace => ({ value, topMode, plugin, file, prefix, checkedIn });
  const settingsPlace = (id: string) => {
    const s = settings.get(id);
    return s ? [place({ permissions: s.value.permissions }, false, id, s.file, "", id === "settings:project")] : [];
  };
  const places: ModePlace[] = [
    ...(opts.inline && typeof opts.inline === "object" ? [place(opts.inline, true, "config", undefined, "", false)] : []),
    ...(fileOk && opts.configFile ? [place(fc.config, true, "config", fc.file, base, false)] : []),
    ...settingsPlace("settings:local"),
    ...(fileOk && !opts.configFile ? [place(fc.config, true, "config", fc.file, base, true)] : []),
    ...settingsPlace("settings:project"),
  ];
  const mode = chooseMode(places, out.problems);
  mcpJson(opts.cwd, out);
  for (const s of out.sources) out.problems.push(...s.problems);
  return { config, file: fc.file, problems: out.problems, sources: out.sources.filter((s) => !s.failed), watched: out.watched, mode };
}

function mergeConfig(a: HostConfig, b: HostConfig): HostConfig {
  const out: HostConfig = { ...a, ...b };
  if (a.plugins || b.plugins) out.plugins = [...(a.plugins ?? []), ...(b.plugins ?? [])];
  if (a.permissions || b.permissions) {
    const pa = a.permissions ?? {};
    const pb = b.permissions ?? {};
    out.permissions = { ...pa, ...pb, allow: [...(pa.allow ?? []), ...(pb.allow ?? [])], ask: [...(pa.ask ?? []), ...(pb.ask ?? [])], deny: [...(pa.deny ?? []), ...(pb.deny ?? [])] };
  }
  return out;
}
