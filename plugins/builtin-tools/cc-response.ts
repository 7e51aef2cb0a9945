/**
 * The built-ins' `toolResponse` in Claude Code's shapes (what a PostToolUse hook gets as `tool_response`,
 * recorded from Claude Code 2.1.328 in test/conformance/shapes/) and their `fromToolResponse`: a hook's
 * `updatedToolOutput` object in that shape, rendered as the model's result. A shape the tool does not
 * know is refused (undefined), and the hook's replacement is ignored, as Claude Code ignores one that
 * fails the tool's output schema.
 */
import path from "node:path";
import type { ToolResult } from "../../core/index.ts";
import { numberLine } from "./shared.ts";

type Obj = Record<string, unknown>;

export interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

const CONTEXT = 3;

function splitLines(s: string): string[] {
  if (s === "") return [];
  const l = s.split("\n");
  if (l[l.length - 1] === "") l.pop();
  return l;
}

/** Lines of the changed middle beyond which the diff is one replaced block (the LCS table is n×m). */
const LCS_MAX_CELLS = 4_000_000;

type Op = { kind: " " | "-" | "+"; line: string };

/** A line diff (LCS; removals before additions in each change, as jsdiff orders them). */
function diffLines(a: string[], b: string[]): Op[] {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const am = a.slice(pre, a.length - suf);
  const bm = b.slice(pre, b.length - suf);
  const mid: Op[] = [];
  if (am.length * bm.length > LCS_MAX_CELLS) {
    for (const l of am) mid.push({ kind: "-", line: l });
    for (const l of bm) mid.push({ kind: "+", line: l });
  } else {
    const n = am.length;
    const m = bm.length;
    const t = new Uint32Array((n + 1) * (m + 1));
    for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) t[i * (m + 1) + j] = am[i] === bm[j] ? t[(i + 1) * (m + 1) + j + 1]! + 1 : Math.max(t[(i + 1) * (m + 1) + j]!, t[i * (m + 1) + j + 1]!);
    let i = 0;
    let j = 0;
    const del: Op[] = [];
    const add: Op[] = [];
    const flush = () => void mid.push(...del.splice(0), ...add.splice(0));
    while (i < n || j < m) {
      if (i < n && j < m && am[i] === bm[j]) {
        flush();
        mid.push({ kind: " ", line: am[i]! });
        i++;
        j++;
      } else if (j >= m || (i < n && t[(i + 1) * (m + 1) + j]! >= t[i * (m + 1) + j + 1]!)) del.push({ kind: "-", line: am[i++]! });
      else add.push({ kind: "+", line: bm[j++]! });
    }
    flush();
  }
  return [...a.slice(0, pre).map((l): Op => ({ kind: " ", line: l })), ...mid, ...a.slice(a.length - suf).map((l): Op => ({ kind: " ", line: l }))];
}

/**
 * Claude Code's `structuredPatch` for old → new: jsdiff-style hunks with 3 lines of context, changes
 * closer than 2×3 unchanged lines sharing one hunk.
 */
export function structuredPatch(oldText: string, newText: string): Hunk[] {
  const ops = diffLines(splitLines(oldText), splitLines(newText));
  const hunks: Hunk[] = [];
  let cur: { start: number; end: number } | undefined;
  const ranges: Array<{ start: number; end: number }> = [];
  ops.forEach((o, k) => {
    if (o.kind === " ") return;
    if (cur && k - cur.end <= 2 * CONTEXT + 1) cur.end = k;
    else ranges.push((cur = { start: k, end: k }));
  });
  // old/new line numbers before each op
  const oldAt: number[] = [];
  const newAt: number[] = [];
  let ol = 0;
  let nl = 0;
  for (const o of ops) {
    oldAt.push(ol);
    newAt.push(nl);
    if (o.kind !== "+") ol++;
    if (o.kind !== "-") nl++;
  }
  for (const r of ranges) {
    const from = Math.max(0, r.start - CONTEXT);
    let to = r.end;
    for (let c = 0; c < CONTEXT && to + 1 < ops.length && ops[to + 1]!.kind === " "; c++) to++;
    const slice = ops.slice(from, to + 1);
    const oldLines = slice.filter((o) => o.kind !== "+").length;
    const newLines = slice.filter((o) => o.kind !== "-").length;
    hunks.push({ oldStart: oldAt[from]! + (oldLines ? 1 : 0), oldLines, newStart: newAt[from]! + (newLines ? 1 : 0), newLines, lines: slice.map((o) => o.kind + o.line) });
  }
  return hunks;
}

/** Claude Code lists found files relative to the working directory when they are inside it. */
export function ccPath(abs: string, cwd: string): string {
  const rel = path.relative(cwd, abs);
  return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : abs;
}

const text = (t: string, isError = false): ToolResult => ({ content: [{ type: "text", text: t }], ...(isError ? { isError } : {}) });
const isStr = (v: unknown): v is string => typeof v === "string";
const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every(isStr);

/** Read `{type: "text", file: {content, startLine?}}` → numbered lines. */
export function readFromResponse(r: Obj): ToolResult | undefined {
  const file = r.file as Obj | undefined;
  if (r.type !== "text" || !file || typeof file !== "object" || !isStr(file.content)) return undefined;
  const first = typeof file.startLine === "number" && file.startLine >= 1 ? Math.floor(file.startLine) : 1;
  const lines = splitLines(file.content);
  return text(lines.length ? lines.map((l, i) => numberLine(first + i, l)).join("\n") : "(the file is empty)");
}

/** Bash `{stdout, stderr?, …}` → the output text. */
export function bashFromResponse(r: Obj): ToolResult | undefined {
  if (!isStr(r.stdout) || (r.stderr !== undefined && !isStr(r.stderr))) return undefined;
  const parts = [r.stdout.replace(/\n+$/, ""), ((r.stderr as string | undefined) ?? "").replace(/\n+$/, "")].filter((p) => p.trim());
  return text(parts.join("\n") || "(no output)");
}

/** Write `{type, filePath, …}` / Edit `{filePath, …}` → Claude Code's confirmation line. */
export function fileChangeFromResponse(r: Obj): ToolResult | undefined {
  if (!isStr(r.filePath)) return undefined;
  if (r.type === "create") return text(`File created successfully at: ${r.filePath}`);
  return text(`The file ${r.filePath} has been updated.`);
}

/** Glob `{filenames}` → one path a line. */
export function globFromResponse(r: Obj): ToolResult | undefined {
  if (!strings(r.filenames)) return undefined;
  return text(r.filenames.length ? r.filenames.join("\n") : "No files found");
}

/** Grep `{mode, filenames | content}` → the listing or the lines. */
export function grepFromResponse(r: Obj): ToolResult | undefined {
  if (r.mode === "content" || r.mode === "count") return isStr(r.content) ? text(r.content || "No matches found") : undefined;
  if (r.mode === undefined || r.mode === "files_with_matches") return strings(r.filenames) ? text(r.filenames.length ? `Found ${r.filenames.length} file${r.filenames.length === 1 ? "" : "s"}\n${r.filenames.join("\n")}` : "No files found") : undefined;
  return undefined;
}

/** TaskStop `{message}` → the message. */
export function taskStopFromResponse(r: Obj): ToolResult | undefined {
  return isStr(r.message) ? text(r.message) : undefined;
}

/** Commands that print nothing when they work (Claude Code's `noOutputExpected`). */
const SILENT = new Set(["mkdir", "touch", "cd", "mv", "cp", "rm", "rmdir", "chmod", "chown", "ln", "export", "unset", "true", "kill"]);

export function noOutputExpected(command: string): boolean {
  const first = command.trim().split(/\s+/)[0] ?? "";
  return SILENT.has(first) && !/[|;&]/.test(command);
}
