/**
 * Ending a child's whole process group (POSIX): a server started through a wrapper (`sh -c 'node server.mjs'`,
 * `bun run`, `npm exec`) is the host's grandchild, and killing the direct child alone leaves it running, holding its
 * port and the pipes that keep the host from exiting. A child spawned `detached: true` leads its own group; these
 * helpers signal the group and wait, bounded, until no process of it is left. Windows has no process groups: there
 * the direct child is signalled.
 */
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";

const POSIX = process.platform !== "win32";

/**
 * Whether any live process of the group led by `pid` is still there. A member that exited but is not reaped yet (a
 * zombie: an orphan waits for its reaper, and a container's PID 1 may reap late or never) counts as gone — on Linux
 * the group's members are read from /proc.
 */
export function groupAlive(pid: number): boolean {
  try {
    process.kill(POSIX ? -pid : pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  return process.platform !== "linux" || liveMember(pid);
}

function liveMember(pgid: number): boolean {
  let names: string[];
  try {
    names = fs.readdirSync("/proc");
  } catch {
    return true;
  }
  for (const n of names) {
    if (n.charCodeAt(0) < 48 || n.charCodeAt(0) > 57) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${n}/stat`, "utf8");
    } catch {
      continue;
    }
    // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so read after the last ")".
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(f[2]) === pgid && f[0] !== "Z" && f[0] !== "X") return true;
  }
  return false;
}

/** Signal the group led by `pid` (the direct child alone on Windows); a group already gone is not an error. */
export function signalGroup(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(POSIX ? -pid : pid, sig);
  } catch {
    /* gone */
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Wait until the group is gone, at most `ms`; true when it is gone. */
async function groupGone(pid: number, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (!groupAlive(pid)) return true;
    if (Date.now() >= end) return false;
    await sleep(Math.min(20, Math.max(1, end - Date.now())));
  }
}

export interface EndGroupOptions {
  /** Before any signal, how long the group may take to exit by itself (e.g. after its stdin was ended). */
  politeMs?: number;
  /** After SIGTERM, how long before SIGKILL. */
  termMs?: number;
}

/**
 * End the group led by `child`: wait `politeMs` for it to go by itself, then SIGTERM the group, then SIGKILL it after
 * `termMs` if anything survives (a server that ignores SIGTERM, a grandchild the wrapper left behind). Resolves when
 * the group is gone (or, after SIGKILL, at most 1 s later).
 */
export async function endGroup(child: ChildProcess, opts: EndGroupOptions = {}): Promise<void> {
  const pid = child.pid;
  if (!pid) return;
  if (!POSIX) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    return;
  }
  if (await groupGone(pid, opts.politeMs ?? 0)) return;
  signalGroup(pid, "SIGTERM");
  if (await groupGone(pid, opts.termMs ?? 500)) return;
  signalGroup(pid, "SIGKILL");
  await groupGone(pid, 1000);
}

const LIVE = new Set<number>();
let exitHook = false;

/**
 * Track a detached child's group until it is ended: when node itself exits with groups still running (a host never
 * closed, process.exit() in a CLI), they are SIGKILLed — a detached group no longer gets the terminal's Ctrl-C.
 */
export function trackGroup(child: ChildProcess): () => void {
  const pid = child.pid;
  if (!pid || !POSIX) return () => {};
  LIVE.add(pid);
  if (!exitHook) {
    exitHook = true;
    process.once("exit", () => {
      for (const p of LIVE) signalGroup(p, "SIGKILL");
    });
  }
  return () => LIVE.delete(pid);
}
