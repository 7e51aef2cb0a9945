/**
 * Grep's per-file search: walk the files (or read the one file), reject by plain literal and binary
 * heuristic, and find the matching lines.
 *
 * Per file: one global regex pass over the whole text finds candidate matches; a match that does not
 * span a newline marks its line. Only if a match spans lines (possible with \s or [^x]) does the file
 * fall back to line-by-line testing, so the result is exactly ripgrep's line semantics.
 */
import fs from "node:fs";
import { requiredLiteral } from "./grep-pattern.ts";
import { walkFiles, type WalkOptions } from "./walk.ts";

/** Files larger than this are skipped (with a note), like ripgrep's mmap limits keep memory flat. */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;

export interface FileHit {
  abs: string;
  /** 1-based matching line numbers (ascending). */
  lines: number[];
  /** Number of matches for count mode (matching lines, as ripgrep counts by default). */
  count: number;
  text: string;
  mtime: number;
}

/** Line start offsets (lazily, only for files that matched). */
export function lineStarts(text: string): number[] {
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

export interface SearchResult {
  hits: FileHit[];
  filesSearched: number;
  skippedLarge: string[];
  /** True when the walk stopped at stopAfterLines (more matches may exist). */
  stoppedEarly: boolean;
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
  deny?: Pick<WalkOptions, "denyFile" | "onSkip" | "within" | "onOutside">,
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
