/**
 * bench/startup: how long toolhost takes to start, against `node -e 0` measured in the same rounds.
 *
 *   node bench/run.mjs startup                     # 15 interleaved rounds
 *   node bench/run.mjs startup --rounds 25
 *   node bench/run.mjs startup --root DIR          # measure another checkout (e.g. the commit before a change)
 *   node bench/run.mjs startup --claude            # also `claude mcp serve` (or TOOLHOST_BENCH_CLAUDE=1)
 *   node bench/run.mjs startup --json
 *
 * Each round runs every case once, in turn, so load changes hit all cases alike: `node -e 0`,
 * `toolhost --help`, `toolhost tools` (bundled plugins, an empty temp cwd) and `toolhost serve` from
 * spawn to the answer of the first tools/list over stdio (the MCP SDK client). The optional Claude Code
 * case installs @anthropic-ai/claude-code into a cache dir (never a dependency of this project) and
 * measures `claude mcp serve` the same way.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const HERE = path.resolve(import.meta.dirname, "..");
const CLAUDE_VERSION = "2.1.328";
/** Targets as multiples of `node -e 0`. */
const TARGETS: Record<string, number> = { "toolhost --help": 2.5, "toolhost tools": 5 };

type Case = { name: string; run(): Promise<number> };

function timeProcess(cmd: string, args: string[], cwd: string, env?: NodeJS.ProcessEnv): Promise<number> {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { cwd, env: env ?? process.env, stdio: ["ignore", "ignore", "pipe"] });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} exited ${r.status}: ${String(r.stderr).slice(0, 500)}`);
  return Promise.resolve(ms);
}

/** Spawn to the first tools/list answer, then close. */
async function timeServe(command: string, args: string[], cwd: string, env?: Record<string, string>): Promise<number> {
  const t0 = performance.now();
  const transport = new StdioClientTransport({ command, args, cwd, env, stderr: "ignore" });
  const client = new Client({ name: "bench-startup", version: "1" });
  await client.connect(transport);
  await client.listTools();
  const ms = performance.now() - t0;
  await client.close();
  return ms;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Install Claude Code into a cache dir once (see /work/shared/cc-oracle/README.md); its binary path. */
function claudeBinary(): string {
  const cache = process.env.TOOLHOST_BENCH_CLAUDE_CACHE ?? path.join(os.homedir(), ".cache", "toolhost-bench", `claude-code-${CLAUDE_VERSION}`);
  const bin = path.join(cache, "node_modules", "@anthropic-ai", "claude-code-linux-x64", "claude");
  if (!fs.existsSync(bin)) {
    console.error(`installing @anthropic-ai/claude-code@${CLAUDE_VERSION} into ${cache} …`);
    fs.mkdirSync(cache, { recursive: true });
    execFileSync("npm", ["i", "--prefix", cache, "--no-audit", "--no-fund", "--ignore-scripts", `@anthropic-ai/claude-code@${CLAUDE_VERSION}`], { stdio: "inherit" });
  }
  return bin;
}

function cases(root: string, cwd: string, withClaude: boolean): Case[] {
  const bin = path.join(root, "bin", "toolhost.mjs");
  const node = process.execPath;
  const list: Case[] = [
    { name: "node -e 0", run: () => timeProcess(node, ["-e", "0"], cwd) },
    { name: "toolhost --help", run: () => timeProcess(node, [bin, "--help"], cwd) },
    { name: "toolhost tools", run: () => timeProcess(node, [bin, "tools"], cwd) },
    { name: "toolhost serve → tools/list", run: () => timeServe(node, [bin, "serve", "--no-watch"], cwd) },
  ];
  if (withClaude) {
    const claude = claudeBinary();
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "bench-claude-home-"));
    const env = { ...(process.env as Record<string, string>), HOME: home, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_TELEMETRY: "1", ANTHROPIC_API_KEY: "sk-ant-dummy" };
    list.push({ name: "claude mcp serve → tools/list", run: () => timeServe(claude, ["mcp", "serve"], cwd, env) });
  }
  return list;
}

export default async function (argv: string[]) {
  const opt = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const rounds = Number(opt("--rounds") ?? 15);
  const root = path.resolve(opt("--root") ?? HERE);
  const withClaude = argv.includes("--claude") || !!process.env.TOOLHOST_BENCH_CLAUDE;
  const cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "bench-startup-")));
  const all = cases(root, cwd, withClaude);
  const times = new Map<string, number[]>(all.map((c) => [c.name, []]));
  for (const c of all) await c.run(); // warm the OS file cache (and jiti's, if any) once
  for (let r = 0; r < rounds; r++) for (const c of all) times.get(c.name)!.push(await c.run());
  fs.rmSync(cwd, { recursive: true, force: true });
  const base = median(times.get("node -e 0")!);
  const rows = all.map((c) => {
    const ms = median(times.get(c.name)!);
    return { name: c.name, medianMs: Math.round(ms), ratio: Math.round((ms / base) * 100) / 100, target: TARGETS[c.name] ?? null };
  });
  if (argv.includes("--json")) {
    console.log(JSON.stringify({ root, rounds, node: process.version, rows }, null, 2));
    return;
  }
  console.log(`startup, ${rounds} interleaved rounds, ${root} (node ${process.version}, load ${os.loadavg()[0]!.toFixed(1)})\n`);
  for (const r of rows) {
    const target = r.target === null ? "" : `  target ≤ ${r.target}× ${r.ratio <= r.target ? "met" : "NOT met"}`;
    console.log(`${r.name.padEnd(32)} ${String(r.medianMs).padStart(6)} ms  ${r.ratio.toFixed(2).padStart(6)}×${target}`);
  }
}
