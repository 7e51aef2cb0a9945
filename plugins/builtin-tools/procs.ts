/**
 * Child processes started by Bash (background) and exec_command: bounded output buffers, process-group
 * kills, and one registry that the plugin's `main` reaps on host close.
 *
 * The registry lives on globalThis under a Symbol.for key: tool modules and the plugin's main module
 * are imported by different jiti instances and must still see the same table. Each process records
 * its owner (the session-wide state map of the host session that started it), so closing one host
 * only reaps that host's processes.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";

/** Keeps the first `head` and the last `tail` characters of a stream and counts what fell between. */
export class HeadTail {
  private headBuf = "";
  private tailParts: string[] = [];
  private tailLen = 0;
  dropped = 0;
  total = 0;
  constructor(
    readonly head = 256 * 1024,
    readonly tail = 256 * 1024,
  ) {}
  push(s: string): void {
    this.total += s.length;
    if (this.headBuf.length < this.head) {
      const take = s.slice(0, this.head - this.headBuf.length);
      this.headBuf += take;
      s = s.slice(take.length);
      if (!s) return;
    }
    this.tailParts.push(s);
    this.tailLen += s.length;
    if (this.tailLen > this.tail * 2) this.compact();
  }
  private compact(): void {
    const all = this.tailParts.join("");
    const keep = all.slice(-this.tail);
    this.dropped += all.length - keep.length;
    this.tailParts = [keep];
    this.tailLen = keep.length;
  }
  toString(): string {
    this.compact();
    const tail = this.tailParts.join("");
    return this.dropped ? `${this.headBuf}\n[… ${this.dropped} characters of output omitted …]\n${tail}` : this.headBuf + tail;
  }
}

/** A ring of the last `cap` characters with absolute positions, for incremental reads. */
export class OutputRing {
  private buf = "";
  /** Absolute position of buf[0]. */
  private start = 0;
  constructor(readonly cap = 1024 * 1024) {}
  get end(): number {
    return this.start + this.buf.length;
  }
  push(s: string): void {
    this.buf += s;
    if (this.buf.length > this.cap * 1.5) {
      const cut = this.buf.length - this.cap;
      this.buf = this.buf.slice(cut);
      this.start += cut;
    }
  }
  /** Text from absolute position `from` to the end; `lost` = characters that fell out of the ring. */
  readFrom(from: number): { text: string; lost: number; next: number } {
    const lost = Math.max(0, this.start - from);
    const text = this.buf.slice(Math.max(0, from - this.start));
    return { text, lost, next: this.end };
  }
}

export interface ManagedProc {
  id: string;
  kind: "bash" | "exec";
  command: string;
  cwd: string;
  sessionId: string;
  owner: object;
  pid?: number;
  startedAt: number;
  exitCode: number | null;
  signal: string | null;
  done: boolean;
  killed: boolean;
  /** Combined output for exec sessions; stdout for bash. */
  out: OutputRing;
  err: OutputRing;
  /** Read cursors for incremental reads. */
  outCursor: number;
  errCursor: number;
  exited: Promise<void>;
  write?(chars: string): void;
  kill(): void;
  /** Notified on every output chunk (waiters). */
  listeners: Set<() => void>;
}

interface Registry {
  procs: Map<string, ManagedProc>;
  seq: number;
  exitHook: boolean;
}

const KEY = Symbol.for("toolhost.builtin-tools.processes");

export function registry(): Registry {
  const g = globalThis as unknown as Record<symbol, Registry>;
  let r = g[KEY];
  if (!r) {
    r = g[KEY] = { procs: new Map(), seq: 0, exitHook: false };
  }
  if (!r.exitHook) {
    r.exitHook = true;
    // last resort: never leave process groups behind when node itself exits
    process.once("exit", () => {
      for (const p of r!.procs.values()) if (!p.done) p.kill();
    });
  }
  return r;
}

export function nextId(prefix: string): string {
  const r = registry();
  return `${prefix}${++r.seq}`;
}

let shellCache: string | undefined;
/** bash when available, else sh. */
export function shell(): string {
  if (shellCache) return shellCache;
  for (const c of ["/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash"]) if (fs.existsSync(c)) return (shellCache = c);
  return (shellCache = "/bin/sh");
}

/** Kill a whole process group: SIGTERM, then SIGKILL after `graceMs` if anything survives. */
export function killGroup(pid: number | undefined, graceMs = 1000): void {
  if (!pid) return;
  const send = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pid, sig);
    } catch {
      try {
        process.kill(pid, sig);
      } catch {
        /* gone */
      }
    }
  };
  send("SIGTERM");
  const t = setTimeout(() => send("SIGKILL"), graceMs);
  t.unref();
}

export function spawnShell(command: string, cwd: string, opts: { stdin?: boolean; login?: boolean } = {}): ChildProcess {
  const sh = shell();
  return spawn(sh, [opts.login && sh.endsWith("bash") ? "-lc" : "-c", command], {
    cwd,
    detached: true, // own process group, so a timeout or abort kills the whole pipeline
    stdio: [opts.stdin ? "pipe" : "ignore", "pipe", "pipe"],
    env: { ...process.env, TERM: process.env.TERM ?? "dumb", GIT_TERMINAL_PROMPT: "0" },
  });
}

/** Wait until the process exits, new output arrives after `since`, or `ms` passes. */
export function waitFor(p: ManagedProc, ms: number, until: "exit" | "output" = "exit", signal?: AbortSignal): Promise<void> {
  if (p.done) return Promise.resolve();
  return new Promise((resolve) => {
    const finish = () => {
      clearTimeout(timer);
      p.listeners.delete(onOut);
      signal?.removeEventListener("abort", finish);
      resolve();
    };
    const onOut = () => {
      if (until === "output" || p.done) finish();
    };
    const timer = setTimeout(finish, ms);
    p.listeners.add(onOut);
    signal?.addEventListener("abort", finish, { once: true });
    p.exited.then(finish);
  });
}

/** Kill and forget every process owned by `owner` (host close), or all when owner is undefined. */
export function reap(match: (p: ManagedProc) => boolean): number {
  const r = registry();
  let n = 0;
  for (const [id, p] of r.procs) {
    if (!match(p)) continue;
    if (!p.done) {
      p.kill();
      n++;
    }
    r.procs.delete(id);
  }
  return n;
}

/** Find a process by id for a caller: must be owned by the same host session. */
export function lookup(id: string, owner: object): ManagedProc | undefined {
  const p = registry().procs.get(id);
  return p && p.owner === owner ? p : undefined;
}

export function ownedIds(owner: object, kind?: ManagedProc["kind"]): string[] {
  return [...registry().procs.values()].filter((p) => p.owner === owner && (!kind || p.kind === kind)).map((p) => p.id);
}
