/**
 * toolhost's own config (cosmiconfig: toolhost.config.{json,js,mjs,ts}, .toolhostrc*, package.json#toolhost),
 * as a pseudo-plugin so consumers read its permissions, hooks and MCP servers with their provenance. Claude
 * Code's settings files and .mcp.json are the claude-settings plugin's (host.settings).
 */
import fs from "node:fs";
import path from "node:path";
import { errorMessage, type ProblemReport } from "../errors.ts";
import type { HostConfig, LoadedPlugin } from "../types.ts";
import type { ModePlace } from "../types.ts";
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
  /** Where the toolhost config sets a permission mode (settings sources add theirs through host.settings). */
  modePlaces: ModePlace[];
}

const SEARCH_PLACES = ["package.json", ".toolhostrc", ".toolhostrc.json", ".toolhostrc.js", ".toolhostrc.mjs", ".toolhostrc.ts", "toolhost.config.json", "toolhost.config.js", "toolhost.config.mjs", "toolhost.config.ts"];

interface FileConfig {
  config?: HostConfig;
  file?: string;
  problem?: ProblemReport;
}

/** Whether cosmiconfig could find anything in `cwd` (it searches only there: stopDir is cwd). */
function mayHaveConfig(cwd: string): boolean {
  for (const f of SEARCH_PLACES.slice(1)) if (fs.existsSync(path.join(cwd, f))) return true;
  const pkg = path.join(cwd, "package.json");
  if (!fs.existsSync(pkg)) return false;
  try {
    const v = JSON.parse(fs.readFileSync(pkg, "utf8")) as unknown;
    return !!v && typeof v === "object" && "toolhost" in v;
  } catch {
    return true; // let cosmiconfig read it and report what is wrong
  }
}

async function readConfigFile(cwd: string, configFile: string | undefined): Promise<FileConfig> {
  // cosmiconfig and its loaders are imported only when there is something to load.
  if (!configFile && !mayHaveConfig(cwd)) return {};
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
  if (!Object.keys(config).length) return [];
  const validate = validatorFor(configSchema);
  return validate(config) ? [] : ajvProblems(validate.errors, "config", file, base);
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
  const fileOk = !!fc.config && !checkConfig(fc.config, cfgFile, base).length;
  const place = (value: unknown, plugin: string, file: string | undefined, prefix: string, checkedIn: boolean, precedence: number): ModePlace => ({ value, topMode: true, plugin, file, prefix, checkedIn, precedence });
  const modePlaces: ModePlace[] = [
    ...(opts.inline && typeof opts.inline === "object" ? [place(opts.inline, "config", undefined, "", false, 0)] : []),
    // A file named with --config is the user's; one found in the project is checked in.
    ...(fileOk ? [opts.configFile ? place(fc.config, "config", fc.file, base, false, 10) : place(fc.config, "config", fc.file, base, true, 30)] : []),
  ];
  for (const s of out.sources) out.problems.push(...s.problems);
  return { config, file: fc.file, problems: out.problems, sources: out.sources.filter((s) => !s.failed), watched: out.watched, modePlaces };
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
