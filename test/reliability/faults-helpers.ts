/**
 * Fault injection for the reliability suite: a small tmpfs that is (or becomes) full, where the machine
 * allows mounting one (root with CAP_SYS_ADMIN, as in CI), and directories that cannot be written.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export interface Tmpfs {
  dir: string;
  /** Fill it to the last byte (ENOSPC from then on). */
  fill(): void;
  /** Free what fill() took. */
  drain(): void;
  unmount(): void;
}

const mounted: Tmpfs[] = [];

/** A fresh tmpfs of `size` (e.g. "64k"), or the reason it cannot be had here (the test prints it and skips). */
export function smallTmpfs(size = "64k"): Tmpfs | string {
  if (process.platform !== "linux") return `tmpfs needs Linux (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return "mounting a tmpfs needs root (CI runs as root)";
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "th-tmpfs-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size},mode=1777`, "tmpfs", dir], { stdio: "pipe" });
  } catch (e) {
    fs.rmSync(dir, { recursive: true, force: true });
    return `mount -t tmpfs failed here: ${String((e as { stderr?: Buffer }).stderr ?? (e as Error).message).trim()}`;
  }
  const filler = path.join(dir, ".filler");
  const t: Tmpfs = {
    dir,
    fill() {
      const fd = fs.openSync(filler, "a");
      const buf = Buffer.alloc(4096, 120);
      try {
        for (;;) fs.writeSync(fd, buf);
      } catch {
        /* ENOSPC: full */
      }
      // the last partial block
      try {
        for (;;) fs.writeSync(fd, buf, 0, 1);
      } catch {
        /* full to the byte */
      } finally {
        fs.closeSync(fd);
      }
    },
    drain() {
      fs.rmSync(filler, { force: true });
    },
    unmount() {
      try {
        execFileSync("umount", ["-l", dir], { stdio: "pipe" });
        fs.rmSync(dir, { recursive: true, force: true });
      } catch {
        /* best effort */
      }
    },
  };
  mounted.push(t);
  return t;
}

export function unmountAll(): void {
  for (const t of mounted.splice(0)) t.unmount();
}

/** A path where a directory is expected but a regular file sits (mkdir and writes below it fail: ENOTDIR). */
export function fileInPlaceOfDir(): string {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "th-notdir-"));
  const f = path.join(base, "not-a-dir");
  fs.writeFileSync(f, "x");
  return f;
}

/** Run `fn` with TMPDIR pointing at `dir` (os.tmpdir() reads it on every call). */
export async function withTmpdir<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const prev = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  try {
    return await fn();
  } finally {
    if (prev === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = prev;
  }
}
