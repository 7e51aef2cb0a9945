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
import picomatch from "picomatch";

export type Behavior = "allow" | "deny" | "ask";

export interface PathMatcher {
  /** Test an absolute, normalised path. */
  test(abs: string): boolean;
}

/** A resolved path: as written (normalised) and with symlinks resolved. */
export interface ResolvedPath {
  abs: string;
  real: string;
}

const realCache = new Map<string, string>();

/** `realpath` of the longest existing prefix, with the rest appended (so new files resolve too). */
export function realpathLoose(abs: string): string {
  const hit = realCache.get(abs);
  if (hit !== undefined) return hit;
  let out: string;
  try {
    out = fs.realpathSync.native(abs);
  } catch {
    const parent = path.dirname(abs);
    out = parent === abs ? abs : path.join(realpathLoose(parent), path.basename(abs));
  }
  if (realCache.size > 5000) realCache.clear();
  realCache.set(abs, out);
  return out;
}

/** Forget cached realpaths (tests that create symlinks after a lookup). */
export function clearRealpathCache(): void {
  realCache.clear();
}

export function expandHome(p: string): string {
  if (p === "~") return os.homedir();
  if (p.startsWith("~/")) return path.join(os.homedir(), p.slice(2));
  return p;
}

export function resolvePath(p: string, base: string): ResolvedPath {
  const abs = path.resolve(base, expandHome(p));
  return { abs, real: realpathLoose(abs) };
}

export function isInside(abs: string, dir: string): boolean {
  if (abs === dir) return true;
  const d = dir.endsWith(path.sep) ? dir : dir + path.sep;
  return abs.startsWith(d);
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
  const m = picomatch(all, { dot: true });
  return { test: (abs) => m(toPosix(abs)) };
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
  const a = m.test(p.abs);
  if (p.real === p.abs) return a;
  const b = m.test(p.real);
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
  for (const x of [p.abs, p.real]) {
    const parts = toPosix(x).split("/");
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
