/**
 * Whether file content is trusted: a file is **trusted** when its real path (symlinks resolved) is
 * inside the project directory, is not inside `node_modules/` or `.git/`, and is not ignored by the
 * project's `.gitignore` files (root and nested, down to the file) or `.git/info/exclude` (ignored files are typically dependencies, build
 * output, downloads and caches: content nobody on the team wrote). Files in toolhost's own output
 * directory (spilled tool output) are trusted too. Everything else is **untrusted**.
 */
import fs from "node:fs";
import path from "node:path";
import ignore, { type Ignore } from "ignore";
import { isInside } from "../../lib/fs-path.ts";

export interface TrustVerdict {
  path: string;
  trusted: boolean;
  why: string;
}

export class TrustChecker {
  private readonly root: string;
  private readonly extra: string[];
  constructor(cwd: string, trustedDirs: string[] = []) {
    this.root = real(cwd);
    this.extra = trustedDirs.map(real);
  }

  private readonly igs = new Map<string, Ignore | null>();

  /** The ignore rules of one directory's .gitignore (root: plus .git/info/exclude); null when none. */
  private rulesOf(dir: string): Ignore | null {
    let ig = this.igs.get(dir);
    if (ig === undefined) {
      const files = [path.join(dir, ".gitignore"), ...(dir === this.root ? [path.join(dir, ".git", "info", "exclude")] : [])];
      ig = null;
      for (const f of files) {
        try {
          (ig ??= ignore()).add(fs.readFileSync(f, "utf8"));
        } catch {}
      }
      this.igs.set(dir, ig);
    }
    return ig;
  }

  /** gitignore semantics per level: every .gitignore from the root down to the file's directory is consulted. */
  private ignored(rel: string): boolean {
    const parts = rel.split(path.sep);
    for (let i = 0; i < parts.length; i++) {
      const ig = this.rulesOf(path.join(this.root, ...parts.slice(0, i)));
      if (ig?.ignores(parts.slice(i).join("/"))) return true;
    }
    return false;
  }

  check(filePath: string): TrustVerdict {
    const abs = path.resolve(this.root, filePath);
    const r = real(abs);
    if (this.extra.some((d) => isInside(r, d))) return { path: abs, trusted: true, why: "toolhost output" };
    if (!isInside(r, this.root)) return { path: abs, trusted: false, why: r === abs ? "outside the project" : `symlink to ${r}, outside the project` };
    const rel = path.relative(this.root, r);
    if (!rel) return { path: abs, trusted: true, why: "project root" };
    const parts = rel.split(path.sep);
    if (parts.includes("node_modules")) return { path: abs, trusted: false, why: "inside node_modules" };
    if (parts[0] === ".git") return { path: abs, trusted: false, why: "inside .git" };
    if (this.ignored(rel)) return { path: abs, trusted: false, why: "ignored by .gitignore" };
    return { path: abs, trusted: true, why: "inside the project" };
  }
}

function real(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    // A missing file: resolve its nearest existing parent so symlinked dirs still count.
    const parent = path.dirname(p);
    return parent === p ? p : path.join(real(parent), path.basename(p));
  }
}
