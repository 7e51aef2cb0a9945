/**
 * Write: create or overwrite a whole file, atomically. Overwriting needs a prior Read of the current
 * content in this session (Claude Code's rule), so the model never clobbers changes it has not seen.
 * Lines lose their trailing whitespace except in markdown, as in Claude Code (shared.ts stripTrailingWhitespace).
 */
import fs from "node:fs";
import { isInsideReal } from "../../lib/fs-path.ts";
import { defineTool, type ToolResult } from "../../core/index.ts";
import { fileChangeFromResponse, structuredPatch } from "./cc-response.ts";
import { refreshAfterHooks } from "./hook-changes.ts";
import { absolutePath, atomicWrite, isInside, normalizePaths, recordRead, staleCheck, stripTrailingWhitespace } from "./shared.ts";

interface WriteInput {
  file_path: string;
  content: string;
}

export const Write = defineTool<WriteInput>({
  name: "Write",
  description:
    "When you need to create a new file, or replace an existing file's whole content (prefer Edit for changing part of a file). " +
    "Writes `content` to file_path (absolute, or relative to the working directory), creating missing parent directories; the write is atomic (temporary file, then rename). An existing file must have been read with Read in this session and not changed since, otherwise the call fails and asks you to Read it first. " +
    "Why: atomic writes never leave a half-written file, and the read-first rule keeps you from overwriting changes you have not seen.",
  searchHint: "create save overwrite new file",
  inputSchema: {
    type: "object",
    properties: {
      file_path: { type: "string", description: "Path of the file to write (absolute, or relative to the working directory; ~ is expanded)." },
      content: { type: "string", description: "The complete new content of the file." },
    },
    required: ["file_path", "content"],
    additionalProperties: false,
  },
  isReadOnly: false,
  isConcurrencySafe: false,
  isDestructive: true,
  activityText: "Writing",
  normalizeInput: (input, ctx) => {
    const out = normalizePaths<WriteInput>(["file_path"])(input, ctx);
    return { ...out, content: stripTrailingWhitespace(out.file_path, out.content) as string };
  },
  checkPermissions: (input, ctx) =>
    ctx.mode === "acceptEdits" && isInsideReal(absolutePath(input.file_path, ctx.cwd), ctx.cwd) ? { behavior: "allow", reason: "acceptEdits mode: edits inside the working directory" } : undefined,
  call(input, ctx): ToolResult {
    const file = absolutePath(input.file_path, ctx.cwd);
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(file);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ENOTDIR") return { content: [{ type: "text", text: `Cannot write ${file}: a parent of it is a file, not a directory.` }], isError: true };
      if (code !== "ENOENT") throw e;
    }
    if (st?.isDirectory()) return { content: [{ type: "text", text: `${file} is a directory; give the path of a file inside it.` }], isError: true };
    if (st) {
      const stale = staleCheck(ctx, file, st);
      if (stale) return { content: [{ type: "text", text: stale }], isError: true };
    }
    const originalFile = st ? readText(file) : null;
    atomicWrite(file, input.content);
    recordRead(ctx, file, fs.statSync(file), input.content);
    const type = st ? "update" : "create";
    const lines = input.content === "" ? 0 : input.content.split("\n").length - (input.content.endsWith("\n") ? 1 : 0);
    const text = type === "create" ? `File created successfully at: ${file} (${lines} lines)` : `The file ${file} has been updated (${lines} lines written).`;
    const meta = { type, filePath: file, success: true, bytes: Buffer.byteLength(input.content), lines };
    const toolResponse = { type, filePath: file, content: input.content, structuredPatch: originalFile === null ? [] : structuredPatch(originalFile, input.content), originalFile, userModified: false };
    return { content: [{ type: "text", text }], meta, structuredContent: meta, toolResponse };
  },
  fromToolResponse: (r) => fileChangeFromResponse(r),
  afterPostToolUse: (post) => refreshAfterHooks(post, "Write", "builtin-tools"),
});

/** The replaced file's text for the hook's `originalFile` (null when it cannot be read as text). */
function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return null;
  }
}

export default Write;
