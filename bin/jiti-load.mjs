// Import TypeScript through jiti when its on-disk transform cache cannot be written (a full, read-only or
// missing $TMPDIR, or node_modules/.cache): the cache is probed first and, if a write still fails while
// loading, the import is retried without it. Losing the cache only costs start-up time; it is said once
// on stderr. lib/module-import.ts does the same for plugin modules.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const WRITE_ERRORS = new Set(["ENOSPC", "EDQUOT", "EROFS", "EACCES", "EPERM", "ENOTDIR", "EEXIST", "EISDIR", "ENOENT"]);
const PROBE = Buffer.alloc(16 * 1024);
const WARNED = Symbol.for("toolhost.jitiCacheWarned");

/** Where jiti would cache transforms for a loader created at `from`, or false when it cannot be written. */
export function jitiCacheDir(from) {
  const file = from.startsWith("file:") ? fileURLToPath(from) : from;
  const nm = path.resolve(file, "../node_modules");
  const dir = fs.existsSync(nm) ? path.join(nm, ".cache", "jiti") : path.join(os.tmpdir(), "jiti");
  try {
    fs.mkdirSync(dir, { recursive: true });
    const probe = path.join(dir, `.probe-${process.pid}`);
    try {
      fs.writeFileSync(probe, PROBE);
    } finally {
      fs.rmSync(probe, { force: true });
    }
    return dir;
  } catch (e) {
    warnOnce(dir, e);
    return false;
  }
}

function warnOnce(dir, e) {
  if (globalThis[WARNED]) return;
  globalThis[WARNED] = true;
  process.stderr.write(`toolhost: the module cache ${dir} cannot be written (${e?.code ?? e?.message ?? e}); loading without it (slower start-up)\n`);
}

/** A write into the cache directory that failed (not an error of the module being loaded). */
function cacheWriteFailed(e, dir) {
  return !!e && WRITE_ERRORS.has(e.code) && (typeof e.path !== "string" || e.path.startsWith(dir));
}

/** `jiti.import(file)` with `opts`, surviving an unwritable cache. */
export async function importTs(from, file, opts = {}) {
  const { createJiti } = await import("jiti");
  const fsCache = jitiCacheDir(from);
  try {
    return await createJiti(from, { ...opts, fsCache }).import(file);
  } catch (e) {
    if (!fsCache || !cacheWriteFailed(e, fsCache)) throw e;
    warnOnce(fsCache, e);
    return createJiti(from, { ...opts, fsCache: false }).import(file);
  }
}
