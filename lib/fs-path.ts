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
 * its nearest existing parent joined with the rest. A dangling symbolic link leads where it points (a
 * write through it creates its target: `echo x > dangling` writes into the link's target directory).
 * Other errors (EACCES, ELOOP) return `abs` as given.
 */
export function realpathLoose(abs: string, hops = 0): string {
  try {
    return fs.realpathSync.native(abs);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") return abs;
    const parent = path.dirname(abs);
    if (parent === abs) return abs;
    const dir = realpathLoose(parent, hops);
    const here = path.join(dir, path.basename(abs));
    if (code === "ENOENT" && hops < 32) {
      try {
        if (fs.lstatSync(here).isSymbolicLink()) return realpathLoose(path.resolve(dir, fs.readlinkSync(here)), hops + 1);
      } catch {
        /* not there at all */
      }
    }
    return here;
  }
}

/**
 * `p` is inside `dir` both as written and where it really leads (symlinks resolved, on both sides):
 * a link inside the project that points out of it is outside the project.
 */
export function isInsideReal(p: string, dir: string): boolean {
  if (!isInside(p, dir) && !isInside(p, realpathLoose(dir))) return false;
  const r = realpathLoose(p);
  return r === p ? true : isInside(r, dir) || isInside(r, realpathLoose(dir));
}
