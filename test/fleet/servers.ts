/**
 * Real servers for the fleet tests, each on a free 127.0.0.1 port with a temp dir, stopped by the test:
 * redis-server and haproxy from Debian's packages. A missing binary skips locally with a message and
 * fails in CI (CI=true), where .ci/run installs both.
 */
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";

export function which(bin: string): string | undefined {
  try {
    return execFileSync("sh", ["-c", `command -v ${bin}`], { encoding: "utf8" }).trim() || undefined;
  } catch {
    for (const d of ["/usr/sbin", "/usr/bin", "/usr/local/bin"]) if (fs.existsSync(path.join(d, bin))) return path.join(d, bin);
    return undefined;
  }
}

/** The binary, or why the test is skipped (throws in CI: CI must have it). */
export function need(bin: string, pkg = bin): string | { skip: string } {
  const found = which(bin);
  if (found) return found;
  const why = `${bin} is not installed (apt-get install -y ${pkg}; .ci/run installs it)`;
  if (process.env.CI) throw new Error(`CI must have ${bin}: ${why}`);
  console.log(`skipped: ${why}`);
  return { skip: why };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

function waitOutput(child: ChildProcess, re: RegExp, what: string, timeoutMs = 20_000): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`${what} did not start within ${timeoutMs} ms:\n${out}`)), timeoutMs);
    const on = (d: Buffer) => {
      out += d;
      if (re.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on("data", on);
    child.stderr?.on("data", on);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited (${code}) before it was ready:\n${out}`));
    });
  });
}

export function stopChild(child: ChildProcess | undefined, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(() => child.kill("SIGKILL"), 5000);
    child.once("exit", () => {
      clearTimeout(t);
      resolve();
    });
    child.kill(signal);
  });
}

export interface RedisServer {
  url: string;
  port: number;
  dir: string;
  child: ChildProcess;
  stop(): Promise<void>;
  /** Start it again on the same port (after stop), as a restarted Redis. */
  restart(): Promise<void>;
}

export async function startRedis(bin: string, port?: number): Promise<RedisServer> {
  const p = port ?? (await freePort());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolhost-redis-"));
  const spawnIt = async () => {
    const child = spawn(bin, ["--port", String(p), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "notice"], { stdio: ["ignore", "pipe", "pipe"] });
    await waitOutput(child, /Ready to accept connections/, `redis-server on port ${p}`);
    return child;
  };
  const r: RedisServer = {
    url: `redis://127.0.0.1:${p}`,
    port: p,
    dir,
    child: await spawnIt(),
    stop: () => stopChild(r.child),
    async restart() {
      r.child = await spawnIt();
    },
  };
  return r;
}

export { waitOutput };
