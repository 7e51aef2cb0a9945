/**
 * The directory walker Glob and Grep share. It applies .gitignore (and .ignore) files at every level
 * the way git does (patterns relative to the directory holding the file, deeper files win), prunes
 * ignored directories before descending, and always skips VCS and dependency directories.
 *
 * Why our own walker rather than tinyglobby/fdir: neither applies nested .gitignore files, and
 * filtering ignored paths after a full crawl would still walk node_modules and build output, which
 * is where the time goes. readdir with file types plus `ignore` per directory is all it takes.
 */
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import type { Ignore, Options as IgnoreOptions } from "ignore";
import { isInside, realpathLoose } from "../../lib/fs-path.ts";

const ignore = createRequire(import.meta.url)("ignore") as (options?: IgnoreOptions) => Ignore;

export const ALWAYS_SKIP = new Set([".git", "node_modules", ".hg", ".svn", ".jj", ".sl"]);

export interface WalkOptions {
  /** Honour .gitignore / .ignore files (default true). */
  gitignore?: boolean;
  /** Return false to skip a directory (relative path from the root, "/"-separated). */
  enterDir?: (rel: string, depth: number) => boolean;
  signal?: AbortSignal;
  /** Cheap file filter applied before the (costlier) ignore check; files it rejects are never yielded. */
  acceptFile?: (rel: string) => boolean;
  /**
   * Files that must not be yielded at all (Read deny rules: `ctx.readFilter()`), tested after the other
   * filters. `real` is the link target's real path when the entry is a symbolic link, so a link to a
   * denied file is skipped too. Return a reason to skip; `onSkip` hears about each skipped file.
   */
  denyFile?: (abs: string, real: string | undefined) => string | undefined;
  onSkip?: (abs: string, reason: string) => void;
  /**
   * A symbolic link to a file whose real path is outside every one of these directories is not yielded
   * (a link in the project to ~/.ssh/id_rsa is outside the project: Read it by path, which asks).
   * `onOutside` hears about each.
   */
  within?: readonly string[];
  onOutside?: (abs: string, real: string) => void;
}

interface Layer {
  dir: string; // absolute directory of the ignore file(s)
  ig: Ignore;
  /**
   * When no pattern contains a "/" (other than a trailing one) the verdict depends only on the entry's
   * name and kind, so it is cached per name: a Map lookup instead of a ~3 µs `ignore` test per file.
   */
  byName?: Map<string, { ignored: boolean; unignored: boolean }>;
}

function loadIgnore(dir: string): Omit<Layer, "dir"> | undefined {
  let ig: Ignore | undefined;
  let nameOnly = true;
  for (const name of [".gitignore", ".ignore"]) {
    let text: string;
    try {
      text = fs.readFileSync(path.join(dir, name), "utf8");
    } catch {
      continue;
    }
    (ig ??= ignore({ allowRelativePaths: true })).add(text);
    for (const raw of text.split(/\r?\n/)) {
      const l = raw.trim();
      if (!l || l.startsWith("#")) continue;
      if (l.replace(/^!/, "").replace(/\/+$/, "").includes("/")) nameOnly = false;
    }
  }
  return ig ? { ig, byName: nameOnly ? new Map() : undefined } : undefined;
}

/** The ignore layers that apply to `root` from its ancestors (up to the enclosing git repository). */
function ancestorLayers(root: string): Layer[] {
  const layers: Layer[] = [];
  let d = path.dirname(root);
  const chain: string[] = [];
  while (true) {
    chain.push(d);
    if (fs.existsSync(path.join(d, ".git")) || path.dirname(d) === d) break;
    d = path.dirname(d);
  }
  // only inside a git repository do ancestors' .gitignore files apply
  if (!fs.existsSync(path.join(chain[chain.length - 1]!, ".git"))) return layers;
  for (const dir of chain.reverse()) {
    const ig = loadIgnore(dir);
    if (ig) layers.push({ dir, ...ig });
  }
  return layers;
}

function ignored(layers: Layer[], abs: string, isDir: boolean): boolean {
  let verdict = false;
  for (const l of layers) {
    // abs is always below l.dir here (layers come from ancestors): slice instead of path.relative
    if (abs.length <= l.dir.length + 1 || !abs.startsWith(l.dir)) continue;
    let rel = abs.slice(l.dir.length + (l.dir.endsWith(path.sep) ? 0 : 1));
    if (path.sep !== "/") rel = rel.split(path.sep).join("/");
    let r: { ignored: boolean; unignored: boolean };
    if (l.byName) {
      const key = (isDir ? "d:" : "f:") + rel.slice(rel.lastIndexOf("/") + 1);
      let hit = l.byName.get(key);
      if (!hit) l.byName.set(key, (hit = l.ig.test(isDir ? key.slice(2) + "/" : key.slice(2))));
      r = hit;
    } else r = l.ig.test(isDir ? rel + "/" : rel);
    if (r.ignored) verdict = true;
    else if (r.unignored) verdict = false;
  }
  return verdict;
}

export interface WalkEntry {
  abs: string;
  /** Relative to the walk root, "/"-separated. */
  rel: string;
}

/**
 * Yield every non-ignored file under root (depth first, directory entries in name order).
 * Yields to the event loop every few hundred directories so aborts and timers still fire.
 */
export async function* walkFiles(root: string, opts: WalkOptions = {}): AsyncGenerator<WalkEntry> {
  const useIgnore = opts.gitignore !== false;
  let base = useIgnore ? ancestorLayers(root) : [];
  // a directory the caller names explicitly is searched even if an ancestor's .gitignore ignores it
  if (base.length && ignored(base, root, true)) base = [];
  const stack: Array<{ dir: string; rel: string; layers: Layer[]; depth: number }> = [{ dir: root, rel: "", layers: base, depth: 0 }];
  // When the root (or an ancestor) is a symbolic link, every file has a second, real path: deny filters
  // must see it, or `path=vault` with vault → secrets walks around a rule on secrets/.
  let realRoot: string | undefined;
  if (opts.denyFile) {
    try {
      const r = fs.realpathSync(root);
      if (r !== root) realRoot = r;
    } catch {
      /* missing root: nothing to walk */
    }
  }
  let dirs = 0;
  while (stack.length) {
    const { dir, rel, layers: parent, depth } = stack.pop()!;
    if (++dirs % 256 === 0) {
      await new Promise((r) => setImmediate(r));
      if (opts.signal?.aborted) return;
    }
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    let layers = parent;
    if (useIgnore && entries.some((e) => e.name === ".gitignore" || e.name === ".ignore")) {
      const ig = loadIgnore(dir);
      if (ig) layers = [...parent, { dir, ...ig }];
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: typeof stack = [];
    for (const e of entries) {
      const abs = path.join(dir, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      let isDir = e.isDirectory();
      let isFile = e.isFile();
      let real: string | undefined;
      if (e.isSymbolicLink()) {
        // follow links to files; do not follow directory links (no cycles)
        try {
          const s = fs.statSync(abs);
          isFile = s.isFile();
          isDir = false;
          if (isFile && (opts.denyFile || opts.within)) real = fs.realpathSync(abs);
          if (isFile && opts.within && !opts.within.some((d) => isInside(real!, d))) {
            opts.onOutside?.(abs, real!);
            continue;
          }
        } catch {
          continue;
        }
      }
      if (isDir) {
        if (ALWAYS_SKIP.has(e.name)) continue;
        if (layers.length && ignored(layers, abs, true)) continue;
        if (opts.enterDir && !opts.enterDir(r, depth + 1)) continue;
        subdirs.push({ dir: abs, rel: r, layers, depth: depth + 1 });
      } else if (isFile) {
        if (opts.acceptFile && !opts.acceptFile(r)) continue;
        if (layers.length && ignored(layers, abs, false)) continue;
        if (opts.denyFile) {
          const why = opts.denyFile(abs, real ?? (realRoot ? path.join(realRoot, r) : undefined));
          if (why !== undefined) {
            opts.onSkip?.(abs, why);
            continue;
          }
        }
        yield { abs, rel: r };
      }
    }
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i]!);
  }
}

/**
 * Walk options that keep symbolic links to files outside the project (and outside the searched root,
 * which the call was approved for) out of a search, with a count and the note the result ends with.
 */
export function outsideLinks(cwd: string, root: string): { options: Required<Pick<WalkOptions, "within" | "onOutside">>; count(): number; note(): string } {
  const within = [...new Set([cwd, root].flatMap((d) => [d, realpathLoose(d)]))];
  const seen: string[] = [];
  return {
    options: { within, onOutside: (abs) => void seen.push(abs) },
    count: () => seen.length,
    note: () =>
      seen.length
        ? `\n(${seen.length} symbolic link${seen.length === 1 ? "" : "s"} to files outside the working directory not searched: ${seen.slice(0, 3).join(", ")}${seen.length > 3 ? " …" : ""}; Read ${seen.length === 1 ? "it" : "one"} by path to ask for it)`
        : "",
  };
}
