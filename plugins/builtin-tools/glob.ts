/**
 * Glob: file paths matching a glob pattern, newest first, .gitignore respected, capped with a note.
 * picomatch does the matching (the matcher tinyglobby itself uses); walk.ts does the crawl so that
 * nested .gitignore files prune whole directories before they are read.
 */
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import type PicomatchNs from "picomatch";

// CJS packages through createRequire: the same function whether jiti or vitest loads this module
const picomatch = createRequire(import.meta.url)("picomatch") as typeof PicomatchNs;
import { isInsideReal } from "../../lib/fs-path.ts";
import { defineTool, type ToolResult } from "../../core/index.ts";
import { ccPath, globFromResponse } from "./cc-response.ts";
import { absolutePath, denyOptions, isInside, missingPathMessage, normalizePaths } from "./shared.ts";
import { outsideLinks, walkFiles } from "./walk.ts";

export const GLOB_LIMIT = 100;

interface GlobInput {
  pattern: string;
  path?: string;
}

/** Split a pattern into the directory it starts in and the part to match below it. */
export function splitPattern(pattern: string, root: string): { root: string; pattern: string } {
  let p = pattern.replace(/\\/g, "/");
  if (p.startsWith("~/") || p.startsWith("/")) {
    const scan = picomatch.scan(p);
    const base = scan.base || "/";
    return { root: absolutePath(base, root), pattern: scan.glob || path.basename(p) };
  }
  if (p.startsWith("./")) p = p.slice(2);
  const scan = picomatch.scan(p);
  if (scan.isGlob && scan.base) return { root: path.join(root, scan.base), pattern: scan.glob };
  if (!scan.isGlob) return { root: path.join(root, path.dirname(p)), pattern: path.basename(p) };
  return { root, pattern: p };
}

export const Glob = defineTool<GlobInput>({
  name: "Glob",
  description:
    "When you need to find files by name or path pattern (all test files, every *.ts under src, where a config file lives) rather than by their content. " +
    "Matches the glob `pattern` (`*` within a path segment, `**` across segments, `{a,b}` alternatives, e.g. `src/**/*.ts`) below `path` (default: the working directory) and returns absolute file paths, most recently modified first, at most 100 with a note of how many more matched. Files ignored by .gitignore and the .git and node_modules directories are skipped. " +
    "Why: it is faster and cheaper than listing directories with Bash, and newest-first order puts the files you are most likely working on at the top.",
  searchHint: "find files by name pattern list directory wildcard",
  inputSchema: {
    type: "object",
    properties: {
      pattern: { type: "string", description: "Glob pattern to match file paths against, relative to path (e.g. \"**/*.js\", \"src/**/*.{ts,tsx}\")." },
      path: { type: "string", description: "Directory to search in (absolute, or relative to the working directory). Defaults to the working directory; omit it rather than passing \"undefined\" or \"null\"." },
    },
    required: ["pattern"],
    additionalProperties: false,
  },
  isReadOnly: true,
  isConcurrencySafe: true,
  isDestructive: false,
  activityText: "Searching files",
  // An absolute (or ~/, or ../) pattern moves its static directory into `path`, so path rules (Read(...)) and
  // hooks see where the search really happens: {pattern: "/etc/**/*.conf"} → {pattern: "**/*.conf", path: "/etc"}.
  normalizeInput(input, ctx) {
    const out = normalizePaths<GlobInput>(["path"])(input, ctx);
    const p = out.pattern.replace(/\\/g, "/");
    if (p.startsWith("/") || p.startsWith("~/") || /(^|\/)\.\.(\/|$)/.test(picomatch.scan(p).base)) {
      const split = splitPattern(p, absolutePath(out.path ?? ctx.cwd, ctx.cwd));
      return { ...out, pattern: split.pattern, path: split.root };
    }
    return out;
  },
  checkPermissions: (input, ctx) => {
    const where = splitPattern(input.pattern, absolutePath(input.path ?? ctx.cwd, ctx.cwd)).root;
    return isInsideReal(where, ctx.cwd) ? { behavior: "allow", reason: "read-only search inside the working directory" } : undefined;
  },
  async call(input, ctx): Promise<ToolResult> {
    const t0 = performance.now();
    const base = absolutePath(input.path ?? ctx.cwd, ctx.cwd);
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(base);
    } catch {
      return { content: [{ type: "text", text: missingPathMessage(base, ctx.cwd, "Directory") }], isError: true };
    }
    if (!st.isDirectory()) return { content: [{ type: "text", text: `path ${base} is a file, not a directory. Give its directory as path, or Read the file.` }], isError: true };
    const split = splitPattern(input.pattern, base);
    const isMatch = picomatch(split.pattern, { dot: true });
    const maxDepth = split.pattern.includes("**") ? Infinity : split.pattern.split("/").length - 1;
    const found: Array<{ abs: string; mtime: number }> = [];
    const denied = denyOptions(ctx);
    const outside = outsideLinks(ctx.cwd, split.root);
    if (fs.existsSync(split.root)) {
      for await (const f of walkFiles(split.root, { signal: ctx.signal, enterDir: (_rel, depth) => depth <= maxDepth, acceptFile: isMatch, ...denied.options, ...outside.options })) {
        {
          let mtime = 0;
          try {
            mtime = fs.statSync(f.abs).mtimeMs;
          } catch {
            /* vanished */
          }
          found.push({ abs: f.abs, mtime });
        }
      }
    }
    found.sort((a, b) => b.mtime - a.mtime || (a.abs < b.abs ? -1 : 1));
    const shown = found.slice(0, GLOB_LIMIT);
    const ms = Math.round(performance.now() - t0);
    const meta: Record<string, unknown> = { filenames: shown.map((f) => f.abs), numFiles: found.length, truncated: found.length > GLOB_LIMIT, durationMs: ms };
    if (denied.count()) meta.deniedFiles = denied.count();
    if (outside.count()) meta.outsideLinks = outside.count();
    const notes = denied.note() + outside.note();
    const toolResponse = { filenames: shown.map((f) => ccPath(f.abs, ctx.cwd)), durationMs: ms, numFiles: shown.length, truncated: found.length > GLOB_LIMIT, totalMatches: found.length, countIsComplete: true };
    if (!found.length) return { content: [{ type: "text", text: `No files found matching ${input.pattern} in ${base}${notes}` }], meta, toolResponse };
    let text = shown.map((f) => f.abs).join("\n");
    if (found.length > GLOB_LIMIT) text += `\n(Showing the ${GLOB_LIMIT} most recently modified of ${found.length} matching files; ${found.length - GLOB_LIMIT} omitted. Use a more specific pattern or path to see the rest.)`;
    return { content: [{ type: "text", text: text + notes }], meta, toolResponse };
  },
  fromToolResponse: (r) => globFromResponse(r),
});

export default Glob;
