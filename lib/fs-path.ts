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
 * Resolve a component path inside `root`. Absolute paths, `..` escapes and symlinks whose target
 * is outside the root are refused.
 */
export function resolveInside(root: string, rel: string): { path?: string; error?: string } {
  if (path.isAbsolute(rel)) return { error: `absolute path "${rel}" is not allowed; use a path relative to the plugin root ("./…")` };
  const abs = path.resolve(root, rel);
  if (!isInside(abs, root)) return { error: `path "${rel}" escapes the plugin root ${root}` };
  if (fs.existsSync(abs)) {
    let realRoot = root;
    try {
      realRoot = fs.realpathSync(root);
    } catch {}
    const real = fs.realpathSync(abs);
    if (!isInside(real, realRoot)) return { error: `path "${rel}" is a symlink to ${real}, outside the plugin root` };
  }
  return { path: abs };
}

/**
 * Where `abs` really leads: its realpath, or — for a path that does not exist (yet) — the realpath of
 * its nearest existing parent joined with the rest. A dangling symbolic link leads where it points (a
 * write through it creates its target: `echo x > dangling` writes into the link's target directory).
 * Other errors (EACCES, ELOOP) return `abs` as given.
 */
export function realpathLoose(abs: string, hops = 0): string {
  if (memo) {
    const hit = memo.get(abs);
    if (hit !== undefined) return hit;
    const out = realpathUncached(abs, hops);
    memo.set(abs, out);
    return out;
  }
  return realpathUncached(abs, hops);
}

let memo: Map<string, string> | undefined;
/**
 * Run `fn` with realpaths remembered for its duration only (one permission check resolves the working
 * directory and the same operands many times; the filesystem does not change within it).
 */
export function withRealpathMemo<T>(fn: () => T): T {
  if (memo) return fn();
  memo = new Map();
  try {
    return fn();
  } finally {
    memo = undefined;
  }
}

function realpathUncached(abs: string, hops: number): string {
  let code: string | undefined;
  try {
    // A path that is not there (a new file, an operand that is no file) costs an exception from realpath;
    // existsSync and lstat say so without one (lstat fails with ENOENT exactly when realpath would).
    if (fs.existsSync(abs) || fs.lstatSync(abs, { throwIfNoEntry: false })) return fs.realpathSync.native(abs);
    code = "ENOENT";
  } catch (e) {
    code = (e as NodeJS.ErrnoException).code;
  }
  if (code !== "ENOENT" && code !== "ENOTDIR") return abs;
  const parent = path.dirname(abs);
  if (parent === abs) return abs;
  const dir = realpathLoose(parent, hops);
  const here = path.join(dir, path.basename(abs));
  if (code === "ENOENT" && hops < 32) {
    try {
      if (fs.lstatSync(here, { throwIfNoEntry: false })?.isSymbolicLink()) return realpathLoose(path.resolve(dir, fs.readlinkSync(here)), hops + 1);
    } catch {
      /* not there at all */
    }
  }
  return here;
}

/**
 * `p` is inside `dir` both as written and where it really leads (symlinks resolved, on both sides):
 * a link inside the project that points out of it is outside the project.
 */
export function isInsideReal(p: string, dir: string): boolean {
  const r = realpathLoose(p);
  // the common case, one realpath: no link on the way, inside as written
  if (r === p && isInside(p, dir)) return true;
  const realDir = realpathLoose(dir);
  return (isInside(p, dir) || isInside(p, realDir)) && (isInside(r, dir) || isInside(r, realDir));
}

/** MCP tools whose name says they return local file content (the filesystem server's read_file, read_text_file, read_multiple_files …). */
const MCP_FILE_READ = /(read|get|head|tail|cat|view|open|list|search|directory|tree).*(file|dir)|file.*(content|text|info)|^(list_directory|directory_tree|search_files)/i;
/** Inputs that name a remote file (GitHub's get_file_contents {owner, repo, path}): not a local path. */
const REMOTE_KEYS = ["owner", "repo", "repository", "url", "uri", "bucket", "project"];

/**
 * The local paths an MCP filesystem-kind call reads or lists (`mcp__fs__read_file {path}`,
 * `read_multiple_files {paths}`, `list_directory {path}`), absolute; undefined for any other tool. Read
 * deny rules and the trust header apply to these like to Read's `file_path`.
 */
export function mcpFilePaths(toolName: string, input: unknown, cwd: string): string[] | undefined {
  const m = /^mcp__.+?__(.+)$/.exec(toolName);
  if (!m || !MCP_FILE_READ.test(m[1]!) || !input || typeof input !== "object") return undefined;
  const inp = input as Record<string, unknown>;
  if (REMOTE_KEYS.some((k) => inp[k] !== undefined)) return undefined;
  const ps = [inp.path, inp.file_path, inp.filePath, ...(Array.isArray(inp.paths) ? inp.paths : [])].filter((p): p is string => typeof p === "string" && !!p);
  return ps.length ? ps.map((p) => path.resolve(cwd, p)) : undefined;
}

/** The MCP tools of {@link mcpFilePaths} that return file content (not listings). */
export function mcpReturnsContent(toolName: string): boolean {
  return /__(?:.*(read|get|head|tail|cat|view|open).*file|.*file.*(content|text))/i.test(toolName) && !/list|tree|search|info/i.test(toolName);
}
