/**
 * Read/Edit path rules with gitignore semantics (../shared/formats.md §4.4):
 *   `//abs` filesystem root · `~/x` home · `/x` the rules' source root · `x`, `./x` the working directory.
 * A pattern without a slash (other than a trailing one) matches at any depth; a single-segment
 * `dir/**` is anchored for allow but any-depth for deny/ask; a pattern that matches a directory
 * matches everything inside it. Paths are normalised (`a/../b`) and symlinks resolved: deny hits
 * when the link or its target matches, allow needs both.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { isInside, realpathLoose } from "../fs-path.ts";

export { isInside, realpathLoose } from "../fs-path.ts";

export type Behavior = "allow" | "deny" | "ask";

export interface PathMatcher {
  /**
   * Test an absolute, normalised path. `fold`: compare case-insensitively (`permissions.caseInsensitivePaths`);
   * a rule anchored on a case-insensitive filesystem always does.
   */
  test(abs: string, fold?: boolean): boolean;
  /** The regex source it tests with (prefilters build one union of many: lib/rules/prefilter.ts). */
  source?: string;
}

/** A resolved path: as written (normalised) and with symlinks resolved. */
export interface ResolvedPath {
  abs: string;
  real: string;
  /** Match rules against it case-insensitively (the `permissions.caseInsensitivePaths` option). */
  fold?: boolean;
}

/** Kept for API stability: there is no realpath cache to clear. */
export function clearRealpathCache(): void {}

export function expandHome(p: string): string {
  if (p === "~") return os.homedir();
  if (p.startsWith("~/")) return path.join(os.homedir(), p.slice(2));
  return p;
}

export function resolvePath(p: string, base: string): ResolvedPath {
  const e = expandHome(p);
  const abs = path.resolve(base, e);
  // `link/..` is the parent of the link's *target* for the kernel (and so for a shell's `cat`), not `.`
  const real = /(^|[\\/])\.\.([\\/]|$)/.test(e) ? physical(path.isAbsolute(e) ? "/" : base, e) : realpathLoose(abs);
  return { abs, real };
}

/** Resolve `rel` from `base` one part at a time, as the kernel does: `..` goes up from where a link led. */
function physical(base: string, rel: string): string {
  let cur = base;
  for (const seg of rel.split(/[\\/]+/)) {
    if (!seg || seg === ".") continue;
    cur = seg === ".." ? path.dirname(realpathLoose(cur)) : path.join(cur, seg);
  }
  return realpathLoose(cur);
}

/** Inside one of the working directories (link and target both). */
export function insideDirs(p: ResolvedPath, dirs: readonly string[]): boolean {
  const ok = (x: string) => dirs.some((d) => isInside(x, d) || isInside(x, realpathLoose(d)));
  return ok(p.abs) && ok(p.real);
}

/**
 * Compile a path specifier. `cwd` anchors relative patterns, `root` anchors `/x` patterns.
 * Throws on an empty specifier.
 */
export function compilePathPattern(spec: string, opts: { cwd: string; root: string; behavior: Behavior }): PathMatcher {
  let s = spec.trim();
  if (!s) throw new Error("empty path pattern");
  let base: string;
  let anchored = true;
  if (s.startsWith("//")) {
    base = "/";
    s = s.slice(2);
  } else if (s === "~" || s.startsWith("~/")) {
    base = os.homedir();
    s = s.slice(2);
  } else if (s.startsWith("/")) {
    base = opts.root;
    s = s.slice(1);
  } else {
    base = opts.cwd;
    if (s.startsWith("./")) s = s.slice(2);
    const trimmed = s.replace(/\/+$/, "");
    const single = /^[^/]+\/\*\*$/.test(s);
    if (!trimmed.includes("/")) anchored = false;
    else if (single && opts.behavior !== "allow") anchored = false;
  }
  s = s.replace(/\/+$/, "");
  const globs: string[] = [];
  const bases = new Set([base, realpathLoose(base)]);
  for (const b of bases) {
    const prefix = escapeGlob(toPosix(b).replace(/\/$/, ""));
    const rel = s === "" ? "**" : s;
    globs.push(anchored ? `${prefix}/${rel}` : `${prefix}/**/${rel}`);
  }
  // gitignore: a match on a directory covers everything inside it.
  const all = globs.flatMap((g) => (g.endsWith("/**") ? [g] : [g, `${g}/**`]));
  // One small regex for all variants (picomatch's are general and several times slower per test).
  const src = `^(?:${all.map(globSource).join("|")})$`;
  const re = new RegExp(src);
  // A case-insensitive filesystem (macOS, Windows by default): `.ENV` is `.env`, `SECRETS/` is `secrets/`.
  let folded: RegExp | undefined = [...bases].some((b) => caseInsensitiveAt(b)) ? new RegExp(src, "i") : undefined;
  const always = folded;
  return {
    source: src,
    test: (abs, fold) => {
      if (always) return always.test(toPosix(abs));
      if (fold) return (folded ??= new RegExp(src, "i")).test(toPosix(abs));
      return re.test(toPosix(abs));
    },
  };
}

const caseCache = new Map<string, boolean>();
type StatLike = (p: string) => { dev: number; ino: number } | undefined;
const statOf: StatLike = (p) => {
  try {
    const st = fs.statSync(p);
    return { dev: st.dev, ino: st.ino };
  } catch {
    return undefined;
  }
};

/**
 * Is the filesystem holding `dir` case-insensitive? Detected once per directory: the nearest existing
 * path with a letter in its last part (`dir` or an ancestor, else an entry of the root) is stat'ed with
 * that part's case flipped; the same file under both spellings means case-insensitive.
 */
export function caseInsensitiveAt(dir: string, stat: StatLike = statOf, list: (d: string) => string[] = safeList): boolean {
  const hit = stat === statOf ? caseCache.get(dir) : undefined;
  if (hit !== undefined) return hit;
  let probe: string | undefined;
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    if (/[a-z]/i.test(path.basename(d)) && stat(d)) {
      probe = d;
      break;
    }
    if (path.dirname(d) === d) {
      const name = list(d).find((n) => /[a-z]/i.test(n));
      probe = name ? path.join(d, name) : undefined;
      break;
    }
  }
  let out = false;
  if (probe) {
    const b = path.basename(probe);
    const flipped = path.join(path.dirname(probe), [...b].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join(""));
    const a = stat(probe);
    const f = stat(flipped);
    out = !!a && !!f && a.dev === f.dev && a.ino === f.ino;
  }
  if (stat === statOf) {
    if (caseCache.size > 1000) caseCache.clear();
    caseCache.set(dir, out);
  }
  return out;
}

function safeList(d: string): string[] {
  try {
    return fs.readdirSync(d);
  } catch {
    return [];
  }
}

/**
 * gitignore-style glob → regex source: `**` any depth (zero or more segments), `*` and `?` within one
 * segment (dotfiles included), `[...]` classes, `{a,b}` alternatives, `\\x` a literal x.
 */
export function globSource(glob: string): string {
  const g = glob.replace(/(^|\/)\*\*(?:\/\*\*)+(?=\/|$)/g, "$1**"); // `**/**` ≡ `**`
  let out = "";
  for (let i = 0; i < g.length; i++) {
    const c = g[i]!;
    if (c === "\\" && i + 1 < g.length) {
      out += escapeRe(g[++i]!);
    } else if (c === "*" && g[i + 1] === "*") {
      const slashBefore = i === 0 || g[i - 1] === "/";
      const slashAfter = g[i + 2] === "/";
      if (slashBefore && slashAfter) {
        out += "(?:.*/)?"; // `**/`: zero or more whole segments
        i += 2;
      } else if (slashBefore && i + 2 === g.length) {
        if (out.endsWith("/")) out = `${out.slice(0, -1)}(?:/.*)?`;
        else out += ".*";
        i += 1;
      } else {
        out += ".*";
        i += 1;
      }
    } else if (c === "*") out += "[^/]*";
    else if (c === "?") out += "[^/]";
    else if (c === "[") {
      const end = g.indexOf("]", i + 2);
      if (end < 0) out += "\\[";
      else {
        const body = g.slice(i + 1, end).replace(/^!/, "^").replace(/\\/g, "\\\\");
        out += `[${body}]`;
        i = end;
      }
    } else if (c === "{") {
      const end = g.indexOf("}", i);
      const body = end > 0 ? g.slice(i + 1, end) : "";
      if (end < 0 || !body.includes(",")) out += "\\{";
      else {
        out += `(?:${body.split(",").map(globSource).join("|")})`;
        i = end;
      }
    } else out += escapeRe(c);
  }
  return out;
}

function escapeRe(c: string): string {
  return c.replace(/[.+?^${}()|[\]\\*]/g, "\\$&");
}

function toPosix(p: string): string {
  return path.sep === "/" ? p : p.split(path.sep).join("/");
}

/** Directory names from the filesystem may contain glob characters; only the rule's own text is a pattern. */
function escapeGlob(p: string): string {
  return p.replace(/[*?[\]{}()!+@\\]/g, "\\$&");
}

/** Deny/ask: the link or its target. Allow: both. */
export function pathHits(m: PathMatcher, p: ResolvedPath, behavior: Behavior): boolean {
  const a = m.test(p.abs, p.fold);
  if (p.real === p.abs) return a;
  const b = m.test(p.real, p.fold);
  return behavior === "allow" ? a && b : a || b;
}

const PROTECTED_DIRS = [".git", ".vscode", ".idea", ".husky", ".cargo", ".devcontainer", ".yarn", ".mvn", ".claude"];
const PROTECTED_FILES = new Set([
  ".gitconfig",
  ".gitmodules",
  ".gitattributes",
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".zshrc",
  ".zprofile",
  ".zshenv",
  ".zlogin",
  ".profile",
  ".envrc",
  ".npmrc",
  ".yarnrc",
  ".yarnrc.yml",
  ".pre-commit-config.yaml",
  ".mcp.json",
  ".claude.json",
]);

/** Writes here are never auto-approved (allow rules and acceptEdits included); only bypassPermissions skips the prompt. */
export function protectedReason(p: ResolvedPath): string | undefined {
  const fold = p.fold || caseInsensitiveAt(path.dirname(p.abs));
  for (const x of [p.abs, p.real]) {
    const parts = toPosix(fold ? x.toLowerCase() : x).split("/");
    for (let i = 0; i < parts.length; i++) {
      const seg = parts[i]!;
      if (seg === ".claude" && parts[i + 1] === "worktrees") break;
      if (PROTECTED_DIRS.includes(seg) && i < parts.length - 1) return `${seg}/ is a protected directory`;
      if (PROTECTED_DIRS.includes(seg) && i === parts.length - 1) return `${seg} is a protected directory`;
      if (seg === ".config" && parts[i + 1] === "git") return ".config/git is a protected directory";
    }
    const name = parts[parts.length - 1]!;
    if (PROTECTED_FILES.has(name)) return `${name} is a protected file`;
  }
  return undefined;
}

/**
 * The first symbolic link under `root` (a bounded walk: `limit` entries, node_modules and .git skipped) whose
 * real path is outside every one of `dirs` — what a link-following recursive search (`grep -R`, `rg -L`) would
 * read outside the project. `root` itself when the walk could not finish within the limit; undefined when none.
 */
export function linkOutOf(root: string, dirs: readonly string[], limit = 5000): string | undefined {
  const inside = (p: string) => dirs.some((d) => isInside(p, d) || isInside(p, realpathLoose(d)));
  const stack = [root];
  let seen = 0;
  while (stack.length) {
    const dir = stack.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (++seen > limit) return root;
      const abs = path.join(dir, e.name);
      if (e.isSymbolicLink()) {
        if (!inside(realpathLoose(abs))) return abs;
      } else if (e.isDirectory() && e.name !== "node_modules" && e.name !== ".git") stack.push(abs);
    }
  }
  return undefined;
}
