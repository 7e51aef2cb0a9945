/**
 * The chokidar side: one watcher per target, storm control and a trailing re-check. Its only effect
 * on the host is `host.invalidate(reason)`.
 */
import fs from "node:fs";
import path from "node:path";
import { watch, type FSWatcher } from "chokidar";
import type { HostView } from "../../core/index.ts";
import { isInside } from "../../lib/fs-path.ts";
import { emptySet, isRelevant, PROJECT_DEPTH, SKIP_DIRS, skipDir, type Plan, type Target, type WatchSet } from "./plan.ts";

export const PLUGIN_NAME = "watch";

/**
 * Storm control. The host debounces invalidate() (debounceMs), but chokidar reports a file that is
 * written continuously at most every 50 ms, which a short debounce never coalesces. So: the first
 * event after a quiet spell goes straight to the host (a single save reloads fast); events that
 * follow within STORM_GAP_MS wait until STORM_QUIET_MS pass without one (at most MAX_WAIT_MS).
 */
const STORM_GAP_MS = 250;
const STORM_QUIET_MS = 120;
const MAX_WAIT_MS = 1000;
/**
 * chokidar drops a path's "change" events for 50 ms after one it emitted, with no trailing event:
 * the last save of a quick edit-save-edit could go unseen. So TRAIL_MS after each event, compare the
 * file with what it was then, and invalidate again if it moved on.
 */
const TRAIL_MS = 80;

interface Entry {
  target: Target;
  watcher: FSWatcher;
  ready: Promise<void>;
}

function signature(p: string): string {
  try {
    const st = fs.statSync(p);
    return `${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return "missing";
  }
}

export class Watcher {
  private readonly entries = new Map<string, Entry>();
  /** Updated before chokidar can report anything about a new target. */
  private set: WatchSet = emptySet();
  private closed = false;
  private lastSent = -Infinity;
  private held: { reasons: Set<string>; since: number; timer: NodeJS.Timeout } | undefined;
  private readonly trailing = new Map<string, { sig: string; timer: NodeJS.Timeout }>();

  constructor(
    private readonly host: HostView,
    private readonly cwd: string,
  ) {}

  private relevant(p: string): boolean {
    return isRelevant(p, this.set, this.cwd, this.host.config.agentsMd?.files);
  }

  private open(target: Target): Entry {
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
        if (kind !== "tree" && stats?.isFile()) return !this.relevant(p);
        return false;
      },
    });
    const ready = new Promise<void>((resolve) => watcher.once("ready", () => resolve()));
    watcher.on("all", (event, p) => this.onEvent(target, event, path.resolve(p)));
    watcher.on("error", (e) => this.host.log.warn(`[${PLUGIN_NAME}] ${dir}: ${e instanceof Error ? e.message : String(e)}`));
    return { target, watcher, ready };
  }

  private onEvent({ dir, kind }: Target, event: string, abs: string): void {
    if (this.closed) return;
    this.host.log.debug(`[${PLUGIN_NAME}] ${kind} ${dir}: ${event} ${abs}${this.relevant(abs) ? "" : " (ignored)"}`);
    if (!this.relevant(abs)) return;
    // A plugin directory inside the project is reported by its own (tree) watcher: do not count it twice.
    if (kind !== "tree" && [...this.set.trees].some((t) => isInside(abs, t) && this.entries.has(`tree:${t}`))) return;
    this.request(`${event} ${path.relative(this.cwd, abs) || abs}`);
    this.trail(abs);
  }

  private send(reasons: Iterable<string>): void {
    this.lastSent = performance.now();
    for (const r of reasons) this.host.invalidate(r);
  }

  private request(reason: string): void {
    const now = performance.now();
    if (!this.held && now - this.lastSent > STORM_GAP_MS) return this.send([reason]);
    if (this.held) clearTimeout(this.held.timer);
    const held = (this.held ??= { reasons: new Set(), since: now, timer: undefined as never });
    held.reasons.add(reason);
    held.timer = setTimeout(() => {
      this.held = undefined;
      if (!this.closed) this.send(held.reasons);
    }, Math.max(0, Math.min(STORM_QUIET_MS, held.since + MAX_WAIT_MS - now)));
  }

  private trail(abs: string): void {
    const prev = this.trailing.get(abs);
    if (prev) clearTimeout(prev.timer);
    const entry = { sig: signature(abs), timer: setTimeout(() => this.check(abs), TRAIL_MS) };
    entry.timer.unref?.();
    this.trailing.set(abs, entry);
  }

  private check(abs: string): void {
    const e = this.trailing.get(abs);
    this.trailing.delete(abs);
    if (!e || this.closed) return;
    if (signature(abs) === e.sig) return;
    this.request(`change ${path.relative(this.cwd, abs) || abs}`);
    this.trail(abs);
  }

  /** Add what is missing (and, with `prune` after a good build, drop what is no longer needed); resolves when new watchers are ready. */
  async apply(p: Plan, prune: boolean): Promise<void> {
    if (this.closed) return;
    const s = this.set;
    this.set = prune
      ? { trees: p.trees, files: p.files, missing: p.missing, manifestDirs: p.manifestDirs }
      : { trees: new Set([...s.trees, ...p.trees]), files: new Set([...s.files, ...p.files]), missing: new Set([...s.missing, ...p.missing]), manifestDirs: new Set([...s.manifestDirs, ...p.manifestDirs]) };
    const opened: Promise<void>[] = [];
    for (const [k, t] of p.targets) {
      if (this.entries.has(k)) continue;
      const e = this.open(t);
      this.entries.set(k, e);
      opened.push(e.ready);
    }
    if (prune) {
      for (const [k, e] of this.entries) {
        if (p.targets.has(k)) continue;
        this.entries.delete(k);
        void e.watcher.close();
      }
    }
    await Promise.all(opened);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.trailing.values()) clearTimeout(t.timer);
    if (this.held) clearTimeout(this.held.timer);
    this.trailing.clear();
    await Promise.all([...this.entries.values()].map((e) => e.watcher.close()));
    this.entries.clear();
  }
}
