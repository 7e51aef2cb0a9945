/**
 * Which files a result's content came from, however it was read: Read's `file_path`; the files a Bash
 * command's readers read (`cat f`, `head -5 a b`, `< f`); the files Grep's content page shows; the path(s)
 * of an MCP filesystem-style read (`read_file {path}`, `read_multiple_files {paths}`). The trust header and
 * the injection advisory apply to all of them (one boundary for every read).
 */
import path from "node:path";
import type { CallState, ToolResult } from "../../core/index.ts";
import { analyzeBash } from "../../lib/rules/bash.ts";
import { mcpFilePaths, mcpReturnsContent } from "../../lib/fs-path.ts";

const SHELL_TOOLS = new Set(["Bash", "exec_command"]);
/** MCP tools whose name says they return local file content (the filesystem server's read_file, read_text_file, read_multiple_files …). */
const MCP_READ = /(read|get|head|tail|cat|view|open).*file|file.*(content|text)/i;
/** Inputs that name a remote file (GitHub's get_file_contents {owner, repo, path}): not a local path. */
const REMOTE_KEYS = ["owner", "repo", "repository", "url", "uri", "bucket", "project"];

export interface Sources {
  /** Files whose content the result carries (absolute). */
  files: string[];
  /** How they were read, for the header of a multi-file result ("Bash `cat a b`", "Grep"). */
  via?: string;
}

export function sourcesOf(result: ToolResult, call: CallState): Sources | undefined {
  const tool = call.tool;
  if (!tool || result.isError) return undefined;
  const input = (call.input ?? {}) as Record<string, unknown>;
  if (tool.name === "Read") return typeof input.file_path === "string" ? { files: [input.file_path] } : undefined;
  if (SHELL_TOOLS.has(tool.name)) return shellReads(tool.name === "Bash" ? input.command : input.cmd, call);
  if (tool.name === "Grep") {
    const files = result.meta?.contentFiles;
    return Array.isArray(files) && files.length ? { files: files.filter((f): f is string => typeof f === "string"), via: "Grep" } : undefined;
  }
  if (tool.origin === "mcp" && mcpReturnsContent(tool.name)) {
    const files = mcpFilePaths(tool.name, input, call.cwd);
    return files ? { files, via: tool.name } : undefined;
  }
  return undefined;
}

function shellReads(command: unknown, call: CallState): Sources | undefined {
  if (typeof command !== "string" || !command) return undefined;
  const dir = call.workingDirectory ?? call.cwd;
  const b = analyzeBash(command, dir);
  const files: string[] = [];
  for (const s of b.segments) {
    for (const r of s.reads) {
      if (r.dynamic || r.glob) continue;
      const p = r.path === "~" || r.path.startsWith("~/") ? path.join(process.env.HOME ?? "", r.path.slice(1)) : path.resolve(r.base, r.path);
      if (!files.includes(p)) files.push(p);
    }
  }
  return files.length ? { files, via: `Bash \`${command.length > 60 ? command.slice(0, 57) + "..." : command}\`` } : undefined;
}
