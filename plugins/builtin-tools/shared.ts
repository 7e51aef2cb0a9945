/**
 * Helpers shared by the built-in tools: path normalisation, read-before-write state, atomic writes,
 * "did you mean" suggestions and line utilities.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createHash, randomBytes } from "node:crypto";
import { editDistance, type ToolCallContext } from "../../core/index.ts";
import type { WalkOptions } from "./walk.ts";

/** Expand `~`, resolve against cwd, normalise (no trailing slash). The form every rule and hook sees. */
export function absolutePath(p: string, cwd: string): string {
  let s = p.trim();
  if (s === "~") s = os.homedir();
  else if (s.startsWith("~/")) s = path.join(os.homedir(), s.slice(2));
  const abs = path.resolve(cwd, s);
  return abs.length > 1 && abs.endsWith(path.sep) ? abs.slice(0, -1) : abs;
}

/** normalizeInput for tools with path-valued fields. */
export function normalizePaths<I extends object>(fields: string[]) {
  return (input: I, ctx: { cwd: string }): I => {
    const out: Record<string, unknown> = { ...(input as Record<string, unknown>) };
    for (const f of fields) if (typeof out[f] === "string" && out[f] !== "") out[f] = absolutePath(out[f] as string, ctx.cwd);
    return out as I;
  };
}

import { isInside } from "../../lib/fs-path.ts";

export { isInside };

/**
 * Claude Code's trailing-whitespace rule for what Write and Edit put in a file (recorded: write-edit-whitespace):
 * each line of a Write's `content` / an Edit's `new_string` loses its trailing whitespace, line endings kept —
 * except in markdown (`.md`, `.mdx`, any case), where two trailing spaces are a line break. `.markdown` and every
 * other name are stripped. Applied as the input is normalised, so hooks, rules and the file all see the result.
 */
export function stripTrailingWhitespace(file: unknown, text: unknown): unknown {
  if (typeof text !== "string" || typeof file !== "string" || /\.mdx?$/i.test(file)) return text;
  return text
    .split(/(\r\n|\n|\r)/)
    .map((part, i) => (i % 2 === 0 ? part.replace(/\s+$/, "") : part))
    .join("");
}

/** Shows a path relative to cwd when it is inside, else absolute. */
export function displayPath(p: string, cwd: string): string {
  return isInside(p, cwd) && p !== cwd ? path.relative(cwd, p) : p;
}

// ---------------------------------------------------------------------------------------------
// read-before-write state (shared by Read, Write, Edit through the session-wide state)

export interface ReadRecord {
  mtimeMs: number;
  size: number;
  /** sha1 of the whole file when it was small enough to hash (lets a touched-but-unchanged file pass). */
  hash?: string;
  /** A hook changed the file after the model's last Read/Write (Claude Code's contentNotInModelContext). */
  behindModel?: boolean;
}

const FILES_KEY = "builtin-tools:files";
export const HASH_LIMIT = 16 * 1024 * 1024;

export function fileStates(ctx: Pick<ToolCallContext, "sessionState" | "state">): Map<string, ReadRecord> {
  const store = ctx.sessionState ?? ctx.state;
  let m = store.get(FILES_KEY) as Map<string, ReadRecord> | undefined;
  if (!m) store.set(FILES_KEY, (m = new Map()));
  return m;
}

/** The session's read record of `file`, if any (read only: no store is created). */
export function readRecord(sessionState: Map<string, unknown>, file: string): ReadRecord | undefined {
  return (sessionState.get(FILES_KEY) as Map<string, ReadRecord> | undefined)?.get(file);
}

export function sha1(buf: Buffer | string): string {
  return createHash("sha1").update(buf).digest("hex");
}

export function recordRead(ctx: Pick<ToolCallContext, "sessionState" | "state">, file: string, st: fs.Stats, content?: Buffer | string): void {
  const m = fileStates(ctx);
  m.set(file, { mtimeMs: st.mtimeMs, size: st.size, hash: content !== undefined ? sha1(content) : hashIfSmall(file, st) });
  (ctx.sessionState ?? ctx.state).set(FILES_KEY, m); // set again: the session counts the change (Session.version), so a store saves it
}

function hashIfSmall(file: string, st: fs.Stats): string | undefined {
  if (st.size > HASH_LIMIT) return undefined;
  try {
    return sha1(fs.readFileSync(file));
  } catch {
    return undefined;
  }
}

/**
 * Claude Code's rule: an existing file may only be overwritten or edited after it was read in this
 * session, and only if it has not changed since. Returns an actionable error, or undefined when fine.
 */
export function staleCheck(ctx: Pick<ToolCallContext, "sessionState" | "state">, file: string, st: fs.Stats, current?: Buffer): string | undefined {
  const rec = fileStates(ctx).get(file);
  if (!rec) return `File has not been read yet: ${file}. Read it first (Read {"file_path": ${JSON.stringify(file)}}), then write or edit it.`;
  if (rec.mtimeMs === st.mtimeMs && rec.size === st.size) return undefined;
  if (rec.hash && st.size <= HASH_LIMIT) {
    const now = current ?? fs.readFileSync(file);
    if (sha1(now) === rec.hash) return undefined;
  }
  return `File has been modified since it was read (by the user, a formatter or another process): ${file}. Read it again to see its current content, then retry.`;
}

/** Write via a temp file in the same directory + rename, keeping the old file's mode. */
export function atomicWrite(file: string, data: string | Buffer): void {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true });
  let mode: number | undefined;
  try {
    mode = fs.statSync(file).mode & 0o7777;
  } catch {
    /* new file */
  }
  const tmp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    const fd = fs.openSync(tmp, "w", mode ?? 0o666);
    try {
      fs.writeFileSync(fd, data);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    if (mode !== undefined) fs.chmodSync(tmp, mode);
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------
// suggestions


/** An actionable message for a missing path: the nearest existing ancestor, and similar names next to it. */
export function missingPathMessage(file: string, cwd: string, what = "File"): string {
  const dir = path.dirname(file);
  const base = path.basename(file);
  if (!fs.existsSync(dir)) {
    let anc = dir;
    while (!fs.existsSync(anc) && path.dirname(anc) !== anc) anc = path.dirname(anc);
    return `${what} does not exist: ${file} (directory ${dir} does not exist either; nearest existing ancestor is ${anc}). Check the path, or use Glob to find the file.`;
  }
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir);
  } catch {
    /* unreadable */
  }
  const lower = base.toLowerCase();
  const stem = lower.replace(/\.[^.]*$/, "");
  const scored = names
    .map((n) => {
      const l = n.toLowerCase();
      let d = editDistance(lower, l);
      if (l === lower) d = 0;
      else if (l.replace(/\.[^.]*$/, "") === stem) d = Math.min(d, 1);
      return { n, d };
    })
    .filter((x) => x.d <= Math.max(2, Math.floor(base.length / 4)))
    .sort((a, b) => a.d - b.d || a.n.localeCompare(b.n))
    .slice(0, 3);
  const cwdNote = `(current working directory: ${cwd})`;
  if (scored.length) return `${what} does not exist: ${file}. Did you mean ${scored.map((x) => path.join(dir, x.n)).join(", ")}? ${cwdNote}`;
  return `${what} does not exist: ${file} ${cwdNote}. Use Glob to find the file.`;
}

// ---------------------------------------------------------------------------------------------
// text helpers

export const MAX_LINE_CHARS = 2000;

export function numberLine(n: number, line: string): string {
  const s = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… [line truncated: ${line.length - MAX_LINE_CHARS} more characters]` : line;
  return `${String(n).padStart(6)}\t${s}`;
}

/** True when the bytes look binary: a NUL byte, or many control characters. */
export function looksBinary(buf: Buffer, n = buf.length): boolean {
  if (n === 0) return false;
  if (buf.subarray(0, n).includes(0)) return true;
  let ctrl = 0;
  for (let i = 0; i < n; i++) {
    const c = buf[i]!;
    if (c < 7 || (c > 13 && c < 32 && c !== 27)) ctrl++;
  }
  return ctrl / n > 0.1;
}

/** 1-based line number of a character offset. */
export function lineOf(text: string, index: number): number {
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/**
 * Walk options that skip files the host's read filter refuses (Read deny rules, `ctx.readFilter()`),
 * a count of what was skipped, and the note a result ends with so the model (and the user) can see why
 * files are missing: `(2 files not shown: denied by rule "Read(./.env)" (settings:project …))`.
 */
export function denyOptions(ctx: Pick<ToolCallContext, "readFilter">): {
  options?: Required<Pick<WalkOptions, "denyFile" | "onSkip">>;
  count(): number;
  note(): string;
} {
  const filter = ctx.readFilter?.();
  let n = 0;
  const reasons = new Set<string>();
  if (!filter) return { count: () => 0, note: () => "" };
  return {
    options: {
      denyFile: (abs, real) => filter(abs) ?? (real !== undefined && real !== abs ? filter(real) : undefined),
      onSkip: (_abs, why) => {
        n++;
        if (reasons.size < 3) reasons.add(why);
      },
    },
    count: () => n,
    note: () => (n ? `\n(${n} file${n === 1 ? "" : "s"} not shown: ${[...reasons].join("; ")})` : ""),
  };
}
