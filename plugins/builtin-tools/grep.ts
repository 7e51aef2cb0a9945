/**
 * Grep: regex search over files, ripgrep's options and output modes, in pure JS (no binary download).
 *
 * Per file: one global regex pass over the whole text finds candidate matches; a match that does not
 * span a newline marks its line. Only if a match spans lines (possible with \s or [^x]) does the file
 * fall back to line-by-line testing, so the result is exactly ripgrep's line semantics.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import type PicomatchNs from "picomatch";

// CJS packages through createRequire: the same function whether jiti or vitest loads this module
const picomatch = createRequire(import.meta.url)("picomatch") as typeof PicomatchNs;
import { defineTool, type ToolResult } from "../../core/index.ts";
import { absolutePath, denyOptions, displayPath, isInside, missingPathMessage, normalizePaths, MAX_LINE_CHARS } from "./shared.ts";
import { walkFiles, type WalkOptions } from "./walk.ts";

export const DEFAULT_HEAD_LIMIT = 250;
/** Auto-expansion: files_with_matches results this small also get the matching lines with context. */
export const EXPAND_MAX_FILES = 3;
export const EXPAND_MAX_LINES = 30;
const EXPAND_CONTEXT = 2;
/** Files larger than this are skipped (with a note), like ripgrep's mmap limits keep memory flat. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;
/** Hard cap on collected output lines regardless of head_limit (memory bound). */
const HARD_LINE_CAP = 100_000;

/** ripgrep's --type names for the common languages (a subset of `rg --type-list`). */
export const TYPES: Record<string, string[]> = {
  js: ["*.js", "*.jsx", "*.mjs", "*.cjs", "*.vue"],
  ts: ["*.ts", "*.tsx", "*.mts", "*.cts"],
  typescript: ["*.ts", "*.tsx", "*.mts", "*.cts"],
  py: ["*.py", "*.pyi"],
  python: ["*.py", "*.pyi"],
  rust: ["*.rs"],
  go: ["*.go"],
  java: ["*.java", "*.jsp", "*.properties"],
  kotlin: ["*.kt", "*.kts"],
  swift: ["*.swift"],
  c: ["*.c", "*.h", "*.H"],
  cpp: ["*.C", "*.cc", "*.cpp", "*.cxx", "*.c++", "*.h", "*.hh", "*.hpp", "*.hxx", "*.inl"],
  cs: ["*.cs"],
  rb: ["*.rb", "*.gemspec", "Gemfile", "Rakefile"],
  ruby: ["*.rb", "*.gemspec", "Gemfile", "Rakefile"],
  php: ["*.php", "*.php3", "*.php4", "*.php5", "*.phtml"],
  sh: ["*.sh", "*.bash", "*.zsh", ".bashrc", ".zshrc", ".profile"],
  json: ["*.json", "*.jsonc", "*.json5"],
  yaml: ["*.yaml", "*.yml"],
  toml: ["*.toml", "Cargo.lock"],
  md: ["*.md", "*.markdown", "*.mdx"],
  markdown: ["*.md", "*.markdown", "*.mdx"],
  html: ["*.html", "*.htm", "*.xhtml"],
  css: ["*.css", "*.scss", "*.sass", "*.less"],
  sql: ["*.sql"],
  xml: ["*.xml", "*.xsd", "*.xsl", "*.svg"],
  lua: ["*.lua"],
  scala: ["*.scala", "*.sbt"],
  elixir: ["*.ex", "*.exs"],
  haskell: ["*.hs", "*.lhs"],
  txt: ["*.txt"],
  docker: ["Dockerfile", "*.dockerfile", "Dockerfile.*"],
  make: ["Makefile", "makefile", "GNUmakefile", "*.mk", "*.mak"],
  proto: ["*.proto"],
  vue: ["*.vue"],
  svelte: ["*.svelte"],
};

type Mode = "content" | "files_with_matches" | "count";

interface GrepInput {
  pattern: string;
  path?: string;
  glob?: string;
  type?: string;
  output_mode?: Mode;
  "-i"?: boolean;
  "-n"?: boolean;
  "-A"?: number;
  "-B"?: number;
  "-C"?: number;
  context?: number;
  multiline?: boolean;
  head_limit?: number;
  offset?: number;
}

/** Compile a ripgrep-style pattern to a JS RegExp (inline (?i)/(?s)/(?m) prefixes become flags). */
export function compilePattern(pattern: string, opts: { ignoreCase?: boolean; multiline?: boolean }): RegExp {
  let p = pattern;
  let flags = "gm";
  const lead = /^\(\?([imsx]+)\)/.exec(p);
  if (lead) {
    p = p.slice(lead[0].length);
    if (lead[1]!.includes("i")) flags += "i";
    if (lead[1]!.includes("s")) flags += "s";
  }
  if (opts.ignoreCase && !flags.includes("i")) flags += "i";
  if (opts.multiline && !flags.includes("s")) flags += "s";
  try {
    return new RegExp(p, flags + "u");
  } catch {
    return new RegExp(p, flags); // ripgrep accepts escapes (\- \/ …) that JS's unicode mode rejects
  }
}

/** Build a file filter from `glob` (whitespace/comma separated, `!` negates; basename match when no `/`) and `type`. */
export function fileFilter(glob: string | undefined, type: string | undefined): ((rel: string) => boolean) | string {
  const pos: Array<(s: string) => boolean> = [];
  const neg: Array<(s: string) => boolean> = [];
  const add = (g: string, into: typeof pos) => {
    const basename = !g.includes("/");
    const m = picomatch(g.replace(/^\.\//, ""), { dot: true, basename });
    into.push(m);
  };
  if (glob) {
    // split on whitespace and on commas outside braces
    const parts: string[] = [];
    let cur = "";
    let depth = 0;
    for (const ch of glob) {
      if (ch === "{") depth++;
      if (ch === "}") depth--;
      if ((/\s/.test(ch) || ch === ",") && depth === 0) {
        if (cur) parts.push(cur);
        cur = "";
      } else cur += ch;
    }
    if (cur) parts.push(cur);
    for (const g of parts) g.startsWith("!") ? add(g.slice(1), neg) : add(g, pos);
  }
  let typeMatch: ((s: string) => boolean) | undefined;
  if (type) {
    const globs = TYPES[type.toLowerCase()];
    if (!globs) return `unknown file type "${type}". Known types: ${Object.keys(TYPES).join(", ")}. Or use glob (e.g. "*.ext") instead.`;
    // type globs are `*.ext`, exact names or `Name.*`: match the basename with set lookups, not regexes
    const exts = new Set(globs.filter((g) => /^\*\.[^*?[{]+$/.test(g)).map((g) => g.slice(1)));
    const names = new Set(globs.filter((g) => !/[*?[{]/.test(g)));
    const prefixes = globs.filter((g) => /^[^*?[{]+\.\*$/.test(g)).map((g) => g.slice(0, -1));
    typeMatch = (rel) => {
      const base = rel.slice(rel.lastIndexOf("/") + 1);
      const dot = base.lastIndexOf(".");
      return (dot > 0 && exts.has(base.slice(dot))) || names.has(base) || prefixes.some((p) => base.startsWith(p)) || (dot === 0 && exts.has(base));
    };
  }
  return (rel) => (!pos.length || pos.some((m) => m(rel))) && !neg.some((m) => m(rel)) && (!typeMatch || typeMatch(rel));
}

interface FileHit {
  abs: string;
  /** 1-based matching line numbers (ascending). */
  lines: number[];
  /** Number of matches for count mode (matching lines, as ripgrep counts by default). */
  count: number;
  text: string;
  mtime: number;
}

/** Line start offsets (lazily, only for files that matched). */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

function lineIndexAt(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Matching line numbers of `text` with ripgrep semantics (per line unless multiline). */
export function matchLines(re: RegExp, text: string, multiline: boolean): number[] {
  re.lastIndex = 0;
  const first = re.exec(text);
  if (!first) return [];
  const starts = lineStarts(text);
  const out = new Set<number>();
  if (multiline) {
    for (let m: RegExpExecArray | null = first; m; m = re.exec(text)) {
      const a = lineIndexAt(starts, m.index);
      const b = lineIndexAt(starts, m.index + Math.max(0, m[0].length - 1));
      for (let i = a; i <= b; i++) out.add(i + 1);
      if (m[0].length === 0) re.lastIndex++;
    }
    return [...out].sort((x, y) => x - y);
  }
  let spans = false;
  for (let m: RegExpExecArray | null = first; m; m = re.exec(text)) {
    if (m[0].includes("\n")) {
      spans = true;
      break;
    }
    const li = lineIndexAt(starts, m.index);
    out.add(li + 1);
    // continue from the next line: further matches on this line add nothing
    const next = starts[li + 1];
    if (next === undefined) break;
    re.lastIndex = Math.max(re.lastIndex + (m[0].length === 0 ? 1 : 0), next);
  }
  if (!spans) return [...out].sort((x, y) => x - y);
  // exact fallback: test line by line
  const res: number[] = [];
  const lines = text.split("\n");
  const single = new RegExp(re.source, re.flags.replace("g", ""));
  for (let i = 0; i < lines.length; i++) if (single.test(lines[i]!.replace(/\r$/, ""))) res.push(i + 1);
  return res;
}

function cut(line: string): string {
  const l = line.replace(/\r$/, "");
  return l.length > MAX_LINE_CHARS ? `${l.slice(0, MAX_LINE_CHARS)}… [line truncated: ${l.length - MAX_LINE_CHARS} more characters]` : l;
}

/** ripgrep-style content lines: `path:N:text` for matches, `path-N-text` for context, `--` between groups. */
export function contentLines(hit: FileHit, shownPath: string, before: number, after: number, numbers: boolean): string[] {
  // line access through start offsets: no per-line string allocation for lines that are not shown
  const text = hit.text;
  const starts = lineStarts(text);
  if (starts.length > 1 && starts[starts.length - 1] === text.length) starts.pop(); // trailing newline
  const end = text.endsWith("\n") ? text.length - 1 : text.length;
  const lineAt = (i: number) => text.slice(starts[i - 1], i < starts.length ? starts[i]! - 1 : end);
  const lines = { length: starts.length };
  const isMatch = new Set(hit.lines);
  const out: string[] = [];
  let lastEmitted = 0;
  for (const ln of hit.lines) {
    const from = Math.max(1, ln - before, lastEmitted + 1);
    const to = Math.min(lines.length, ln + after);
    if (lastEmitted && from > lastEmitted + 1) out.push("--");
    for (let i = from; i <= to; i++) {
      if (i <= lastEmitted) continue;
      const sep = isMatch.has(i) ? ":" : "-";
      out.push(numbers ? `${shownPath}${sep}${i}${sep}${cut(lineAt(i))}` : `${shownPath}${sep}${cut(lineAt(i))}`);
      lastEmitted = i;
    }
  }
  return out;
}

export interface SearchResult {
  hits: FileHit[];
  filesSearched: number;
  skippedLarge: string[];
  /** True when the walk stopped at stopAfterLines (more matches may exist). */
  stoppedEarly: boolean;
}

/** The pattern as UTF-8 bytes when it is a plain literal (no metacharacters, case-sensitive), else undefined. */
export function requiredLiteral(re: RegExp): Buffer | undefined {
  if (re.flags.includes("i") || !re.source || /[\\^$.|?*+()[\]{}]/.test(re.source)) return undefined;
  return Buffer.from(re.source, "utf8");
}

/**
 * Search `root` (a directory, or one file when singleFile). `keepText`: how many matching files keep
 * their text for content output (all for content mode, a few for auto-expansion, none for count).
 */
export async function search(
  root: string,
  re: RegExp,
  filter: (rel: string) => boolean,
  multiline: boolean,
  signal?: AbortSignal,
  singleFile?: boolean,
  keepText = Infinity,
  /** Stop walking once this many matching lines were found (content-mode paging); the result says so. */
  stopAfterLines = Infinity,
  /** Files the walk must skip (Read deny rules), see WalkOptions. */
  deny?: Pick<WalkOptions, "denyFile" | "onSkip">,
): Promise<SearchResult> {
  let matched = 0;
  const hits: FileHit[] = [];
  let stoppedEarly = false;
  const skippedLarge: string[] = [];
  let filesSearched = 0;
  // one reusable buffer: small files (most of a repository) cost open + read + close, no stat, no allocation
  const scratch = Buffer.allocUnsafe(256 * 1024);
  const literal = requiredLiteral(re);
  const consider = (abs: string) => {
    let buf: Buffer;
    let fd: number;
    try {
      fd = fs.openSync(abs, "r");
    } catch {
      return;
    }
    try {
      const n = fs.readSync(fd, scratch, 0, scratch.length, 0);
      if (n < scratch.length) buf = scratch.subarray(0, n);
      else {
        const size = fs.fstatSync(fd).size;
        if (size > MAX_FILE_BYTES) {
          skippedLarge.push(abs);
          return;
        }
        buf = fs.readFileSync(abs);
      }
    } catch {
      return;
    } finally {
      fs.closeSync(fd);
    }
    filesSearched++;
    // a pattern that is a plain case-sensitive literal: reject files with a byte search, before decoding
    if (literal && buf.indexOf(literal) === -1) return;
    if (looksBinaryQuick(buf)) return;
    const text = buf.toString("utf8");
    const lines = matchLines(re, text, multiline);
    if (lines.length) {
      hits.push({ abs, lines, count: lines.length, text: hits.length < keepText ? text : "", mtime: 0 });
      matched += lines.length;
    }
  };
  if (singleFile) consider(root);
  else {
    let n = 0;
    for await (const f of walkFiles(root, { signal, acceptFile: filter, ...deny })) {
      consider(f.abs);
      if (matched >= stopAfterLines) {
        stoppedEarly = true;
        break;
      }
      if (++n % 512 === 0) {
        await new Promise((r) => setImmediate(r));
        if (signal?.aborted) break;
      }
    }
  }
  for (const h of hits) {
    try {
      h.mtime = fs.statSync(h.abs).mtimeMs;
    } catch {
      /* vanished */
    }
  }
  return { hits, filesSearched, skippedLarge, stoppedEarly };
}

/** ripgrep's binary heuristic: a NUL byte in the first 8 KB. */
function looksBinaryQuick(buf: Buffer): boolean {
  return buf.subarray(0, Math.min(buf.length, 8192)).includes(0);
}

export const Grep = defineTool<GrepInput>({
  name: "Grep",
  description:
    "When you need to find where text or a regular expression occurs in files (a symbol's definition and uses, an error message, a config key) rather than files by name. " +
    "Searches file contents below `path` (default: the working directory; may be a single file) with ripgrep's regular-expression syntax and options, skipping .gitignore'd files, binary files, .git and node_modules. `output_mode` is `files_with_matches` (default: paths, newest first), `content` (matching lines as path:line:text, with -A/-B/-C context and -n line numbers on by default) or `count` (matching lines per file). Filter files with `glob` (e.g. \"*.{ts,tsx}\") or `type` (js, ts, py, rust, go, java …); `-i` ignores case; `multiline` lets `.` and patterns span lines. Results are limited to head_limit entries (default 250; 0 for no limit), skipping `offset` first. When only a few files match, their matching lines are included too. " +
    "Why: one search call replaces running grep or rg through Bash, respects ignore files, and its output is ready to act on.",
  searchHint: "search regex ripgrep rg find text in files content",
  inputSchema: {
    type: "object",
    properties: {
      pattern: { type: "string", description: "Regular expression to search for (ripgrep/Rust syntax; literal braces need escaping, e.g. interface\\{\\})." },
      path: { type: "string", description: "File or directory to search (absolute, or relative to the working directory). Defaults to the working directory." },
      glob: { type: "string", description: "Only search files matching this glob (e.g. \"*.js\", \"*.{ts,tsx}\", \"!*.test.ts\"); a glob without / matches file names at any depth." },
      type: { type: "string", description: "Only search files of this ripgrep type (js, ts, py, rust, go, java, c, cpp, rb, php, sh, json, yaml, md, html, css …)." },
      output_mode: { type: "string", enum: ["content", "files_with_matches", "count"], description: "content: matching lines; files_with_matches: file paths (default); count: match counts per file." },
      "-i": { type: "boolean", description: "Case-insensitive search." },
      "-n": { type: "boolean", description: "Show line numbers in content mode (default true)." },
      "-A": { type: "integer", minimum: 0, description: "Lines of context after each match (content mode)." },
      "-B": { type: "integer", minimum: 0, description: "Lines of context before each match (content mode)." },
      "-C": { type: "integer", minimum: 0, description: "Lines of context before and after each match (content mode)." },
      context: { type: "integer", minimum: 0, description: "Same as -C." },
      multiline: { type: "boolean", description: "Let patterns span lines and `.` match newlines (rg -U --multiline-dotall). Default false." },
      head_limit: { type: "integer", minimum: 0, description: "Return at most this many lines/entries (default 250; 0 means no limit)." },
      offset: { type: "integer", minimum: 0, description: "Skip this many lines/entries before applying head_limit (for paging)." },
    },
    required: ["pattern"],
    additionalProperties: false,
  },
  isReadOnly: true,
  isConcurrencySafe: true,
  isDestructive: false,
  activityText: "Searching",
  normalizeInput: normalizePaths(["path"]),
  checkPermissions: (input, ctx) => (isInside(absolutePath(input.path ?? ctx.cwd, ctx.cwd), ctx.cwd) ? { behavior: "allow", reason: "read-only search inside the working directory" } : undefined),
  validateInput(input) {
    try {
      compilePattern(input.pattern, { ignoreCase: input["-i"], multiline: input.multiline });
    } catch (e) {
      return `pattern is not a valid regular expression: ${(e as Error).message}. Escape regex metacharacters ( ) [ ] { } . * + ? ^ $ | \\ to match them literally.`;
    }
    const f = fileFilter(input.glob, input.type);
    return typeof f === "string" ? f : undefined;
  },
  async call(input, ctx): Promise<ToolResult> {
    const t0 = performance.now();
    const root = absolutePath(input.path ?? ctx.cwd, ctx.cwd);
    let st: fs.Stats;
    try {
      st = fs.statSync(root);
    } catch {
      return { content: [{ type: "text", text: missingPathMessage(root, ctx.cwd, "Path") }], isError: true };
    }
    const mode: Mode = input.output_mode ?? "files_with_matches";
    const multiline = !!input.multiline;
    const re = compilePattern(input.pattern, { ignoreCase: input["-i"], multiline });
    const filter = fileFilter(input.glob, input.type) as (rel: string) => boolean;
    const keep = mode === "content" ? Infinity : mode === "count" ? 0 : EXPAND_MAX_FILES;
    const limit = input.head_limit === 0 ? Infinity : input.head_limit ?? DEFAULT_HEAD_LIMIT;
    const offset = input.offset ?? 0;
    // content mode lists files in walk order (sorted names, deterministic), so a limited page can stop
    // the walk as soon as it has one line more than it shows; the other modes need every file
    const stopAfter = mode === "content" && limit !== Infinity ? offset + limit + 1 : Infinity;
    const denied = denyOptions(ctx);
    const res = await search(root, re, filter, multiline, ctx.signal, st.isFile(), keep, stopAfter, denied.options);
    const hits = res.hits;
    const page = <T>(xs: T[]): { shown: T[]; omitted: number } => {
      const shown = xs.slice(offset, offset + Math.min(limit, HARD_LINE_CAP));
      return { shown, omitted: Math.max(0, xs.length - offset - shown.length) };
    };
    const pagingNote = (omitted: number, what: string) =>
      omitted > 0 ? `\n(${omitted} more ${what} not shown; use offset ${offset + Math.min(limit, HARD_LINE_CAP)} to page, or narrow the search with path, glob or type.)` : "";
    const largeNote = res.skippedLarge.length ? `\n(Skipped ${res.skippedLarge.length} file(s) over ${MAX_FILE_BYTES / 1024 / 1024} MB: ${res.skippedLarge.slice(0, 3).join(", ")})` : "";
    const meta: Record<string, unknown> = { mode, numFiles: hits.length, filesSearched: res.filesSearched, durationMs: 0 };
    if (denied.count()) meta.deniedFiles = denied.count();
    const done = (text: string): ToolResult => {
      meta.durationMs = Math.round(performance.now() - t0);
      return { content: [{ type: "text", text: text + largeNote + denied.note() }], meta };
    };

    if (!hits.length) return done(mode === "count" ? "No matches found" : "No files found");

    if (mode === "files_with_matches") {
      hits.sort((a, b) => b.mtime - a.mtime || (a.abs < b.abs ? -1 : 1));
      const { shown, omitted } = page(hits);
      meta.filenames = shown.map((h) => h.abs);
      let text = `Found ${hits.length} file${hits.length === 1 ? "" : "s"}\n${shown.map((h) => h.abs).join("\n")}${pagingNote(omitted, "files")}`;
      // Auto-expand: a handful of matching files → include the matching lines too (saves a round trip).
      const totalLines = hits.reduce((n, h) => n + h.lines.length, 0);
      if (hits.length <= EXPAND_MAX_FILES && totalLines <= EXPAND_MAX_LINES && offset === 0) {
        const lines: string[] = [];
        for (const h of hits) {
          if (lines.length) lines.push("--");
          for (const l of contentLines(h, displayPath(h.abs, ctx.cwd), EXPAND_CONTEXT, EXPAND_CONTEXT, true)) lines.push(l);
        }
        text += `\n\nMatching lines (with ${EXPAND_CONTEXT} lines of context):\n${lines.join("\n")}`;
        meta.expanded = true;
      }
      return done(text);
    }

    if (mode === "count") {
      hits.sort((a, b) => (a.abs < b.abs ? -1 : 1));
      const rows = hits.map((h) => `${displayPath(h.abs, ctx.cwd)}:${h.count}`);
      const { shown, omitted } = page(rows);
      const total = hits.reduce((n, h) => n + h.count, 0);
      meta.numMatches = total;
      return done(`${shown.join("\n")}${pagingNote(omitted, "files")}\n\nFound ${total} matching line${total === 1 ? "" : "s"} across ${hits.length} file${hits.length === 1 ? "" : "s"}.`);
    }

    const c = input["-C"] ?? input.context ?? 0;
    const before = input["-B"] ?? c;
    const after = input["-A"] ?? c;
    const numbers = input["-n"] ?? true;
    // format only as many files as the page needs; the rest are counted, not formatted
    const want = offset + Math.min(limit, HARD_LINE_CAP) + 1;
    const all: string[] = [];
    let rest = 0;
    let restFiles = 0;
    for (const h of hits) {
      if (all.length >= want) {
        rest += h.lines.length;
        restFiles++;
        continue;
      }
      if (all.length && (before || after)) all.push("--");
      for (const l of contentLines(h, displayPath(h.abs, ctx.cwd), before, after, numbers)) all.push(l); // no spread: 100k+ lines overflow the stack
    }
    const { shown, omitted } = page(all);
    meta.numLines = shown.length;
    meta.numMatchingLines = hits.reduce((n, h) => n + h.lines.length, 0);
    const more = omitted + rest;
    if (res.stoppedEarly) {
      meta.truncated = true;
      return done(`${shown.join("\n")}\n(More matching lines exist; the search stopped after this page. Use offset ${offset + shown.length} for the next page, or narrow the search with path, glob or type.)`);
    }
    const exact = !(before || after) || restFiles === 0;
    return done(`${shown.join("\n")}${pagingNote(more, exact ? "lines" : "lines (at least; context lines not counted)")}`);
  },
});

export default Grep;
