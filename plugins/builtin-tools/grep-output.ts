/**
 * Grep's output, one formatter per output_mode (files_with_matches, count, content), ripgrep-style
 * content lines, paging by offset/head_limit, and the notes appended to every result.
 */
import { displayPath, MAX_LINE_CHARS } from "./shared.ts";
import { lineStarts, MAX_FILE_BYTES, type FileHit, type SearchResult } from "./grep-search.ts";

/** Auto-expansion: files_with_matches results this small also get the matching lines with context. */
export const EXPAND_MAX_FILES = 3;
export const EXPAND_MAX_LINES = 30;
const EXPAND_CONTEXT = 2;
/** Hard cap on collected output lines regardless of head_limit (memory bound). */
export const HARD_LINE_CAP = 100_000;

function cut(line: string): string {
  const l = line.replace(/\r$/, "");
  return l.length > MAX_LINE_CHARS ? `${l.slice(0, MAX_LINE_CHARS)}… [line truncated: ${l.length - MAX_LINE_CHARS} more characters]` : l;
}

/** ripgrep-style content lines: `path:N:text` for matches, `path-N-text` for context, `--` between groups. */
export function contentLines(hit: FileHit, shownPath: string, before: number, after: number, numbers: boolean, only?: RegExp): string[] {
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
    // ripgrep prints "--" between groups only when it shows context
    if (only) {
      // -o: each match's text on its own line, no context (ripgrep --only-matching)
      const g = new RegExp(only.source, only.flags.includes("g") ? only.flags : only.flags + "g");
      for (const m of lineAt(ln).matchAll(g)) if (m[0]) out.push(numbers ? `${shownPath}:${ln}:${cut(m[0])}` : `${shownPath}:${cut(m[0])}`);
      continue;
    }
    if (lastEmitted && from > lastEmitted + 1 && (before || after)) out.push("--");
    for (let i = from; i <= to; i++) {
      if (i <= lastEmitted) continue;
      const sep = isMatch.has(i) ? ":" : "-";
      out.push(numbers ? `${shownPath}${sep}${i}${sep}${cut(lineAt(i))}` : `${shownPath}${sep}${cut(lineAt(i))}`);
      lastEmitted = i;
    }
  }
  return out;
}

/** Which slice of the results to show: skip `offset`, then at most `limit` (Infinity: no limit). */
export interface Paging {
  offset: number;
  limit: number;
}

/** The metadata a formatter adds to the result (it fills in its mode's fields). */
export type Meta = Record<string, unknown>;

function page<T>(xs: T[], p: Paging): { shown: T[]; omitted: number } {
  const shown = xs.slice(p.offset, p.offset + Math.min(p.limit, HARD_LINE_CAP));
  return { shown, omitted: Math.max(0, xs.length - p.offset - shown.length) };
}

function pagingNote(omitted: number, what: string, p: Paging): string {
  return omitted > 0 ? `\n(${omitted} more ${what} not shown; use offset ${p.offset + Math.min(p.limit, HARD_LINE_CAP)} to page, or narrow the search with path, glob or type.)` : "";
}

/** The note on files skipped for size, or "". */
export function largeFilesNote(res: SearchResult): string {
  return res.skippedLarge.length ? `\n(Skipped ${res.skippedLarge.length} file(s) over ${MAX_FILE_BYTES / 1024 / 1024} MB: ${res.skippedLarge.slice(0, 3).join(", ")})` : "";
}

/** files_with_matches: paths newest first; a handful of matching files also get their matching lines. */
export function formatFiles(hits: FileHit[], p: Paging, cwd: string, meta: Meta): string {
  hits.sort((a, b) => b.mtime - a.mtime || (a.abs < b.abs ? -1 : 1));
  const { shown, omitted } = page(hits, p);
  meta.filenames = shown.map((h) => h.abs);
  let text = `Found ${hits.length} file${hits.length === 1 ? "" : "s"}\n${shown.map((h) => h.abs).join("\n")}${pagingNote(omitted, "files", p)}`;
  // Auto-expand: a handful of matching files → include the matching lines too (saves a round trip).
  const totalLines = hits.reduce((n, h) => n + h.lines.length, 0);
  if (hits.length <= EXPAND_MAX_FILES && totalLines <= EXPAND_MAX_LINES && p.offset === 0) {
    const lines: string[] = [];
    for (const h of hits) {
      if (lines.length) lines.push("--");
      for (const l of contentLines(h, displayPath(h.abs, cwd), EXPAND_CONTEXT, EXPAND_CONTEXT, true)) lines.push(l);
    }
    text += `\n\nMatching lines (with ${EXPAND_CONTEXT} lines of context):\n${lines.join("\n")}`;
    meta.expanded = true;
  }
  return text;
}

/** count: `path:N` per file (sorted by path) and the total. */
export function formatCount(hits: FileHit[], p: Paging, cwd: string, meta: Meta): string {
  hits.sort((a, b) => (a.abs < b.abs ? -1 : 1));
  const rows = hits.map((h) => `${displayPath(h.abs, cwd)}:${h.count}`);
  const { shown, omitted } = page(rows, p);
  const total = hits.reduce((n, h) => n + h.count, 0);
  meta.numMatches = total;
  meta.countRows = shown;
  return `${shown.join("\n")}${pagingNote(omitted, "files", p)}\n\nFound ${total} matching line${total === 1 ? "" : "s"} across ${hits.length} file${hits.length === 1 ? "" : "s"}.`;
}

/** Context and line numbers for content mode (-B/-A lines, -n). */
export interface ContentOptions {
  before: number;
  after: number;
  numbers: boolean;
  /** -o: print only the matched parts (the search pattern). */
  only?: RegExp;
}

/** content: matching lines (with context) in walk order, formatting only as many files as the page needs. */
export function formatContent(res: SearchResult, p: Paging, cwd: string, o: ContentOptions, meta: Meta): string {
  const { before, after, numbers, only } = o;
  const hits = res.hits;
  // format only as many files as the page needs; the rest are counted, not formatted
  const want = p.offset + Math.min(p.limit, HARD_LINE_CAP) + 1;
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
    for (const l of contentLines(h, displayPath(h.abs, cwd), before, after, numbers, only)) all.push(l); // no spread: 100k+ lines overflow the stack
  }
  const { shown, omitted } = page(all, p);
  // the files whose lines this page shows (the shaping plugin marks their content trusted or untrusted)
  meta.contentFiles = hits.slice(0, hits.length - restFiles).map((h) => h.abs);
  meta.numLines = shown.length;
  meta.contentLines = shown;
  meta.numMatchingLines = hits.reduce((n, h) => n + h.lines.length, 0);
  const more = omitted + rest;
  if (res.stoppedEarly) {
    meta.truncated = true;
    return `${shown.join("\n")}\n(More matching lines exist; the search stopped after this page. Use offset ${p.offset + shown.length} for the next page, or narrow the search with path, glob or type.)`;
  }
  const exact = !(before || after) || restFiles === 0;
  return `${shown.join("\n")}${pagingNote(more, exact ? "lines" : "lines (at least; context lines not counted)", p)}`;
}
