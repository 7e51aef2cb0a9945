/**
 * Grep: regex search over files, ripgrep's options and output modes, in pure JS (no binary download).
 *
 * This module is the tool definition; the pattern and file filter are in grep-pattern.ts, the per-file
 * search in grep-search.ts and the output by output_mode in grep-output.ts.
 */
import fs from "node:fs";
import { isInsideReal } from "../../lib/fs-path.ts";
import { defineTool, type ToolCallContext, type ToolResult } from "../../core/index.ts";
import { absolutePath, denyOptions, isInside, missingPathMessage, normalizePaths } from "./shared.ts";
import { compilePattern, fileFilter } from "./grep-pattern.ts";
import { search, type SearchResult } from "./grep-search.ts";
import { outsideLinks } from "./walk.ts";
import { ccPath, grepFromResponse } from "./cc-response.ts";
import { EXPAND_MAX_FILES, formatContent, formatCount, formatFiles, largeFilesNote, type ContentOptions, type Meta, type Paging } from "./grep-output.ts";

export { TYPES, compilePattern, fileFilter, requiredLiteral } from "./grep-pattern.ts";
export { matchLines, search, type SearchResult } from "./grep-search.ts";
export { contentLines, EXPAND_MAX_FILES, EXPAND_MAX_LINES } from "./grep-output.ts";

export const DEFAULT_HEAD_LIMIT = 250;

type Mode = "content" | "files_with_matches" | "count";

interface GrepInput {
  pattern: string;
  path?: string;
  glob?: string;
  type?: string;
  output_mode?: Mode;
  "-i"?: boolean;
  "-n"?: boolean;
  "-o"?: boolean;
  "-A"?: number;
  "-B"?: number;
  "-C"?: number;
  context?: number;
  multiline?: boolean;
  head_limit?: number;
  offset?: number;
}

/** What one call searches for and how much of it it needs (from the input). */
interface Plan extends Paging {
  mode: Mode;
  multiline: boolean;
  re: RegExp;
  filter: (rel: string) => boolean;
  /** How many matching files keep their text: all for content, a few for auto-expansion, none for count. */
  keep: number;
  /** Stop the walk after this many matching lines (content-mode paging), else Infinity. */
  stopAfter: number;
}

function planSearch(input: GrepInput): Plan {
  const mode: Mode = input.output_mode ?? "files_with_matches";
  const multiline = !!input.multiline;
  const re = compilePattern(input.pattern, { ignoreCase: input["-i"], multiline });
  const filter = fileFilter(input.glob, input.type) as (rel: string) => boolean;
  const keep = mode === "content" ? Infinity : mode === "count" ? 0 : EXPAND_MAX_FILES;
  // Claude Code's schema takes any number here; a fraction counts down to whole lines
  const limit = input.head_limit === 0 ? Infinity : Math.floor(input.head_limit ?? DEFAULT_HEAD_LIMIT) || Infinity;
  const offset = Math.floor(input.offset ?? 0);
  // content mode lists files in walk order (sorted names, deterministic), so a limited page can stop
  // the walk as soon as it has one line more than it shows; the other modes need every file
  const stopAfter = mode === "content" && limit !== Infinity ? offset + limit + 1 : Infinity;
  return { mode, multiline, re, filter, keep, limit, offset, stopAfter };
}

/** Content mode's context (-C/context, overridden by -B/-A) and line numbers (-n, default on). */
function contentOptions(input: GrepInput, re: RegExp): ContentOptions {
  const c = input["-C"] ?? input.context ?? 0;
  const n = (v: number) => Math.floor(v);
  return { before: n(input["-B"] ?? c), after: n(input["-A"] ?? c), numbers: input["-n"] ?? true, ...(input["-o"] ? { only: re } : {}) };
}

/** The result text for the plan's output_mode (the formatter fills in its mode's meta fields). */
function formatResult(plan: Plan, input: GrepInput, res: SearchResult, cwd: string, meta: Meta): string {
  if (!res.hits.length) return plan.mode === "count" ? "No matches found" : "No files found";
  if (plan.mode === "files_with_matches") return formatFiles(res.hits, plan, cwd, meta);
  if (plan.mode === "count") return formatCount(res.hits, plan, cwd, meta);
  return formatContent(res, plan, cwd, contentOptions(input, plan.re), meta);
}

/** Search the (existing) root with the Read deny rules applied, and format the result. */
async function runGrep(input: GrepInput, ctx: ToolCallContext, root: string, st: fs.Stats, t0: number): Promise<ToolResult> {
  const plan = planSearch(input);
  const denied = denyOptions(ctx);
  const outside = outsideLinks(ctx.cwd, root);
  const res = await search(root, plan.re, plan.filter, plan.multiline, ctx.signal, st.isFile(), plan.keep, plan.stopAfter, { ...denied.options, ...outside.options });
  const meta: Meta = { mode: plan.mode, numFiles: res.hits.length, filesSearched: res.filesSearched, durationMs: 0 };
  if (denied.count()) meta.deniedFiles = denied.count();
  if (outside.count()) meta.outsideLinks = outside.count();
  const text = formatResult(plan, input, res, ctx.cwd, meta);
  meta.durationMs = Math.round(performance.now() - t0);
  const toolResponse = ccGrepResponse(plan.mode, res, meta, ctx.cwd);
  delete meta.contentLines;
  delete meta.countRows;
  return { content: [{ type: "text", text: text + largeFilesNote(res) + denied.note() + outside.note() }], meta, toolResponse };
}

/** Claude Code's Grep tool_response per mode (paths relative to the working directory, as it lists them). */
function ccGrepResponse(mode: string, res: SearchResult, meta: Meta, cwd: string): Record<string, unknown> {
  if (mode === "content") {
    const lines = (meta.contentLines as string[] | undefined) ?? [];
    return { mode, numFiles: 0, filenames: [], content: lines.join("\n"), numLines: lines.length, totalLines: lines.length };
  }
  if (mode === "count") return { mode, numFiles: res.hits.length, filenames: [], content: ((meta.countRows as string[] | undefined) ?? []).join("\n"), numMatches: meta.numMatches ?? 0 };
  const names = ((meta.filenames as string[] | undefined) ?? []).map((f) => ccPath(f, cwd));
  return { mode: "files_with_matches", filenames: names, numFiles: names.length, totalFiles: res.hits.length };
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
      "-o": { type: "boolean", description: "Content mode: show only the matched part of each line, one match a line (ripgrep -o)." },
      "-A": { type: "number", minimum: 0, description: "Lines of context after each match (content mode)." },
      "-B": { type: "number", minimum: 0, description: "Lines of context before each match (content mode)." },
      "-C": { type: "number", minimum: 0, description: "Lines of context before and after each match (content mode)." },
      context: { type: "number", minimum: 0, description: "Same as -C." },
      multiline: { type: "boolean", description: "Let patterns span lines and `.` match newlines (rg -U --multiline-dotall). Default false." },
      head_limit: { type: "number", minimum: 0, description: "Return at most this many lines/entries (default 250; 0 means no limit)." },
      offset: { type: "number", minimum: 0, description: "Skip this many lines/entries before applying head_limit (for paging)." },
    },
    required: ["pattern"],
    additionalProperties: false,
  },
  isReadOnly: true,
  isConcurrencySafe: true,
  isDestructive: false,
  activityText: "Searching",
  normalizeInput: normalizePaths(["path"]),
  checkPermissions: (input, ctx) => (isInsideReal(absolutePath(input.path ?? ctx.cwd, ctx.cwd), ctx.cwd) ? { behavior: "allow", reason: "read-only search inside the working directory" } : undefined),
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
    return runGrep(input, ctx, root, st, t0);
  },
  fromToolResponse: (r) => grepFromResponse(r),
});

export default Grep;
