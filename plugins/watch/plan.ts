/**
 * Which paths a generation needs watched (recomputed every generation), and which changed paths
 * matter. No watchers here: plain functions of the sources, the loaded plugins and the host's files.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { LoadedPlugin, PluginSource } from "../../core/index.ts";
import { isInside } from "../../lib/fs-path.ts";

/** Never descended into. */
export const SKIP_DIRS = new Set(["node_modules", ".git", ".hg", ".svn"]);
/** Dot-directories the project-wide watch does descend into. */
const PROJECT_DOT_DIRS = new Set([".claude", ".claude-plugin", ".github"]);
const PROJECT_FILES = new Set(["AGENTS.md", "AGENTS.override.md", "CLAUDE.md", "CLAUDE.local.md"]);
/** How deep the project-wide watch (AGENTS.md, settings) goes. */
export const PROJECT_DEPTH = 8;

export interface Target {
  /** Directory chokidar watches. */
  dir: string;
  /** "tree": recursive, every file counts (a plugin root). "dir": direct children only. "project": recursive, filtered. */
  kind: "tree" | "dir" | "project";
}

/** What the relevance test consults. */
export interface WatchSet {
  trees: Set<string>;
  files: Set<string>;
  missing: Set<string>;
  manifestDirs: Set<string>;
}

export interface Plan extends WatchSet {
  targets: Map<string, Target>;
}

export interface PlanInput {
  cwd: string;
  sources: readonly PluginSource[];
  plugins: readonly LoadedPlugin[];
  watchedFiles: readonly string[];
  /** Called for a plugin directory that is refused (a root, a home directory, above the project). */
  refuse(abs: string): void;
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function nearestExisting(p: string): string {
  let d = path.dirname(p);
  while (!fs.existsSync(d) && path.dirname(d) !== d) d = path.dirname(d);
  return d;
}

export function emptySet(): WatchSet {
  return { trees: new Set(), files: new Set(), missing: new Set(), manifestDirs: new Set() };
}

/** A changed path matters when it is in a watched tree, a watched file, leads to a missing source, or is an AGENTS.md. */
export function isRelevant(p: string, set: WatchSet, cwd: string, agentsFiles: readonly string[] | undefined): boolean {
  for (const t of set.trees) if (isInside(p, t)) return true;
  if (set.files.has(p)) return true;
  for (const m of set.missing) if (isInside(m, p)) return true;
  if (set.manifestDirs.has(path.dirname(p)) && p.endsWith(".json")) return true;
  return isInside(p, cwd) && (PROJECT_FILES.has(path.basename(p)) || !!agentsFiles?.includes(path.basename(p)));
}

export function skipDir(p: string, kind: Target["kind"], root: string): boolean {
  if (p === root) return false;
  const b = path.basename(p);
  if (SKIP_DIRS.has(b)) return true;
  return kind === "project" && b.startsWith(".") && !PROJECT_DOT_DIRS.has(b);
}

/** Whether the project-wide watch sees this path (not inside a skipped or hidden directory, not too deep). */
function isProjectReachable(f: string, cwd: string): boolean {
  const parts = path.relative(cwd, path.dirname(f)).split(path.sep).filter(Boolean);
  if (parts.length > PROJECT_DEPTH) return false;
  return parts.every((b) => !SKIP_DIRS.has(b) && (!b.startsWith(".") || PROJECT_DOT_DIRS.has(b)));
}

/** Trees, files, missing sources and manifest directories, from the discovered sources and loaded plugins. */
function watchSetOf(input: PlanInput): WatchSet {
  const { cwd } = input;
  const set = emptySet();
  for (const s of input.sources) {
    if (!s.path) continue;
    const abs = path.resolve(cwd, s.path);
    if (isDir(abs)) {
      // Never a whole file system or home directory, nor a directory above the project.
      if (abs === path.parse(abs).root || abs === os.homedir() || (isInside(cwd, abs) && abs !== cwd)) input.refuse(abs);
      else set.trees.add(abs);
    } else if (fs.existsSync(abs)) {
      set.files.add(abs);
      if (s.kind === "bundled") set.manifestDirs.add(path.dirname(abs));
    } else set.missing.add(abs);
  }
  // Components of plugins whose manifest is a standalone file (their root is not watched as a tree).
  for (const lp of input.plugins) {
    if (lp.kind !== "plugin" || lp.source.kind === "bundled") continue;
    if ([...set.trees].some((t) => isInside(lp.root, t))) continue;
    for (const c of [...lp.components.tools, ...lp.components.hooks, ...lp.components.mcpServers, ...lp.components.lspServers]) set.files.add(c.file);
    if (lp.components.main) set.files.add(lp.components.main.file);
  }
  for (const f of input.watchedFiles) set.files.add(path.resolve(cwd, f));
  return set;
}

/** The targets a generation needs: the project, every plugin tree, and the directories of files outside them. */
export function plan(input: PlanInput): Plan {
  const { cwd } = input;
  const set = watchSetOf(input);
  const targets = new Map<string, Target>();
  const add = (t: Target) => {
    const k = `${t.kind}:${t.dir}`;
    if (!targets.has(k)) targets.set(k, t);
  };
  add({ dir: cwd, kind: "project" });
  for (const t of set.trees) add({ dir: t, kind: "tree" });
  for (const f of set.files) {
    if (isInside(f, cwd) && isProjectReachable(f, cwd)) continue;
    if ([...set.trees].some((t) => isInside(f, t))) continue;
    add({ dir: fs.existsSync(path.dirname(f)) ? path.dirname(f) : nearestExisting(f), kind: "dir" });
  }
  for (const m of set.missing) add({ dir: nearestExisting(m), kind: "dir" });
  for (const d of set.manifestDirs) add({ dir: d, kind: "dir" });
  return { targets, ...set };
}
