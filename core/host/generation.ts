/**
 * The steps of one rebuild before its Build exists: the generation's bookkeeping, reading the
 * configuration and plugin sources, loading manifests, and checking the config keys plugins own.
 */
import fs from "node:fs";
import path from "node:path";
import type { ProblemReport } from "../errors.ts";
import type { HostConfig, LoadedPlugin, ModeChoice, RebuildInfo } from "../types.ts";
import { loadConfig, type ConfigResult } from "../manifest/config.ts";
import { loadPlugin } from "../manifest/load.ts";
import { configSchema } from "../manifest/schema.ts";
import { validatorFor } from "../../lib/validators.ts";
import { ajvProblems } from "../../lib/schema-errors.ts";
import { bundledRank, dedupeSources, initialSources } from "../manifest/sources.ts";
import { suggest } from "../../lib/text.ts";
import { problemKey } from "./activate.ts";
import { inlineRecord } from "./plugin-code.ts";
import type { HostState } from "./state.ts";

export class Generation {
  readonly number: number;
  readonly info: RebuildInfo;
  readonly problems: ProblemReport[] = [];
  /** Errors the last good generation already had: they do not fail this one. */
  readonly known: Set<string>;
  /** Problems of plugin directories that are gone: removed, not broken. */
  readonly removed = new Set<ProblemReport>();
  buildFailures: ProblemReport[] = [];
  private readonly t0 = performance.now();
  constructor(h: HostState, readonly reason: string) {
    this.number = ++h.generation;
    this.info = { reason, generation: this.number };
    this.known = new Set(h.loadProblems.filter((p) => p.severity === "error").map(problemKey));
    h.hooks.rebuildStart.call(this.info);
  }
  /** Errors this generation brings that the last good one did not have. */
  fresh(): ProblemReport[] {
    return this.problems.filter((p) => p.severity === "error" && !this.known.has(problemKey(p)) && !this.removed.has(p));
  }
  ms(): number {
    return performance.now() - this.t0;
  }
}

/**
 * Before the first generation reads anything else: the bundled plugins are the host's own code, so they
 * are active first and their host.discover / manifest hooks govern the first generation too (the trust
 * plugin keeps a repository's toolhost config from loading plugin code before the workspace is trusted).
 * The generation's own activation then finds them active with the same stamp and keeps them.
 */
export async function activateBundled(h: HostState, gen: Generation): Promise<void> {
  if (h.current || h.options.bundled === false) return;
  const opts = { projectDir: h.cwd, dataHome: h.options.dataHome as string | undefined };
  const bundled = initialSources({ cwd: h.cwd }, {}, undefined, []).map((s) => loadPlugin(s, opts)).filter((lp) => !lp.failed);
  // failures are reported by the generation's own activation, once
  await h.activator.sync(bundled, [], new Map(), gen.known, false);
}

export async function readConfiguration(h: HostState, gen: Generation): Promise<ConfigResult> {
  const cfg = await loadConfig({ cwd: h.cwd, configFile: h.options.configFile, inline: h.options.config });
  gen.problems.push(...cfg.problems);
  h.watchedFiles = cfg.watched;
  const sources = await h.hooks.discover.promise(initialSources({ ...h.options, cwd: h.cwd }, cfg.config, cfg.file, gen.problems, h.options.config));
  h.sources = dedupeSources(sources);
  return cfg;
}

/**
 * host.settings (the claude-settings plugin: .claude/settings*.json, .mcp.json): their pseudo-plugins join
 * this generation's plugins, then the permission mode is chosen from every place that sets one.
 */
export async function readSettings(h: HostState, gen: Generation, cfg: ConfigResult, plugins: LoadedPlugin[]): Promise<void> {
  const places = [...cfg.modePlaces];
  const added: LoadedPlugin[] = [];
  await h.hooks.settings.promise({
    cwd: h.cwd,
    config: cfg.config,
    add: (lp) => void added.push(lp),
    mode: (place) => void places.push(place),
    watch: (file) => void h.watchedFiles.push(file),
    problem: (p) => void gen.problems.push(p),
  });
  for (const lp of added) {
    validated(h, lp);
    gen.problems.push(...lp.problems);
    if (!lp.failed) plugins.push(lp);
  }
  plugins.sort(byLoadOrder);
  const requested = h.current ? undefined : h.options.mode;
  chooseHostMode(h, gen, h.hooks.chooseMode.call({}, { places, requested, problem: (p) => void gen.problems.push(p) }));
}

/** The mode is chosen once, at the first build: createHost/--mode, else what host.chooseMode says; a locked mode falls back to default. */
function chooseHostMode(h: HostState, gen: Generation, choice: ModeChoice): void {
  h.modeLocks = choice.locks ?? [];
  if (!h.current) {
    const opt = h.options.mode;
    h.modeSource = opt ? { mode: opt, source: "option" } : (choice.defaultMode ?? { mode: "default", source: "default" });
    h.mode = h.modeSource.mode;
  }
  const lock = h.modeLocks.find((l) => l.mode === h.mode);
  if (lock) {
    gen.problems.push({ plugin: lock.plugin, file: lock.file, path: lock.path, message: `${lock.mode} mode is disabled here (${lock.reason}); running in default mode instead`, severity: "warning" });
    h.mode = "default";
    h.modeSource = { mode: "default", source: lock.plugin, file: lock.file, path: lock.path };
  }
}

export function loadManifests(h: HostState, gen: Generation, cfg: ConfigResult): LoadedPlugin[] {
  const loaded: LoadedPlugin[] = cfg.sources.filter((lp) => {
    gen.problems.push(...validated(h, lp)); // the rest of its problems came with the config
    return !lp.failed;
  });
  const seen = new Map<string, LoadedPlugin>();
  for (const s of h.sources) {
    if (!s.path) continue;
    const lp = loadPlugin(s, { projectDir: h.cwd, dataHome: h.options.dataHome as string | undefined });
    h.hooks.manifestLoaded.call(lp);
    validated(h, lp);
    gen.problems.push(...lp.problems);
    if (lp.failed && !fs.existsSync(path.resolve(h.cwd, s.path))) for (const p of lp.problems) gen.removed.add(p);
    if (lp.failed) h.hooks.activateFailed.call(lp, lp.problems.find((p) => p.severity === "error")!);
    else if (!cfg.config.disabledPlugins?.includes(lp.id)) admit(h, gen, lp, seen, loaded);
  }
  for (const def of h.options.plugins ?? []) loaded.push(inlineRecord(def, h.cwd));
  return loaded.sort(byLoadOrder);
}

/** Plugins' checks of a loaded manifest or settings source (host.validateManifest): added to its problems; an error fails it. */
function validated(h: HostState, lp: LoadedPlugin): ProblemReport[] {
  const more = h.hooks.validateManifest.call([], lp);
  lp.problems.push(...more);
  lp.failed = lp.failed || more.some((p) => p.severity === "error");
  return more;
}

/** Manifest `order`, then the bundled list's order, then id. */
function byLoadOrder(a: LoadedPlugin, b: LoadedPlugin): number {
  const rank = (lp: LoadedPlugin) => (lp.source.kind === "bundled" ? bundledRank(lp.source.path) : Infinity);
  return a.order - b.order || rank(a) - rank(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** One plugin per name: a second copy is refused, naming both files. */
function admit(h: HostState, gen: Generation, lp: LoadedPlugin, seen: Map<string, LoadedPlugin>, loaded: LoadedPlugin[]): void {
  const dup = seen.get(lp.id);
  if (!dup) {
    seen.set(lp.id, lp);
    loaded.push(lp);
    return;
  }
  const pr: ProblemReport = { plugin: lp.id, file: lp.manifestFile ?? lp.root, path: "/name", message: `duplicate plugin name "${lp.id}": already loaded from ${dup.manifestFile ?? dup.root}; this copy is ignored`, severity: "error" };
  gen.problems.push(pr);
  h.hooks.activateFailed.call(lp, pr);
}

/** After activation: each config key against the schema its plugin contributed; keys nobody owns warn. */
export function checkContributedConfig(h: HostState, gen: Generation, cfg: ConfigResult): void {
  const config: HostConfig = cfg.config;
  const file = cfg.file ?? path.join(h.cwd, "toolhost.config.json");
  const base = cfg.file && path.basename(cfg.file) === "package.json" ? "/toolhost" : "";
  const owned = new Map<string, object>();
  for (const [k, c] of h.activator.configKeys) owned.set(k, c.value);
  const known = new Set([...Object.keys(configSchema.properties), ...owned.keys()]);
  for (const [key, value] of Object.entries(config)) {
    const schema = owned.get(key);
    if (schema) {
      const validate = validatorFor(schema);
      if (!validate(value)) gen.problems.push(...ajvProblems(validate.errors, "config", file, `${base}/${key}`));
    } else if (!known.has(key)) {
      gen.problems.push({ plugin: "config", file, path: `${base}/${key}`, message: `unknown config key "${key}" is ignored${suggest(key, known)}`, severity: "warning" });
    }
  }
}
