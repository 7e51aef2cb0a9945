// The start-up bundle (scripts/bundle.mjs builds dist/): used while every source it was built from is
// unchanged; otherwise, or with TOOLHOST_DIST=0, or when dist/ is missing (`npm ci --ignore-scripts`), the
// entry points run the TypeScript sources through jiti as before. A source counts as unchanged when its size
// and mtime match the build's stamp or, if only the mtime moved (a checkout, an npm tarball), its sha1 does.
// Inside node_modules (an installed package) the bundle is trusted as built. The stamps are checked on the
// thread pool while the main thread loads the bundle, so a fresh bundle costs no wait for them.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const KEY = Symbol.for("toolhost.dist");

/** Why `stamp` no longer describes `file` (relative to root), or undefined when it still does. */
async function changed(root, f, [mtime, size, sha1]) {
  const file = path.join(root, f);
  const st = await fs.promises.stat(file).catch(() => undefined);
  if (!st) return `${f} is gone since dist/ was built`;
  if (st.size === size && (st.mtimeMs === mtime || createHash("sha1").update(await fs.promises.readFile(file)).digest("hex") === sha1)) return undefined;
  return `${f} changed since dist/ was built`;
}

/**
 * The bundle of the package at `root`: `{ dir, modules, fresh }` where modules maps a source path relative to
 * root to its file in dir and `fresh` resolves to undefined when every source matches, else to why not; or
 * `{ stale }` when there is no readable bundle.
 */
export function openDist(root) {
  const dir = path.join(root, "dist");
  let m;
  try {
    m = JSON.parse(fs.readFileSync(path.join(dir, "modules.json"), "utf8"));
  } catch (e) {
    return { stale: e?.code === "ENOENT" ? "dist/ is not built" : `dist/modules.json unreadable: ${e?.message ?? e}` };
  }
  const trusted = root.split(path.sep).includes("node_modules");
  const fresh = trusted ? Promise.resolve(undefined) : Promise.all(Object.entries(m.stamps ?? {}).map(([f, s]) => changed(root, f, s))).then((why) => why.find(Boolean));
  return { dir, modules: m.modules ?? {}, fresh };
}

/**
 * This package's bundle (opened once per process), or undefined with TOOLHOST_DIST=0 or none built. What it
 * leaves on globalThis[Symbol.for("toolhost.dist")] — the bundle, or `{ stale: why }` — is what core reads to
 * import bundled modules and what `toolhost doctor` reports.
 */
function thisDist() {
  if (globalThis[KEY] === undefined) globalThis[KEY] = process.env.TOOLHOST_DIST === "0" ? { stale: "TOOLHOST_DIST=0" } : openDist(ROOT);
  return globalThis[KEY].dir ? globalThis[KEY] : undefined;
}

/**
 * Import `source` (a path relative to the package root) from the bundle when it is fresh, else through
 * `fallback`. Once used, the bundle stays registered on globalThis for core (lib/module-import.ts).
 */
export async function importEntry(source, fallback) {
  const d = thisDist();
  const f = d?.modules[source];
  if (!f) return fallback();
  const [stale, mod] = await Promise.all([d.fresh, import(pathToFileURL(path.join(d.dir, f)).href).catch((error) => ({ error }))]);
  if (stale) {
    globalThis[KEY] = { stale };
    return fallback();
  }
  if (mod.error) throw mod.error;
  return mod;
}
