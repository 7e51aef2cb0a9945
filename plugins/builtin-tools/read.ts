/**
 * Read: numbered lines of a text file, paged by offset/limit. Pages are read by streaming chunks and
 * counting newlines, so reading 2000 lines of a 50 MB file never loads the whole file.
 */
import fs from "node:fs";
import path from "node:path";
import { isInsideReal } from "../../lib/fs-path.ts";
import { defineTool, type ToolCallContext, type ToolResult } from "../../core/index.ts";
import { readFromResponse } from "./cc-response.ts";
import { absolutePath, isInside, looksBinary, missingPathMessage, normalizePaths, numberLine, recordRead, HASH_LIMIT } from "./shared.ts";

export const DEFAULT_LIMIT = 2000;
/** Characters per page (about 25k tokens, Claude Code's Read cap); longer pages end early with an offset note. */
export const READ_MAX_CHARS = 100_000;
const CHUNK = 1 << 20;
/** Bytes kept of one over-long line (the line cap shows 2000 characters of it anyway). */
const MAX_PENDING = 64 * 1024;
/** Files up to this size get their total line count reported (the rest of the file is scanned); bigger files stop after the page. */
const COUNT_ALL_LIMIT = 8 * 1024 * 1024;
const IMAGE_TYPES: Record<string, string> = { ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp" };
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

interface ReadInput {
  file_path: string;
  offset?: number;
  limit?: number;
  /** Claude Code: PDF page range. Accepted; toolhost reads no PDFs, and on text files it changes nothing (as in Claude Code). */
  pages?: string;
  /** Claude Code: read past its size limit. Accepted; toolhost never refuses a large file (it pages it), so it changes nothing. */
  allow_large?: boolean;
}

export interface Page {
  lines: string[];
  /** 1-based number of the first returned line. */
  first: number;
  /** Total lines when the whole file was scanned. */
  total?: number;
  /** True when lines exist after the page. */
  more: boolean;
  /** Whether the last byte is a newline (known when the whole file was scanned). */
  endsWithNewline?: boolean;
}

/** Stream `file` and return lines [first, first+limit). Counts the remaining lines when the file is not huge. */
export function readPage(file: string, first: number, limit: number, size: number): Page {
  const fd = fs.openSync(file, "r");
  const buf = Buffer.allocUnsafe(CHUNK);
  const lines: string[] = [];
  let lineNo = 1;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let pos = 0;
  let more = false;
  let total: number | undefined;
  let lastByteNewline = true;
  try {
    for (;;) {
      const n = fs.readSync(fd, buf, 0, CHUNK, pos);
      if (n === 0) break;
      pos += n;
      lastByteNewline = buf[n - 1] === 10;
      let start = 0;
      for (let nl = buf.indexOf(10, 0); nl !== -1 && nl < n; nl = buf.indexOf(10, start)) {
        if (lineNo >= first && lineNo < first + limit) {
          const piece = buf.subarray(start, nl);
          lines.push((pending.length ? Buffer.concat([...pending, piece]) : piece).toString("utf8").replace(/\r$/, ""));
        }
        pending = [];
        pendingBytes = 0;
        lineNo++;
        start = nl + 1;
        if (lineNo >= first + limit) {
          if (size > COUNT_ALL_LIMIT) {
            more = pos < size || start < n;
            return { lines, first, more };
          }
        }
      }
      // keep the unfinished line only when it is in the page, and only as much as the line cap can show
      if (start < n && lineNo >= first && lineNo < first + limit && pendingBytes < MAX_PENDING) {
        pending.push(Buffer.from(buf.subarray(start, n)));
        pendingBytes += n - start;
      }
    }
    // a last line without a trailing newline
    const hasTail = pos > 0 && !lastByteNewline;
    if (hasTail && lineNo >= first && lineNo < first + limit) lines.push(Buffer.concat(pending).toString("utf8").replace(/\r$/, ""));
    total = hasTail ? lineNo : lineNo - 1;
    more = total >= first + limit;
    return { lines, first, total, more, endsWithNewline: pos > 0 && lastByteNewline };
  } finally {
    fs.closeSync(fd);
  }
}

export const Read = defineTool<ReadInput>({
  name: "Read",
  description:
    "When you need to see the contents of a file on the local filesystem (source, config, logs, images), before editing it or to answer a question about it. " +
    "Reads the file at the absolute (or working-directory-relative) file_path and returns its lines numbered like `cat -n`, starting at line `offset` (1-based) for up to `limit` lines (default 2000); lines longer than 2000 characters are cut with a marker; png/jpeg/gif/webp images come back as images. Directories, binary files and missing paths return an error that says what to do instead. " +
    "Why: reading a file first is required before Write or Edit may change it, and paging with offset/limit keeps large files cheap.",
  searchHint: "cat view open file contents lines",
  inputSchema: {
    type: "object",
    properties: {
      file_path: { type: "string", description: "Path of the file to read (absolute, or relative to the working directory; ~ is expanded)." },
      offset: { type: "integer", minimum: 0, description: "Line number to start reading from (1-based). Use it for files too large to read at once." },
      limit: { type: "integer", minimum: 1, description: "Number of lines to read (default 2000)." },
      pages: { type: "string", description: "Accepted for Claude Code compatibility (PDF page ranges); PDFs are not read here, and text files ignore it." },
      allow_large: { type: "boolean", description: "Accepted for Claude Code compatibility; large files are never refused here, they come back a page at a time (continue with offset)." },
    },
    required: ["file_path"],
    additionalProperties: false,
  },
  isReadOnly: true,
  isConcurrencySafe: true,
  isDestructive: false,
  // Read pages itself by whole lines (READ_MAX_CHARS); let the shaping budget not cut a page mid-line
  maxOutputChars: READ_MAX_CHARS + 1000,
  activityText: "Reading",
  normalizeInput: normalizePaths(["file_path"]),
  checkPermissions: (input, ctx) => (isInsideReal(absolutePath(input.file_path, ctx.cwd), ctx.cwd) ? { behavior: "allow", reason: "read-only access inside the working directory" } : undefined),
  call(input, ctx: ToolCallContext): ToolResult | string {
    const file = absolutePath(input.file_path, ctx.cwd);
    let st: fs.Stats;
    try {
      st = fs.statSync(file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT" || (e as NodeJS.ErrnoException).code === "ENOTDIR") return { content: [{ type: "text", text: missingPathMessage(file, ctx.cwd) }], isError: true };
      throw e;
    }
    if (st.isDirectory()) {
      return { content: [{ type: "text", text: `${file} is a directory, not a file. To list it use Glob {"pattern": "*", "path": ${JSON.stringify(file)}} (or Bash ls).` }], isError: true };
    }
    if (!st.isFile()) return { content: [{ type: "text", text: `${file} is not a regular file (device, socket or FIFO); Read only reads regular files.` }], isError: true };

    const ext = path.extname(file).toLowerCase();
    if (IMAGE_TYPES[ext]) {
      if (st.size > MAX_IMAGE_BYTES) return { content: [{ type: "text", text: `${file} is an image of ${st.size} bytes, larger than the ${MAX_IMAGE_BYTES}-byte limit for returning images; resize it first (e.g. with Bash).` }], isError: true };
      const data = fs.readFileSync(file);
      recordRead(ctx, file, st, data);
      const base64 = data.toString("base64");
      return { content: [{ type: "image", data: base64, mimeType: IMAGE_TYPES[ext] }], meta: { type: "image", filePath: file, size: st.size }, toolResponse: { type: "image", file: { base64, type: IMAGE_TYPES[ext], originalSize: st.size } } };
    }

    if (st.size === 0) {
      recordRead(ctx, file, st, Buffer.alloc(0));
      return {
        content: [{ type: "text", text: `(${file} exists but is empty)` }],
        meta: { type: "text", filePath: file, numLines: 0, startLine: 1, totalLines: 0 },
        toolResponse: { type: "text", file: { filePath: file, content: "", numLines: 1, startLine: 1, totalLines: 1 } },
      };
    }

    const head = Buffer.alloc(Math.min(8192, st.size));
    const fd = fs.openSync(file, "r");
    try {
      fs.readSync(fd, head, 0, head.length, 0);
    } finally {
      fs.closeSync(fd);
    }
    if (looksBinary(head)) {
      return {
        content: [{ type: "text", text: `${file} is a binary file (${st.size} bytes; ${ext || "no extension"}), so it cannot be shown as text. Inspect it with Bash instead (e.g. \`file\`, \`xxd | head\`, or a format-specific tool).` }],
        isError: true,
      };
    }

    const first = Math.max(1, input.offset ?? 1);
    const limit = input.limit ?? DEFAULT_LIMIT;
    const page = readPage(file, first, limit, st.size);
    recordRead(ctx, file, st, st.size <= HASH_LIMIT ? fs.readFileSync(file) : undefined);
    if (!page.lines.length) {
      return {
        content: [{ type: "text", text: `${file} has ${page.total ?? "fewer than " + first} lines, so offset ${first} is past its end. Use a smaller offset.` }],
        isError: true,
      };
    }
    // keep a page within the character budget by whole lines, so the numbering stays intact
    const numbered: string[] = [];
    let chars = 0;
    for (let i = 0; i < page.lines.length; i++) {
      const l = numberLine(first + i, page.lines[i]!);
      if (numbered.length && chars + l.length + 1 > READ_MAX_CHARS) break;
      numbered.push(l);
      chars += l.length + 1;
    }
    const cutByBudget = numbered.length < page.lines.length;
    const body = numbered.join("\n");
    const last = first + numbered.length - 1;
    let note = "";
    if (page.more || cutByBudget) note = `\n\n(Showing lines ${first}-${last}${page.total ? ` of ${page.total}` : ""}. More lines follow: call Read again with offset ${last + 1} to continue.)`;
    return {
      content: [{ type: "text", text: body + note }],
      meta: { type: "text", filePath: file, numLines: numbered.length, startLine: first, totalLines: page.total },
      toolResponse: ccReadResponse(file, page, numbered.length),
    };
  },
  fromToolResponse: (r) => readFromResponse(r),
});

/**
 * Claude Code's Read tool_response: the page's raw lines joined by "\n"; Claude Code counts the empty
 * line after a final newline as a line, and a page that reaches it ends with that newline.
 */
function ccReadResponse(file: string, page: Page, shown: number): Record<string, unknown> {
  const lines = page.lines.slice(0, shown);
  const toEnd = shown === page.lines.length && !page.more && page.total !== undefined;
  const tail = toEnd && page.endsWithNewline;
  const content = lines.join("\n") + (tail ? "\n" : "");
  const totalLines = page.total === undefined ? undefined : page.total + (page.endsWithNewline ? 1 : 0);
  return { type: "text", file: { filePath: file, content, numLines: lines.length + (tail ? 1 : 0), startLine: page.first, totalLines } };
}

export default Read;
