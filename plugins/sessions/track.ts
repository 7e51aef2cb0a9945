/**
 * What the sessions plugin keeps per session (a Track), and where its state lives: TOOLHOST_HOME, the
 * default backend (the disk store when started from the toolhost CLI), and the exit flush of pending writes.
 */
import os from "node:os";
import path from "node:path";
import type { SessionData } from "../../core/index.ts";
import type { SessionOp, TaskEntry } from "../../lib/session-store/index.ts";
import type { Synced } from "./codec.ts";

export const PLUGIN_NAME = "sessions";

export interface Track {
  /** The in-memory session synced (host.endSession and a later call make a new one with the same id). */
  session: SessionData;
  persistent: boolean;
  synced: Synced;
  version: number;
  ops: SessionOp[];
  usage: Map<string, number>;
  /** Tasks this instance started in the session (marked "gone" on close if still running). */
  tasks: Map<string, TaskEntry>;
  /** The stored version this copy matches (0: not stored yet; -1: unknown — another writer came between). */
  known: number;
  /** Dropped from the bookkeeping (Runtime.forget): its session is no longer checked against the store. */
  dropped?: boolean;
  /** sqlite: the store's change stamp when this copy was last checked against it. */
  stamp?: number;
  /** s.loaded.length when last written: a ToolSearch load is written before the call returns. */
  loadedN: number;
  /** Approval keys this copy holds (restored, given here): a freshness check replays only new ones. */
  approved: Set<string>;
}

/** Runtimes with a synchronous store: their pending writes are flushed when the process exits. */
const atExit = new Set<{ flushNow(): void }>();
let exitHooked = false;
export function flushAtExit(rt: { flushNow(): void }): void {
  atExit.add(rt);
  if (exitHooked) return;
  exitHooked = true;
  process.on("exit", () => {
    for (const r of atExit) r.flushNow();
  });
}
export function noFlushAtExit(rt: { flushNow(): void }): void {
  atExit.delete(rt);
}

/** Started from the toolhost CLI (`toolhost call`, `serve` …): then the disk store is the default. */
export function isCli(): boolean {
  const bin = path.basename(process.argv[1] ?? "");
  return bin === "toolhost" || bin === "toolhost.mjs";
}

export function home(): string {
  return process.env.TOOLHOST_HOME || path.join(os.homedir(), ".toolhost");
}
