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
import os from "node:os";
import path from "node:path";

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
  /** Everything pushed so far, or undefined once the middle has been dropped. */
  whole(): string | undefined {
    return this.dropped ? undefined : this.headBuf + this.tailParts.join("");
  }
  toString(where = ""): string {
    this.compact();
    const tail = this.tailParts.join("");
    return this.dropped ? `${this.headBuf}\n[… ${this.dropped} characters of output omitted${where} …]\n${tail}` : this.headBuf + tail;
  }
}

/** The spill directory (shared with the shaping plugin's budget, which reads it back): os.tmpdir()/toolhost. */
export function spillFile(sessionId: string, toolUseId: string, suffix = ".txt"): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 120) || "default";
  return path.join(os.tmpdir(), "toolhost", safe(sessionId), `${safe(toolUseId)}${suffix}`);
}

/** Write all of `buf` to `fd` (a short write on a filling disk continues, then fails with ENOSPC). */
function writeAll(fd: number, buf: Buffer, pos?: number): void {
  for (let off = 0; off < buf.length; ) off += fs.writeSync(fd, buf, off, buf.length - off, pos === undefined ? null : pos + off);
}

/**
 * One output stream of a command: its head and tail in memory (HeadTail) and, once it outgrows the
 * in-memory head, every character appended to `file` as it arrives — so the file is the whole stream,
 * however long, while memory stays bounded. A write that fails (disk full, unwritable directory) ends
 * the spooling: the partial file is removed and `error` says why.
 */
export class Spool {
  readonly mem = new HeadTail();
  error?: string;
  private fd?: number;
  private bytes = 0;
  /** "\n" characters at the end of what was written (formatOutput strips them). */
  trailing = 0;
  constructor(
    readonly file: string,
    readonly threshold = 256 * 1024,
  ) {}
  get spooled(): boolean {
    return this.fd !== undefined;
  }
  get chars(): number {
    return this.mem.total;
  }
  push(s: string): void {
    if (this.fd === undefined && !this.error && this.mem.total + s.length > this.threshold) this.open();
    if (this.fd !== undefined) this.write(s);
    this.mem.push(s);
  }
  private open(): void {
    try {
      fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 }); // private: output may carry secrets
      this.fd = fs.openSync(this.file, "w", 0o600);
      this.write(this.mem.whole() ?? "");
    } catch (e) {
      this.fail(e);
    }
  }
  private write(s: string): void {
    if (!s) return;
    try {
      const buf = Buffer.from(s, "utf8");
      writeAll(this.fd!, buf);
      this.bytes += buf.length;
      const t = s.length - s.replace(/\n+$/, "").length;
      this.trailing = t === s.length ? this.trailing + t : t;
    } catch (e) {
      this.fail(e);
    }
  }
  private fail(e: unknown): void {
    this.error = `${(e as Error).message ?? String(e)}`;
    this.close();
    rmQuiet(this.file);
  }
  close(): void {
    if (this.fd === undefined) return;
    try {
      fs.closeSync(this.fd);
    } catch {
      /* already gone */
    }
    this.fd = undefined;
  }
  /** Hand the open file over (the caller appends the rest of the result to it); bytes without the trailing newlines. */
  take(): { fd: number; bytes: number } | undefined {
    const fd = this.fd;
    this.fd = undefined;
    return fd === undefined ? undefined : { fd, bytes: this.bytes - this.trailing };
  }
}

/**
 * The whole result text of a command whose stdout or stderr was spooled, in formatOutput's layout
 * (stdout, stderr, then the notes, joined by newlines, trailing newlines stripped), written to
 * `out.file`: returns its path and length in characters, or why it could not be saved.
 */
export function saveFullOutput(out: Spool, err: Spool, notes: string[]): { path?: string; chars?: number; error?: string } {
  if (!out.spooled && !err.spooled && !out.error && !err.error) return {};
  if (out.error || err.error) return abandon(out, err, (out.error ?? err.error)!);
  let main: { fd: number; bytes: number } | undefined;
  try {
    main = out.take() ?? openMain(out);
    fs.ftruncateSync(main.fd, main.bytes);
    const m = main;
    const put = (buf: Buffer) => (writeAll(m.fd, buf, m.bytes), (m.bytes += buf.length));
    let chars = out.chars - out.trailing;
    const sep = () => (chars > 0 ? "\n" : "");
    const errTake = err.take();
    if (errTake) {
      fs.closeSync(errTake.fd);
      const s = sep();
      put(Buffer.from(s));
      copyInto(put, err.file, errTake.bytes);
      chars += s.length + err.chars - err.trailing;
    } else {
      const e = (err.mem.whole() ?? "").replace(/\n+$/, "");
      const text = e.trim() ? sep() + e : "";
      put(Buffer.from(text));
      chars += text.length;
    }
    for (const n of notes) {
      const text = sep() + n;
      put(Buffer.from(text));
      chars += text.length;
    }
    fs.closeSync(main.fd);
    rmQuiet(err.file);
    return { path: out.file, chars };
  } catch (e) {
    if (main) fs.closeSync(main.fd);
    rmQuiet(out.file);
    return abandon(out, err, (e as Error).message);
  }
}

function openMain(out: Spool): { fd: number; bytes: number } {
  fs.mkdirSync(path.dirname(out.file), { recursive: true, mode: 0o700 });
  const fd = fs.openSync(out.file, "w", 0o600);
  const s = (out.mem.whole() ?? "").replace(/\n+$/, "");
  const buf = Buffer.from(s.trim() ? s : "");
  writeAll(fd, buf);
  out.trailing = out.chars - (s.trim() ? s.length : 0);
  return { fd, bytes: buf.length };
}

function copyInto(put: (buf: Buffer) => void, file: string, bytes: number): void {
  const src = fs.openSync(file, "r");
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    for (let pos = 0; pos < bytes; ) {
      const n = fs.readSync(src, buf, 0, Math.min(buf.length, bytes - pos), pos);
      if (n <= 0) break;
      put(buf.subarray(0, n));
      pos += n;
    }
  } finally {
    fs.closeSync(src);
  }
}

function rmQuiet(file: string): void {
  try {
    fs.rmSync(file, { force: true });
  } catch {
    /* an unwritable directory: nothing was written there either */
  }
}

function abandon(out: Spool, err: Spool, why: string): { error: string } {
  for (const s of [out, err]) {
    s.close();
    rmQuiet(s.file);
  }
  return { error: why };
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
      // timers do not run any more: SIGKILL the groups directly
      for (const p of r!.procs.values()) {
        if (p.done || !p.pid) continue;
        try {
          process.kill(-p.pid, "SIGKILL");
        } catch {
          /* gone */
        }
      }
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

export function spawnShell(command: string, cwd: string, opts: { stdin?: boolean; login?: boolean; cwdPipe?: boolean; mergeStderr?: boolean } = {}): ChildProcess {
  const sh = shell();
  // cwdPipe: report the shell's final directory on fd 3 (so `cd` can carry over to the next call);
  // an `exit` inside the command skips the report, which keeps the previous directory
  // mergeStderr: stderr goes to the stdout pipe, so the output keeps the order it was written in (Claude Code's Bash)
  const body = opts.mergeStderr ? `exec 2>&1\n${command}` : command;
  const script = opts.cwdPipe ? `${body}\n__th_status=$?; pwd -P >&3 2>/dev/null; exit $__th_status` : body;
  return spawn(sh, [opts.login && sh.endsWith("bash") ? "-lc" : "-c", script], {
    cwd,
    detached: true, // own process group, so a timeout or an abort kills the whole pipeline
    stdio: [opts.stdin ? "pipe" : "ignore", "pipe", "pipe", ...(opts.cwdPipe ? (["pipe"] as const) : [])],
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
