/**
 * Finding and compiling a project's instruction files (I/O side of compile.ts), shared by the plugin and
 * `toolhost agents`. Found where Claude Code and Codex look:
 *  - `AGENTS.md` (Codex, and `AGENTS.override.md`) and `CLAUDE.md` / `CLAUDE.local.md` (Claude Code) at
 *    every level of the project, dot directories included (`.github/workflows/AGENTS.md`), and
 *    `.claude/CLAUDE.md` (which governs the directory that holds `.claude/`);
 *  - the same names in the directories above the project up to its repository root (the project is
 *    below them, so they govern all of it).
 * Config `agentsMd.files` replaces the list of names. The project's own files (and those above it) govern
 * everything; a nested `dir/AGENTS.md` governs `dir/` (its path rules are anchored there and its command
 * rules apply to commands run below it), the way Codex scopes nested AGENTS.md files. A CLAUDE.md that is
 * a symlink to (or a copy of) the AGENTS.md beside it is compiled once. Compiled files are cached by
 * (size, mtime).
 */
import fs from "node:fs";
import path from "node:path";
import { globSync } from "tinyglobby";
import { compileAgentsMd, type Compiled } from "./compile.ts";

export const FILE_NAME = "AGENTS.md";
/** The instruction files compiled by default; config `agentsMd.files` replaces the list. */
export const DEFAULT_FILES = ["AGENTS.md", "AGENTS.override.md", "CLAUDE.md", "CLAUDE.local.md"];
/** How deep below the project nested instruction files are looked for. */
export const MAX_DEPTH = 8;
const SKIP = ["**/node_modules/**", "**/.git/**", "**/dist/**", "**/build/**", "**/vendor/**", "**/.venv/**", "**/venv/**", "**/target/**", "**/.next/**", "**/.cache/**", "**/.turbo/**", "**/.yarn/**", "**/.tox/**", "**/.mypy_cache/**", "**/.pytest_cache/**", "**/.zig-cache/**", "**/zig-out/**"];

export interface AgentsFile extends Compiled {
  file: string;
  scope: string;
}

const cache = new Map<string, { size: number; mtimeMs: number; compiled: Compiled }>();

/** The directory an instruction file governs: its own, or the parent of a `.claude/` it sits in. */
export function scopeOf(file: string): string {
  const dir = path.dirname(file);
  return path.basename(dir) === ".claude" ? path.dirname(dir) : dir;
}

/** Directories above `cwd` up to its repository root (the nearest one with `.git`), outermost first; none outside a repository. */
function ancestors(cwd: string): string[] {
  const out: string[] = [];
  for (let d = cwd; ; ) {
    if (fs.existsSync(path.join(d, ".git"))) return d === cwd ? [] : out.reverse();
    const up = path.dirname(d);
    if (up === d) return [];
    d = up;
    out.push(d);
  }
}

/** Instruction files of a project: the ones above it, then its own (in the order named), then nested ones by path. */
export function findAgentsFiles(cwd: string, names: readonly string[] = DEFAULT_FILES): string[] {
  if (!names.length) return [];
  const pattern = names.length === 1 ? `**/${names[0]}` : `**/{${names.join(",")}}`;
  const found = globSync(pattern, { cwd, absolute: true, dot: true, deep: MAX_DEPTH, ignore: SKIP, followSymbolicLinks: false }).map((f) => path.resolve(f));
  const rank = (f: string) => {
    const k = names.indexOf(path.basename(f));
    return scopeOf(f) === cwd ? k + (path.dirname(f) === cwd ? 0 : 0.5) : names.length + 1;
  };
  const own = found.sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  const above = ancestors(cwd).flatMap((d) => names.map((n) => path.join(d, n)).filter((f) => fs.existsSync(f)));
  return dedupe([...above, ...own]);
}

/** A CLAUDE.md symlinked to (or identical with) an instruction file already in the list is dropped. */
function dedupe(files: string[]): string[] {
  const real = new Set<string>();
  const content = new Map<string, string>();
  const out: string[] = [];
  for (const f of files) {
    let r: string;
    let text: string;
    try {
      r = fs.realpathSync(f);
      text = fs.readFileSync(r, "utf8");
    } catch {
      out.push(f); // unreadable: reported by loadAgents
      continue;
    }
    const key = `${scopeOf(f)}\0${text}`;
    if (real.has(r) || content.has(key)) continue;
    real.add(r);
    content.set(key, f);
    out.push(f);
  }
  return out;
}

/** Compile every instruction file of the project (unreadable files become problems of their own). */
export function loadAgents(cwd: string, names: readonly string[] = DEFAULT_FILES): { files: AgentsFile[]; errors: Array<{ file: string; message: string }> } {
  const files: AgentsFile[] = [];
  const errors: Array<{ file: string; message: string }> = [];
  for (const file of findAgentsFiles(cwd, names)) {
    const scope = scopeOf(file);
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
