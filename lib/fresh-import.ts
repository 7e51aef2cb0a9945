/**
 * Importing a plugin's code so that an edit really runs, whatever the module's extension.
 *
 * jiti with `moduleCache: false` re-evaluates what it transpiles (.ts, .mts, .cts, ESM-syntax .js), but
 * it hands `.mjs`, `.cjs`, CommonJS `.js` and `.js` under `"type": "module"` to Node's own loaders, which
 * cache by path for the life of the process: such a module — or a helper it imports — kept its old code
 * after an edit, and the rebuild reported success. Here every module inside the plugin's directory (outside
 * its node_modules) goes through jiti's transpiling evaluator instead, so the whole graph is fresh; the
 * plugin's dependencies in node_modules still load natively (and cached). A reload that still returns the
 * export objects of the previous import is refused with an error, so a stale module is reported, never
 * silently kept.
 */
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { JitiOptions } from "jiti";

type JitiLike = { import(id: string): Promise<unknown>; evalModule(source: string, o: Record<string, unknown>): unknown };
type RawCreate = (id: string, opts: JitiOptions, hooks: Record<string, unknown>) => JitiLike;

const req = createRequire(import.meta.url);
let raw: { create: RawCreate; transform: (...a: unknown[]) => unknown } | undefined;

/** jiti's factory itself (its package entry passes these same loader hooks; we pass our own `nativeImport`). */
function jitiFactory(): NonNullable<typeof raw> {
  if (raw) return raw;
  const dist = path.join(path.dirname(req.resolve("jiti/package.json")), "dist");
  const create = req(path.join(dist, "jiti.cjs")) as RawCreate;
  let babel: ((...a: unknown[]) => unknown) | undefined;
  return (raw = { create, transform: (...a) => (babel ??= req(path.join(dist, "babel.cjs")) as (...a: unknown[]) => unknown)(...a) });
}

function ownFile(id: string, root: string): string | undefined {
  const p = id.startsWith("file:") ? fileURLToPath(id) : id;
  if (!path.isAbsolute(p)) return undefined;
  const rel = path.relative(root, p);
  if (!rel || rel.startsWith("..") || path.isAbsolute(rel) || rel.split(path.sep).includes("node_modules")) return undefined;
  return p;
}

/** CommonJS modules of the plugin that Node's require cached (a transpiled module may `require` a .cjs). */
function forgetRequired(root: string): void {
  for (const k of Object.keys(req.cache)) if (ownFile(k, root)) delete req.cache[k];
}

/** The export objects an import returned and the file's text, by file: an edited file whose import returns the same objects did not reload. */
const lastExports = new Map<string, { text: string; objects: Set<unknown> }>();

function exportObjects(mod: unknown): Set<unknown> {
  const out = new Set<unknown>();
  if (!mod || typeof mod !== "object") return out;
  for (const v of Object.values(mod as Record<string, unknown>)) if (v && (typeof v === "object" || typeof v === "function")) out.add(v);
  return out;
}

/**
 * Import `file` (inside the plugin directory `root`) with fresh copies of every module of that directory.
 * Throws when the module loader returned the previous import's exports (old code would keep running).
 */
export async function importFresh(file: string, root: string, opts: JitiOptions): Promise<Record<string, unknown>> {
  const { create, transform } = jitiFactory();
  forgetRequired(root);
  let jiti: JitiLike;
  const nativeImport = (id: string): Promise<unknown> => {
    const own = ownFile(id, root);
    if (!own) return import(id);
    return Promise.resolve(jiti.evalModule(fs.readFileSync(own, "utf8"), { id: own, filename: own, async: true, forceTranspile: true }));
  };
  jiti = create(file, { transform, ...opts, moduleCache: false } as JitiOptions, { onError: (e: unknown) => { throw e; }, nativeImport, createRequire });
  const text = fs.readFileSync(file, "utf8");
  const mod = (await jiti.import(file)) as Record<string, unknown>;
  // An editor's save (truncate, then write) can land between our read and jiti's: never pass that off as the file's code.
  if (fs.readFileSync(file, "utf8") !== text) throw new Error(`${file} changed while it was being loaded (being written?); the next rebuild loads it`);
  const now = { text, objects: exportObjects(mod) };
  const before = lastExports.get(file);
  lastExports.set(file, now);
  if (before && before.text !== text && now.objects.size && [...now.objects].every((v) => before.objects.has(v))) {
    throw new Error(`could not reload ${file}: the module loader returned the code loaded before (cached); the previous code keeps running`);
  }
  return mod;
}
