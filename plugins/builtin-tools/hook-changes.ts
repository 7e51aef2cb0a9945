/**
 * A PostToolUse hook that changes the file Write or Edit just wrote (a formatter, a linter --fix): the
 * read-before-write state is refreshed to the file as the hook left it, so the next Edit succeeds instead
 * of failing as "modified since it was read" (Claude Code 2.1.328 does the same: recorded in
 * test/conformance/shapes/formatter.json). The model is told, with the lines that changed, because its
 * own copy of the file no longer matches (Claude Code tells it with its next prompt's changed-files note;
 * toolhost has no next prompt of its own, so the note goes with this result).
 */
import fs from "node:fs";
import type { AfterPostToolUse } from "../../core/index.ts";
import { structuredPatch } from "./cc-response.ts";
import { fileStates, recordRead, sha1 } from "./shared.ts";

const MAX_NOTE_LINES = 40;

export function refreshAfterHooks(post: AfterPostToolUse, toolName: "Write" | "Edit", plugin: string): void {
  const call = post.call;
  const tool = { name: toolName };
  if (post.result.isError) return;
  const resp = post.result.toolResponse as { filePath?: unknown; content?: unknown; originalFile?: unknown } | undefined;
  const file = typeof resp?.filePath === "string" ? resp.filePath : undefined;
  if (!file) return;
  const ctx = { sessionState: call.session.shared, state: call.session.shared };
  const rec = fileStates(ctx).get(file);
  let st: fs.Stats;
  let now: Buffer;
  try {
    st = fs.statSync(file);
    now = fs.readFileSync(file);
  } catch {
    return; // a hook removed or moved it: the next Read says so
  }
  if (rec && rec.mtimeMs === st.mtimeMs && rec.size === st.size) return;
  if (rec?.hash && rec.hash === sha1(now)) return;
  const written = writtenText(call.input as Record<string, unknown>, tool.name, resp!);
  recordRead(ctx, file, st, now);
  fileStates(ctx).get(file)!.behindModel = true;
  const after = now.toString("utf8");
  const diff = written === undefined ? [] : structuredPatch(written, after).flatMap((h) => [`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, ...h.lines]);
  const shown = diff.slice(0, MAX_NOTE_LINES);
  const more = diff.length > shown.length ? `\n… (${diff.length - shown.length} more diff lines; Read the file to see all of it)` : "";
  post.addContext(
    `Note: ${file} was modified by a PostToolUse hook (e.g. a formatter or linter) after ${tool.name} wrote it. Its current content is what the next Edit will match against${diff.length ? "; the hook's changes:\n" + shown.join("\n") + more : "."}`,
    plugin,
  );
}

/** The file's text as the tool left it (before the hooks): Write's content, Edit's result. */
function writtenText(input: Record<string, unknown>, toolName: string, resp: { content?: unknown; originalFile?: unknown }): string | undefined {
  if (toolName === "Write") return typeof input.content === "string" ? input.content : undefined;
  const orig = typeof resp.originalFile === "string" ? resp.originalFile : "";
  const o = input.old_string;
  const n = input.new_string;
  if (typeof o !== "string" || typeof n !== "string") return undefined;
  if (o === "") return n;
  return input.replace_all ? orig.split(o).join(n) : orig.replace(o, () => n);
}
