/**
 * Hot reload: chokidar watches everything a generation was built from and calls
 * `host.invalidate(reason)` — nothing else. The host debounces, rebuilds through the one rebuild
 * path and swaps atomically (or keeps the last good generation).
 *
 * What is watched (recomputed every generation):
 *  - every plugin source the host discovered (bundled manifests, config `plugins`, --plugin-dir):
 *    a plugin directory is watched recursively (manifest, hooks.json, .mcp.json, .lsp.json, tool and
 *    main modules and whatever they import from inside the plugin); a manifest file by itself;
 *  - a source that does not exist yet: its nearest existing ancestor, so it appearing is noticed;
 *  - the host's `watchedFiles()` (config search places, explicit config file, .claude/settings*.json,
 *    .mcp.json), and AGENTS.md files anywhere in the project.
 * New targets are added in `host.discover` and awaited (ready) before manifests are read, so no edit
 * can slip between reading a file and watching it; targets are dropped only after a successful
 * rebuild (a failed one keeps watching what the last good generation used).
 *
 * Enabled by the host option `watch: true` (`toolhost watch`, `toolhost serve`).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { watch, type FSWatcher } from "chokidar";
import { definePlugin, DISCOVER_STAGE_WATCH, type PluginSource } from "../../core/index.ts";

const PLUGIN_NAME = "watch";
/** Never descended into. */
const SKIP_DIRS = new Set(["node_modules", ".git", ".hg", ".svn"]);
/** Dot-directories the project-wide watch does descend into. */
const PROJECT_DOT_DIRS = new Set([".claude", ".claude-plugin"]);
const PROJECT_FILES = new Set(["AGENTS.md"]);
/** How deep the project-wide watch (AGENTS.md, settings) goes. */
const PROJECT_DEPTH = 8;

interface Target {
  /** Directory chokidar watches. */
  dir: string;
  /** "tree": recursive, every file counts (a plugin root). "dir": direct children only. "project": recursive, filtered. */
  kind: "tree" | "dir" | "project";
}

interface Entry {
  target: Target;
  watcher: FSWatcher;
  ready: Promise<void>;
}

const within = (p: string, dir: string) => p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function signature(p: string): string {
  try {
    const st = fs.statSync(p);
    return `${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return "missing";
  }
}

function nearestExisting(p: string): string {
  let d = path.dirname(p);
  while (!fs.existsSync(d) && path.dirname(d) !== d) d = path.dirname(d);
  return d;
}

export default definePlugin({
  name: PLUGIN_NAME,
  async apply(ctx) {
    if (!ctx.host.options.watch) return;
    const host = ctx.host;
    const cwd = path.resolve(host.cwd);
    const entries = new Map<string, Entry>();
    /** What the relevance test consults: updated before chokidar can report anything about it. */
    let trees = new Set<string>();
    let files = new Set<string>();
    let missing = new Set<string>();
    let manifestDirs = new Set<string>();
    let lastSources: PluginSource[] = [];
    let closed = false;
    const refused = new Set<string>();

    const relevant = (p: string): boolean => {
      for (const t of trees) if (within(p, t)) return true;
      if (files.has(p)) return true;
      for (const m of missing) if (within(m, p)) return true;
      if (manifestDirs.has(path.dirname(p)) && p.endsWith(".json")) return true;
      return within(p, cwd) && (PROJECT_FILES.has(path.basename(p)) || !!host.config.agentsMd?.files?.includes(path.basename(p)));
    };

    const skipDir = (p: string, kind: Target["kind"], root: string) => {
      if (p === root) return false;
      const b = path.basename(p);
      if (SKIP_DIRS.has(b)) return true;
      return kind === "project" && b.startsWith(".") && !PROJECT_DOT_DIRS.has(b);
    };

    const open = (target: Target): Entry => {
      const { dir, kind } = target;
      const watcher = watch(dir, {
        ignoreInitial: true,
        persistent: true,
        atomic: true,
        depth: kind === "dir" ? 0 : kind === "project" ? PROJECT_DEPTH : undefined,
        ignored: (p: string, stats?: fs.Stats) => {
          if (stats?.isDirectory()) return skipDir(p, kind, dir);
          if (SKIP_DIRS.has(path.basename(p))) return true;
          // Files of the project-wide and directory watches are only watched when they matter.
          if (kind !== "tree" && stats?.isFile()) return !relevant(p);
          return false;
        },
      });
      const ready = new Promise<void>((resolve) => watcher.once("ready", () => resolve()));
      watcher.on("all", (event, p) => {
        if (closed) return;
        const abs = path.resolve(p);
        host.log.debug(`[${PLUGIN_NAME}] ${kind} ${dir}: ${event} ${abs}${relevant(abs) ? "" : " (ignored)"}`);
        if (!relevant(abs)) return;
        // A plugin directory inside the project is reported by its own (tree) watcher: do not count it twice.
        if (kind !== "tree" && [...trees].some((t) => within(abs, t) && entries.has(`tree:${t}`))) return;
        request(`${event} ${path.relative(cwd, abs) || abs}`);
        trail(abs);
      });
      watcher.on("error", (e) => host.log.warn(`[${PLUGIN_NAME}] ${dir}: ${e instanceof Error ? e.message : String(e)}`));
      return { target, watcher, ready };
    };

    /**
     * Storm control. The host debounces invalidate() (debounceMs), but chokidar reports a file that is
     * written continuously at most every 50 ms, which a short debounce never coalesces. So: the first
     * event after a quiet spell goes straight to the host (a single save reloads fast); events that
     * follow within STORM_GAP_MS wait until STORM_QUIET_MS pass without one (at most MAX_WAIT_MS).
     */
    const STORM_GAP_MS = 250;
    const STORM_QUIET_MS = 120;
    const MAX_WAIT_MS = 1000;
    let lastSent = -Infinity;
    let held: { reasons: Set<string>; since: number; timer: NodeJS.Timeout } | undefined;
    const send = (reasons: Iterable<string>) => {
      lastSent = performance.now();
      for (const r of reasons) host.invalidate(r);
    };
    const request = (reason: string) => {
      const now = performance.now();
      if (!held && now - lastSent > STORM_GAP_MS) return send([reason]);
      if (held) clearTimeout(held.timer);
      held ??= { reasons: new Set(), since: now, timer: undefined as never };
      held.reasons.add(reason);
      held.timer = setTimeout(() => {
        const h = held!;
        held = undefined;
        if (!closed) send(h.reasons);
      }, Math.max(0, Math.min(STORM_QUIET_MS, held.since + MAX_WAIT_MS - now)));
    };

    /**
     * chokidar drops a path's "change" events for 50 ms after one it emitted, with no trailing event:
     * the last save of a quick edit-save-edit could go unseen. So a little after each event, compare the
     * file with what it was then, and invalidate again if it moved on.
     */
    const trailing = new Map<string, { sig: string; timer: NodeJS.Timeout }>();
    const TRAIL_MS = 80;
    const trail = (abs: string) => {
      const prev = trailing.get(abs);
      if (prev) clearTimeout(prev.timer);
      const entry = { sig: signature(abs), timer: setTimeout(() => check(abs), TRAIL_MS) };
      entry.timer.unref?.();
      trailing.set(abs, entry);
    };
    const check = (abs: string) => {
      const e = trailing.get(abs);
      trailing.delete(abs);
      if (!e || closed) return;
      if (signature(abs) === e.sig) return;
      request(`change ${path.relative(cwd, abs) || abs}`);
      trail(abs);
    };

    /** The targets a generation needs: from the discovered sources, the loaded plugins and the host's files. */
    const plan = (sources: PluginSource[]) => {
      const nextTrees = new Set<string>();
      const nextFiles = new Set<string>();
      const nextMissing = new Set<string>();
      const nextManifestDirs = new Set<string>();
      for (const s of sources) {
        if (!s.path) continue;
        const abs = path.resolve(cwd, s.path);
        if (isDir(abs)) {
          // Never a whole file system or home directory, nor a directory above the project.
          if (abs === path.parse(abs).root || abs === os.homedir() || (within(cwd, abs) && abs !== cwd)) {
            if (!refused.has(abs)) host.log.warn(`[${PLUGIN_NAME}] not watching plugin directory ${abs}: it contains the project or a home directory`);
            refused.add(abs);
          } else nextTrees.add(abs);
        }
        else if (fs.existsSync(abs)) {
          nextFiles.add(abs);
          if (s.kind === "bundled") nextManifestDirs.add(path.dirname(abs));
        } else nextMissing.add(abs);
      }
      // Components of plugins whose manifest is a standalone file (their root is not watched as a tree).
      for (const lp of host.plugins()) {
        if (lp.kind !== "plugin" || lp.source.kind === "bundled") continue;
        if ([...nextTrees].some((t) => within(lp.root, t))) continue;
        for (const c of [...lp.components.tools, ...lp.components.hooks, ...lp.components.mcpServers, ...lp.components.lspServers]) nextFiles.add(c.file);
        if (lp.components.main) nextFiles.add(lp.components.main.file);
      }
      for (const f of host.watchedFiles?.() ?? []) nextFiles.add(path.resolve(cwd, f));

      const targets = new Map<string, Target>();
      const add = (t: Target) => {
        const k = `${t.kind}:${t.dir}`;
        if (!targets.has(k)) targets.set(k, t);
      };
      add({ dir: cwd, kind: "project" });
      for (const t of nextTrees) add({ dir: t, kind: "tree" });
      for (const f of nextFiles) {
        if (within(f, cwd) && isProjectReachable(f)) continue;
        if ([...nextTrees].some((t) => within(f, t))) continue;
        add({ dir: fs.existsSync(path.dirname(f)) ? path.dirname(f) : nearestExisting(f), kind: "dir" });
      }
      for (const m of nextMissing) add({ dir: nearestExisting(m), kind: "dir" });
      for (const d of nextManifestDirs) add({ dir: d, kind: "dir" });
      return { targets, trees: nextTrees, files: nextFiles, missing: nextMissing, manifestDirs: nextManifestDirs };
    };

    /** Whether the project-wide watch sees this path (not inside a skipped or hidden directory, not too deep). */
    const isProjectReachable = (f: string) => {
      const parts = path.relative(cwd, path.dirname(f)).split(path.sep).filter(Boolean);
      if (parts.length > PROJECT_DEPTH) return false;
      return parts.every((b) => !SKIP_DIRS.has(b) && (!b.startsWith(".") || PROJECT_DOT_DIRS.has(b)));
    };

    /** Add what is missing (and, after a good build, drop what is no longer needed). */
    const apply = async (sources: PluginSource[], prune: boolean) => {
      if (closed) return;
      const p = plan(sources);
      if (prune) {
        trees = p.trees;
        files = p.files;
        missing = p.missing;
        manifestDirs = p.manifestDirs;
      } else {
        trees = new Set([...trees, ...p.trees]);
        files = new Set([...files, ...p.files]);
        missing = new Set([...missing, ...p.missing]);
        manifestDirs = new Set([...manifestDirs, ...p.manifestDirs]);
      }
      const opened: Promise<void>[] = [];
      for (const [k, t] of p.targets) {
        if (entries.has(k)) continue;
        const e = open(t);
        entries.set(k, e);
        opened.push(e.ready);
      }
      if (prune) {
        for (const [k, e] of entries) {
          if (p.targets.has(k)) continue;
          entries.delete(k);
          void e.watcher.close();
        }
      }
      await Promise.all(opened);
    };

    ctx.hooks.discover.tapPromise({ name: PLUGIN_NAME, stage: DISCOVER_STAGE_WATCH }, async (sources: PluginSource[]) => {
      lastSources = sources;
      await apply(sources, false);
      return sources;
    });
    ctx.hooks.rebuildDone.tap(PLUGIN_NAME, () => {
      void apply(lastSources, true).catch((e) => host.log.warn(`[${PLUGIN_NAME}] ${e instanceof Error ? e.message : String(e)}`));
    });

    // Activated during the first rebuild, after discovery: watch what it found before the first pool is served.
    lastSources = [...(host.sources?.() ?? [])];
    await apply(lastSources, false);

    ctx.onDispose(async () => {
      closed = true;
      for (const t of trailing.values()) clearTimeout(t.timer);
      if (held) clearTimeout(held.timer);
      trailing.clear();
      await Promise.all([...entries.values()].map((e) => e.watcher.close()));
      entries.clear();
    });
  },
});

