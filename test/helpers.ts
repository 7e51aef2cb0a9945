/** Test helpers: temp directories with file trees, a CLI runner on a real child process, polling. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const BIN = path.join(REPO, "bin", "toolhost.mjs");

export function tmpdir(prefix = "toolhost-test-"): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

/** Write a tree: keys are relative paths; objects are written as JSON. */
export function writeTree(root: string, tree: Record<string, string | object>): string {
  for (const [rel, content] of Object.entries(tree)) {
    const f = path.join(root, rel);
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  }
  return root;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  json<T = any>(): T;
}

export function runCli(args: string[], opts: { cwd?: string; env?: Record<string, string>; input?: string; timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: opts.cwd ?? REPO,
      env: { ...process.env, ...opts.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 30_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr, json: () => JSON.parse(stdout) });
    });
    child.stdin.end(opts.input ?? "");
  });
}

/** Poll until `fn` returns something truthy and return it; fails naming `what` after `timeoutMs`. */
export async function waitFor<T>(fn: () => T | Promise<T>, timeoutMs = 10_000, what = "condition", stepMs = 20): Promise<NonNullable<T>> {
  const t0 = Date.now();
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/** waitFor for a yes/no condition. */
export async function until(pred: () => boolean | Promise<boolean>, timeoutMs = 10_000, stepMs = 20): Promise<void> {
  await waitFor(pred, timeoutMs, "condition", stepMs);
}

/** Write a file, creating its directory. */
export function write(file: string, text: string | Buffer): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

/** Write a value as JSON, creating its directory. */
export function writeJson(file: string, v: unknown): string {
  return write(file, JSON.stringify(v, null, 2));
}

/** Is a process running? A killed one may linger as a zombie until reaped: that counts as gone. */
export function alive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** mulberry32: a small seeded PRNG, so a fuzz failure replays exactly (fixed seeds in test/reliability). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
