/** Whether a plugin directory's code changed since last time, without reading its files. */
import fs from "node:fs";
import path from "node:path";
import { createHash } from "node:crypto";

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
