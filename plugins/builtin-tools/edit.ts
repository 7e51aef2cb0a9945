/**
 * Edit: exact string replacement. A non-unique or missing old_string changes nothing and says how many
 * matches there are and where (or where a whitespace-insensitive near match is). CRLF files keep CRLF.
 */
import fs from "node:fs";
import { isInsideReal } from "../../lib/fs-path.ts";
import { defineTool, type ToolResult } from "../../core/index.ts";
import { fileChangeFromResponse, structuredPatch } from "./cc-response.ts";
import { refreshAfterHooks } from "./hook-changes.ts";
import { absolutePath, atomicWrite, fileStates, isInside, lineOf, missingPathMessage, normalizePaths, numberLine, readRecord, recordRead, staleCheck, stripTrailingWhitespace } from "./shared.ts";

interface EditInput {
  file_path: string;
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

const err = (text: string): ToolResult => ({ content: [{ type: "text", text }], isError: true });

/** Start offsets of every non-overlapping occurrence. */
export function occurrences(hay: string, needle: string): number[] {
  const out: number[] = [];
  for (let i = hay.indexOf(needle); i !== -1; i = hay.indexOf(needle, i + needle.length)) out.push(i);
  return out;
}

/** Where old_string would match if whitespace runs were ignored: 1-based line ranges. */
export function nearMatches(text: string, needle: string): Array<{ line: number; endLine: number }> {
  const parts = needle.trim().split(/\s+/).filter(Boolean);
  if (!parts.length) return [];
  const re = new RegExp(parts.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("\\s+"), "g");
  const out: Array<{ line: number; endLine: number }> = [];
  for (const m of text.matchAll(re)) {
    out.push({ line: lineOf(text, m.index!), endLine: lineOf(text, m.index! + m[0].length) });
    if (out.length >= 3) break;
  }
  return out;
}

function listLines(lines: number[]): string {
  const shown = lines.slice(0, 20).join(", ");
  return lines.length > 20 ? `${shown} and ${lines.length - 20} more` : shown;
}

function snippet(text: string, fromLine: number, toLine: number): string {
  const lines = text.split("\n");
  const a = Math.max(1, fromLine - 3);
  const b = Math.min(lines.length, toLine + 3, a + 39);
  const out = lines
    .slice(a - 1, b)
    .map((l, i) => numberLine(a + i, l))
    .join("\n");
  return b < Math.min(lines.length, toLine + 3) ? `${out}\n[… snippet cut at 40 lines; Read the file to see the rest]` : out;
}

/** The file's text (CRLF folded) and where old_string matches, or why the edit cannot apply (no match, several, empty). */
function target(file: string, original: string, input: EditInput): { crlf: boolean; text: string; oldS: string; newS: string; hits: number[] } | string {
  const crlf = original.includes("\r\n") && !/(^|[^\r])\n/.test(original);
  const text = crlf ? original.replace(/\r\n/g, "\n") : original;
  const oldS = crlf ? input.old_string.replace(/\r\n/g, "\n") : input.old_string;
  const newS = crlf ? input.new_string.replace(/\r\n/g, "\n") : input.new_string;
  // An empty (or whitespace-only) file may be filled with an empty old_string.
  if (oldS === "" && text.trim() !== "") return `old_string is empty but ${file} already has content. To create a file use an empty old_string on a path that does not exist; to change this file give the exact text to replace.`;
  const hits = oldS === "" ? [0] : occurrences(text, oldS);
  if (hits.length === 0) {
    const near = nearMatches(text, oldS);
    const hint = near.length
      ? ` A match ignoring whitespace differences exists at line${near.length > 1 ? "s" : ""} ${near.map((n) => (n.endLine > n.line ? `${n.line}-${n.endLine}` : n.line)).join(", ")}; the file's text there is:\n${snippet(text, near[0]!.line, near[0]!.endLine)}\nCopy old_string exactly from it (without the line-number prefix).`
      : " Read the file again to get the exact current text (whitespace and indentation must match; do not include the line-number prefix).";
    return `old_string was not found in ${file}.${hint}`;
  }
  if (hits.length > 1 && !input.replace_all) {
    return `old_string matches ${hits.length} places in ${file} (lines ${listLines(hits.map((h) => lineOf(text, h)))}), so nothing was changed. Include more surrounding lines in old_string to make it unique, or set replace_all: true to replace every occurrence.`;
  }
  return { crlf, text, oldS, newS, hits };
}

/**
 * Claude Code checks old_string before any hook runs (recorded: write-edit-results — no PreToolUse, no
 * PostToolUseFailure for a missing or ambiguous one): so does toolhost, at validation, for a file read in this
 * session and unchanged since (the only case the call would get that far; anything else is the call's to say).
 */
function precheck(input: EditInput, ctx: { cwd: string; sessionState?: Map<string, unknown> }): string | undefined {
  if (!ctx.sessionState) return undefined;
  const file = absolutePath(input.file_path, ctx.cwd);
  let raw: Buffer;
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(file, { throwIfNoEntry: false });
    if (!st?.isFile() || !readRecord(ctx.sessionState, file)) return undefined;
    raw = fs.readFileSync(file);
  } catch {
    return undefined; // unreadable now (ENOTDIR, EACCES …): the call says what happened
  }
  if (staleCheck({ sessionState: ctx.sessionState, state: ctx.sessionState }, file, st, raw) || raw.includes(0)) return undefined;
  const t = target(file, raw.toString("utf8"), input);
  return typeof t === "string" ? t : undefined;
}

export const Edit = defineTool<EditInput>({
  name: "Edit",
  description:
    "When you need to change part of an existing file (fix a bug, rename a symbol, adjust config) without rewriting the whole file. " +
    "Replaces the exact text old_string with new_string in file_path; old_string must match the file exactly (whitespace and indentation included, without Read's line-number prefix) and must be unique unless replace_all is true. If it matches zero or several places nothing changes and the error says how many matches there are and on which lines. The file must have been read with Read in this session and not changed since. An empty old_string on a missing file creates it. " +
    "Why: exact, unique replacements are safe to apply blind and easy to review, and the read-first rule keeps you from editing text you have not seen.",
  searchHint: "modify replace change patch string in file",
  inputSchema: {
    type: "object",
    properties: {
      file_path: { type: "string", description: "Path of the file to modify (absolute, or relative to the working directory; ~ is expanded)." },
      old_string: { type: "string", description: "The exact text to replace." },
      new_string: { type: "string", description: "The text to replace it with (must differ from old_string)." },
      replace_all: { type: "boolean", default: false, description: "Replace every occurrence of old_string (default false)." },
    },
    required: ["file_path", "old_string", "new_string"],
    additionalProperties: false,
  },
  isReadOnly: false,
  isConcurrencySafe: false,
  isDestructive: false,
  activityText: "Editing",
  // Claude Code hands hooks and rules the parsed input: `replace_all` defaults to false, and new_string's lines lose
  // their trailing whitespace outside markdown (shared.ts stripTrailingWhitespace; recorded: write-edit-whitespace).
  normalizeInput: (input, ctx) => {
    const out = normalizePaths<EditInput>(["file_path"])(input, ctx);
    return { ...out, new_string: stripTrailingWhitespace(out.file_path, out.new_string) as string, replace_all: out.replace_all ?? false };
  },
  checkPermissions: (input, ctx) =>
    ctx.mode === "acceptEdits" && isInsideReal(absolutePath(input.file_path, ctx.cwd), ctx.cwd) ? { behavior: "allow", reason: "acceptEdits mode: edits inside the working directory" } : undefined,
  validateInput(input, ctx) {
    if (input.old_string === input.new_string) return "old_string and new_string are identical, so there is nothing to change. Give the new text in new_string.";
    return precheck(input, ctx);
  },
  call(input, ctx): ToolResult {
    const file = absolutePath(input.file_path, ctx.cwd);
    let st: fs.Stats;
    try {
      st = fs.statSync(file);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") throw e;
      if (input.old_string === "") {
        atomicWrite(file, input.new_string);
        recordRead(ctx, file, fs.statSync(file), input.new_string);
        const meta = { type: "create", filePath: file, oldString: "", newString: input.new_string, replaceAll: false, replacements: 1 };
        const toolResponse = { filePath: file, oldString: "", newString: input.new_string, originalFile: null, structuredPatch: structuredPatch("", input.new_string), userModified: false, replaceAll: false };
        return { content: [{ type: "text", text: `File created successfully at: ${file}` }], meta, structuredContent: meta, toolResponse };
      }
      return err(missingPathMessage(file, ctx.cwd));
    }
    if (st.isDirectory()) return err(`${file} is a directory; Edit changes files.`);
    const raw = fs.readFileSync(file);
    const stale = staleCheck(ctx, file, st, raw);
    if (stale) return err(stale);
    if (raw.includes(0)) return err(`${file} is a binary file; Edit only changes text files.`);
    const original = raw.toString("utf8");
    const t = target(file, original, input);
    if (typeof t === "string") return err(t);
    const { crlf, text, oldS, newS, hits } = t;
    const updated = input.replace_all ? text.split(oldS).join(newS) : text.slice(0, hits[0]) + newS + text.slice(hits[0]! + oldS.length);
    const out = crlf ? updated.replace(/\n/g, "\r\n") : updated;
    const behind = fileStates(ctx).get(file)?.behindModel;
    atomicWrite(file, out);
    recordRead(ctx, file, fs.statSync(file), out);
    if (behind) fileStates(ctx).get(file)!.behindModel = true;
    const firstLine = lineOf(updated, hits[0]!);
    const lastLine = firstLine + newS.split("\n").length - 1;
    const n = input.replace_all ? hits.length : 1;
    const meta = { type: "update", filePath: file, oldString: input.old_string, newString: input.new_string, replaceAll: !!input.replace_all, replacements: n };
    return {
      content: [
        {
          type: "text",
          text: `The file ${file} has been updated${n > 1 ? ` (${n} replacements)` : ""}. The edited region (first replacement) now reads:\n${snippet(updated, firstLine, lastLine)}`,
        },
      ],
      meta,
      structuredContent: meta,
      toolResponse: { filePath: file, oldString: input.old_string, newString: input.new_string, originalFile: original, structuredPatch: structuredPatch(original, out), userModified: false, replaceAll: !!input.replace_all, ...(behind ? { contentNotInModelContext: true } : {}) },
    };
  },
  fromToolResponse: (r) => fileChangeFromResponse(r),
  afterPostToolUse: (post) => refreshAfterHooks(post, "Edit", "builtin-tools"),
});

export default Edit;
