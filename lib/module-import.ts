/**
 * Importing a TS/JS module the host does not bundle (plugin `main`, `tools` and `cliCommands` modules) with
 * jiti, surviving a transform cache that cannot be written, and giving the module the host's own copy of
 * `toolhost` — from the start-up bundle when core runs from it.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { importFresh } from "./fresh-import.ts";

/** The package's own directory (where package.json, manifests/ and dist/ are). */
export const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");


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
