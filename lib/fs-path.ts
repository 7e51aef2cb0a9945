/**
 * Path containment, one copy for the whole tree (core and every plugin). Both arguments must be
 * absolute and normalised (path.resolve'd): this is a string test, cheap enough for the per-call path.
 */
import fs from "node:fs";
import path from "node:path";

/** `p` is `dir` itself or below it. */
export function isInside(p: string, dir: string): boolean {
  if (p === dir) return true;
  return p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);
}

/**
 * Where `abs` really leads: its realpath, or — for a path that does not exist (yet) — the realpath of
 * its nearest existing parent joined with the rest. Other errors (EACCES, ELOOP) return `abs` as given.
 */
export function realpathLoose(abs: string): string {
  try {
    return fs.realpathSync.native(abs);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") return abs;
    const parent = path.dirname(abs);
    return parent === abs ? abs : path.join(realpathLoose(parent), path.basename(abs));
  }
}
