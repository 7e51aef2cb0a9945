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
import { configSchema } from "./schema.ts";
import { validatorFor } from "../../lib/validators.ts";
import { ajvProblems } from "../../lib/schema-errors.ts";
import { settingsPlugin } from "../../lib/settings-source.ts";

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

/** How often, and how far apart, an empty config file is read again (see readConfigFile). */
const EMPTY_RETRIES = 3;
const EMPTY_RETRY_MS = 20;

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

/** An empty file in one of the config's places (package.json aside): perhaps one being rewritten. */
function emptyPlace(cwd: string): boolean {
  return SEARCH_PLACES.slice(1).some((f) => fs.statSync(path.join(cwd, f), { throwIfNoEntry: false })?.size === 0);
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
    const find = () => (configFile ? explorer.load(path.resolve(cwd, configFile)) : explorer.search(cwd));
    let res = await find();
    // An empty file is most often one being rewritten in place (truncated, not yet written: a watcher's rebuild
    // can read it in between); read as "no config" (a search skips it), that rebuild would succeed without the
    // config's plugins and servers. Read again a few times before taking it as empty.
    for (let i = 0; (res ? res.isEmpty : emptyPlace(cwd)) && i < EMPTY_RETRIES; i++) {
      await new Promise((r) => setTimeout(r, EMPTY_RETRY_MS));
      res = await find();
    }
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

/**
 * Where the embedder's inline config (`createHost({ config })`) is said to come from: it has no file, so rules,
 * hooks and problems from it carry this label where a file would be named (as `--settings '{…}'` carries
 * "--settings").
 */
export const INLINE_CONFIG = "createHost({ config })";

/**
 * The config file and the embedder's inline config are two sources, both plugin "config": each rule, hook and
 * server keeps its true origin (the file's path, or INLINE_CONFIG), and trust applies per source (a config
 * file found in the project is the repository's; the inline config is the user's). `config` is still the
 * merge (inline over file) that plugins read their keys from.
 */
export async function loadConfig(opts: { cwd: string; configFile?: string; inline?: HostConfig }): Promise<ConfigResult> {
  const out = { sources: [] as LoadedPlugin[], problems: [] as ProblemReport[], watched: [] as string[] };
  const fc = await readConfigFile(opts.cwd, opts.configFile);
  if (fc.problem) out.problems.push(fc.problem);
  for (const p of SEARCH_PLACES) out.watched.push(path.join(opts.cwd, p));
  if (opts.configFile) out.watched.push(path.resolve(opts.cwd, opts.configFile));
  const inline = opts.inline;
  let config: HostConfig = fc.config ?? {};
  if (inline) config = mergeConfig(config, inline);
  const cfgFile = fc.file ?? path.join(opts.cwd, "toolhost.config.json");
  const base = fc.file && path.basename(fc.file) === "package.json" ? "/toolhost" : "";
  const fileBad = checkConfig(fc.config ?? {}, cfgFile, base);
  const inlineBad = inline !== undefined ? checkConfig(inline, INLINE_CONFIG, "") : [];
  out.problems.push(...fileBad, ...inlineBad);
  if (!config || typeof config !== "object" || Array.isArray(config)) config = {};
  const inlineObj = !!inline && typeof inline === "object" && !Array.isArray(inline);
  if (!fileBad.length && !inlineBad.length) {
    // The file's source: what the inline config replaces is left out (mergeConfig: inline keys win whole,
    // permission lists add up), so the two sources together apply exactly what the merge says.
    if (fc.file || !inlineObj) out.sources.push(settingsPlugin("config", "config", cfgFile, fileShare(fc.config ?? {}, inlineObj ? inline : undefined) as Record<string, unknown>, { projectDir: opts.cwd, rulesRoot: opts.cwd, base }));
    if (inlineObj) out.sources.push(inlineSource(inline as Record<string, unknown>, opts.cwd));
  }
  const fileOk = !!fc.config && !fileBad.length;
  const place = (value: unknown, plugin: string, file: string | undefined, prefix: string, checkedIn: boolean, precedence: number): ModePlace => ({ value, topMode: true, plugin, file, prefix, checkedIn, precedence });
  const modePlaces: ModePlace[] = [
    ...(inlineObj ? [place(inline, "config", undefined, "", false, 0)] : []),
    // A file named with --config is the user's; one found in the project is checked in.
    ...(fileOk ? [opts.configFile ? place(fc.config, "config", fc.file, base, false, 10) : place(fc.config, "config", fc.file, base, true, 30)] : []),
  ];
  for (const s of out.sources) out.problems.push(...s.problems);
  return { config, file: fc.file, problems: out.problems, sources: out.sources.filter((s) => !s.failed), watched: out.watched, modePlaces };
}

/** The file config minus what the inline config replaces: top-level keys it sets, and permission keys other than the lists. */
function fileShare(file: HostConfig, inline: HostConfig | undefined): HostConfig {
  if (!inline) return file;
  const out: HostConfig = {};
  for (const [k, v] of Object.entries(file)) if (k === "permissions" || k === "plugins" || !(k in inline)) out[k] = v;
  if (file.permissions && inline.permissions) {
    const lists = new Set(["allow", "ask", "deny"]);
    out.permissions = Object.fromEntries(Object.entries(file.permissions).filter(([k]) => lists.has(k) || !(k in inline.permissions!)));
  }
  return out;
}

/** The inline config's source: plugin "config" as the file's, no file (INLINE_CONFIG labels it), rules relative to cwd. */
function inlineSource(value: Record<string, unknown>, cwd: string): LoadedPlugin {
  const lp = settingsPlugin("config", "config", INLINE_CONFIG, value, { projectDir: cwd, rulesRoot: cwd });
  return { ...lp, root: cwd, manifestFile: undefined, source: { kind: "config", path: INLINE_CONFIG } };
}

function mergeConfig(a: HostConfig, b: HostConfig): HostConfig {
  const out: HostConfig = { ...a, ...b };
  if (a.plugins || b.plugins) out.plugins = [...(a.plugins ?? []), ...(b.plugins ?? [])];
  if (a.permissions || b.permissions) {
    const pa = a.permissions ?? {};
    const pb = b.permissions ?? {};
    // A list of the wrong type is its source's problem (the permissions plugin reports it), never a throw here.
    const list = (v: unknown): string[] => (Array.isArray(v) ? v : []);
    out.permissions = { ...pa, ...pb, allow: [...list(pa.allow), ...list(pb.allow)], ask: [...list(pa.ask), ...list(pb.ask)], deny: [...list(pa.deny), ...list(pb.deny)] };
  }
  return out;
}
