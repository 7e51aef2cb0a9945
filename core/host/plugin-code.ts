/**
 * Plugin code: inline plugin records, code stamps that tell when a plugin's code changed, and importing
 * `main` modules with jiti (bundled plugins cached; others fresh so edited code really runs).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createHash } from "node:crypto";
import { pathToFileURL } from "node:url";
import type { LoadedPlugin, PluginDefinition } from "../types.ts";
import { pluginVars, sanitizeId, toolhostHome } from "../manifest/paths.ts";
import { isPluginDefinition } from "../plugin.ts";
import { importFresh } from "../../lib/fresh-import.ts";
import { PACKAGE_ROOT } from "../manifest/sources.ts";

export function inlineRecord(def: PluginDefinition, cwd: string): LoadedPlugin {
  const dataDir = path.join(toolhostHome(), "plugins", "data", sanitizeId(def.name));
  return {
    id: def.name,
    kind: "inline",
    root: cwd,
    source: { kind: "inline", path: "" },
    manifest: { name: def.name },
    dataDir,
    env: pluginVars(cwd, dataDir, cwd),
    rulesRoot: cwd,
    components: { hooks: [], mcpServers: [], lspServers: [], tools: [] },
    problems: [],
    failed: false,
    order: 0,
  };
}

export function inlineDefs(defs: PluginDefinition[] | undefined): Map<string, PluginDefinition> {
  return new Map((defs ?? []).map((d) => [d.name, d]));
}

/** A stamp that changes when a plugin's code changes: bundled plugins never reload. */
export function stampOf(lp: LoadedPlugin): string {
  if (lp.kind === "inline") return "inline";
  if (lp.source.kind === "bundled") return `bundled:${lp.components.main?.file}`;
  return codeStamp(lp.root, lp.components.main?.file ?? "");
}

/**
 * A stamp of a plugin directory's code and JSON files (path, inode, mtime, size; node_modules and .git
 * skipped): it changes when any of them is edited, added, removed or replaced by an atomic save.
 */
export function codeStamp(root: string, salt = ""): string {
  const h = createHash("sha1");
  h.update(salt);
  walk(root, 0, (f, st) => h.update(`${f}:${st.ino}:${st.mtimeMs}:${st.size}\n`));
  return h.digest("hex");
}

function walk(dir: string, depth: number, fn: (f: string, st: fs.Stats) => void, budget = { n: 2000 }): void {
  if (depth > 6 || budget.n <= 0) return;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (e.name === "node_modules" || e.name === ".git") continue;
    const f = path.join(dir, e.name);
    if (e.isDirectory()) walk(f, depth + 1, fn, budget);
    else if (/\.(m|c)?(t|j)sx?$|\.json$/.test(e.name) && budget.n-- > 0) {
      try {
        fn(f, fs.statSync(f));
      } catch {}
    }
  }
}

export async function importPlugin(lp: LoadedPlugin): Promise<PluginDefinition | undefined> {
  const file = lp.components.main!.file;
  const bundled = lp.source.kind === "bundled";
  // Plugins keep jiti's default interop (`import x from "a-cjs-package"` works as in a bundler). Core itself is
  // loaded without it by the entry points (index.mjs, bin/): its per-call path reads no interop Proxy.
  // Not bundled: every module of the plugin's directory evaluated afresh, whatever its extension (lib/fresh-import.ts).
  const mod = (await importCached(file, { moduleCache: bundled, interopDefault: true }, bundled ? undefined : lp.root)) as Record<string, unknown>;
  const cand = [mod?.default, mod, ...Object.values(mod ?? {})];
  for (const c of cand) {
    if (isPluginDefinition(c)) return c;
    if (typeof c === "function" && c.length <= 1) {
      const r = (c as (o?: unknown) => unknown)(undefined);
      if (isPluginDefinition(r)) return r;
    }
  }
  return undefined;
}


let cacheDir: string | false | undefined;
const WRITE_ERRORS = new Set(["ENOSPC", "EDQUOT", "EROFS", "EACCES", "EPERM", "ENOTDIR", "EEXIST", "EISDIR", "ENOENT"]);

/**
 * jiti's transform cache (os.tmpdir()/jiti for this file), probed once; false when it cannot be written
 * (a full or read-only $TMPDIR): plugins then load without it, as bin/jiti-load.mjs does for core.
 */
function jitiCache(): string | false {
  if (cacheDir !== undefined) return cacheDir;
  const dir = path.join(os.tmpdir(), "jiti");
  try {
    fs.mkdirSync(dir, { recursive: true });
    const probe = path.join(dir, `.probe-${process.pid}`);
    try {
      fs.writeFileSync(probe, Buffer.alloc(16 * 1024));
    } finally {
      fs.rmSync(probe, { force: true });
    }
    return (cacheDir = dir);
  } catch (e) {
    return (cacheDir = cacheLost(dir, e));
  }
}

function cacheLost(dir: string, e: unknown): false {
  const g = globalThis as Record<symbol, unknown>;
  const key = Symbol.for("toolhost.jitiCacheWarned");
  if (!g[key]) process.stderr.write(`toolhost: the module cache ${dir} cannot be written (${(e as NodeJS.ErrnoException)?.code ?? String(e)}); loading without it (slower start-up)\n`);
  g[key] = true;
  return false;
}

/**
 * Import a TS/JS module with jiti (plugin `main` and `tools` modules), surviving a transform cache that
 * cannot be written: probed once, and a write that fails mid-load is retried without it (which stays off).
 */
export async function importCached(file: string, opts: { moduleCache: boolean; interopDefault: boolean }, freshRoot?: string): Promise<unknown> {
  // `import … from "toolhost"` (and toolhost/rules, /testing, /adapters) in a plugin module is the host's own copy,
  // wherever the plugin lives: a plugin outside any node_modules that holds toolhost still loads.
  const dist = distRegistry();
  const copy = dist?.modules[path.relative(PACKAGE_ROOT, file)];
  if (copy) return import(pathToFileURL(path.join(dist.dir, copy)).href);
  const o = { ...opts, alias: dist ? distAliases(dist) : { toolhost: PACKAGE_ROOT } };
  const { createJiti } = await import("jiti");
  const load = (fsCache: string | false) => (freshRoot ? importFresh(file, freshRoot, { ...o, fsCache }) : createJiti(import.meta.url, { ...o, fsCache }).import(file));
  const fsCache = jitiCache();
  try {
    return await load(fsCache);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (!fsCache || !WRITE_ERRORS.has(err?.code ?? "") || (typeof err.path === "string" && !err.path.startsWith(fsCache))) throw e;
    cacheDir = cacheLost(fsCache, e);
    return load(false);
  }
}

declare const __TOOLHOST_DIST__: boolean | undefined;
interface DistRegistry {
  dir: string;
  modules: Record<string, string>;
}

/**
 * When core itself runs from the start-up bundle (scripts/bundle.mjs defines __TOOLHOST_DIST__), what
 * bin/dist.mjs registered: the bundled modules by source path. From sources (jiti, vitest) undefined.
 */
function distRegistry(): DistRegistry | undefined {
  if (typeof __TOOLHOST_DIST__ === "undefined") return undefined;
  const d = (globalThis as Record<symbol, unknown>)[Symbol.for("toolhost.dist")] as Partial<DistRegistry> | undefined;
  return d?.dir ? (d as DistRegistry) : undefined;
}

/**
 * `toolhost` and its subpaths for a plugin jiti loads: the bundle's own modules (dist/shim/*.mjs, imported
 * natively), so the plugin and the host share one copy of core.
 */
function distAliases(dist: DistRegistry): Record<string, string> {
  const shim = (n: string) => path.join(dist.dir, "shim", `${n}.mjs`);
  return {
    "toolhost/manifest.schema.json": path.join(PACKAGE_ROOT, "manifest.schema.json"),
    "toolhost/package.json": path.join(PACKAGE_ROOT, "package.json"),
    "toolhost/rules": shim("rules"), "toolhost/adapters": shim("adapters"), "toolhost/testing": shim("testing"),
    toolhost: shim("index"),
  };
}
