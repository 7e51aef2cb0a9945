/**
 * Finding and compiling a project's AGENTS.md files (I/O side of compile.ts), shared by the plugin and
 * `toolhost agents`. The project's own AGENTS.md governs everything; a nested `dir/AGENTS.md` governs
 * `dir/` (its path rules are anchored there and its command rules apply to commands run below it), the
 * way Codex scopes nested AGENTS.md files. Compiled files are cached by (size, mtime).
 */
import fs from "node:fs";
import path from "node:path";
import { globSync } from "tinyglobby";
import { compileAgentsMd, type Compiled } from "./compile.ts";

export const FILE_NAME = "AGENTS.md";
/** The instruction files compiled by default; config `agentsMd.files` replaces the list (e.g. ["AGENTS.md", "CLAUDE.md"]). */
export const DEFAULT_FILES = [FILE_NAME];
/** How deep below the project nested AGENTS.md files are looked for. */
export const MAX_DEPTH = 8;
const SKIP = ["**/node_modules/**", "**/.git/**", "**/dist/**", "**/build/**", "**/vendor/**", "**/.venv/**", "**/target/**"];

export interface AgentsFile extends Compiled {
  file: string;
  scope: string;
}

const cache = new Map<string, { size: number; mtimeMs: number; compiled: Compiled }>();

/** Instruction files of a project (AGENTS.md by default): root ones first (in the order named), then nested ones by path. */
export function findAgentsFiles(cwd: string, names: readonly string[] = DEFAULT_FILES): string[] {
  if (!names.length) return [];
  const pattern = names.length === 1 ? `**/${names[0]}` : `**/{${names.join(",")}}`;
  const found = globSync(pattern, { cwd, absolute: true, dot: false, deep: MAX_DEPTH, ignore: SKIP, followSymbolicLinks: false });
  const rank = (f: string) => {
    const k = names.indexOf(path.basename(f));
    return path.dirname(f) === cwd ? k : names.length + 1;
  };
  return found.map((f) => path.resolve(f)).sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

/** Compile every AGENTS.md of the project (unreadable files become problems of their own). */
export function loadAgents(cwd: string, names: readonly string[] = DEFAULT_FILES): { files: AgentsFile[]; errors: Array<{ file: string; message: string }> } {
  const files: AgentsFile[] = [];
  const errors: Array<{ file: string; message: string }> = [];
  for (const file of findAgentsFiles(cwd, names)) {
    const scope = path.dirname(file);
    try {
      const st = fs.statSync(file);
      let hit = cache.get(file);
      if (!hit || hit.size !== st.size || hit.mtimeMs !== st.mtimeMs) {
        hit = { size: st.size, mtimeMs: st.mtimeMs, compiled: compileAgentsMd(fs.readFileSync(file, "utf8"), file, scope) };
        cache.set(file, hit);
      }
      files.push({ file, scope, ...hit.compiled });
    } catch (e) {
      errors.push({ file, message: `cannot read: ${e instanceof Error ? e.message : String(e)}` });
    }
  }
  return { files, errors };
}
