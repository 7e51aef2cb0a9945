/**
 * MCP benchmark: `node bench/run.mjs mcp [--calls N] [--cold N] [--echo-only | --cold-only] [--baseline DIR]`.
 *
 * 1. One real SDK client calls server-everything's `echo` three ways, interleaved in one run:
 *    directly; through the thinnest pass-through proxy on the SDK (test/fixtures/mcp/thin-proxy.mjs);
 *    and through `toolhost serve` with its whole pipeline (lookup, repair, ajv validation, deny,
 *    permission, PreToolUse, call, PostToolUse, shape, persist). Medians and ratios are printed;
 *    the target is toolhost ≤ 1.05× the bare proxy (issue 11). `--baseline DIR` adds a fourth way,
 *    the `toolhost serve` of another checkout (e.g. `git worktree add --detach ../base main`), so a
 *    change is measured before/after in one run, under the same load.
 * 2. Cold start of `toolhost serve` with 10 stdio servers to the first tools/list answer, beside the
 *    same 10 servers started and listed directly by SDK clients in parallel (the floor).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const NODE = process.execPath;
const MCP = path.join(ROOT, "node_modules", "@modelcontextprotocol");
const EVERYTHING = path.join(MCP, "server-everything", "dist", "index.js");
const MEMORY = path.join(MCP, "server-memory", "dist", "index.js");
const FILESYSTEM = path.join(MCP, "server-filesystem", "dist", "index.js");
const PROXY = path.join(ROOT, "test", "fixtures", "mcp", "thin-proxy.mjs");
const BIN = path.join(ROOT, "bin", "toolhost.mjs");
/** The serve ratio issue 11 asks for (toolhost serve / thin SDK proxy, median of the round ratios). */
const TARGET = 1.05;
const HAS_PERMISSIONS = fs.existsSync(path.join(ROOT, "plugins", "permissions", "index.ts"));

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

async function connect(command: string, args: string[], cwd?: string, env?: Record<string, string>): Promise<Client> {
  return (await connectWithPid(command, args, cwd, env)).client;
}
async function connectWithPid(command: string, args: string[], cwd?: string, env?: Record<string, string>): Promise<{ client: Client; pid: number | null }> {
  const client = new Client({ name: "bench", version: "1" });
  const transport = new StdioClientTransport({ command, args, cwd, env, stderr: "ignore" });
  await client.connect(transport);
  return { client, pid: transport.pid };
}

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux); undefined elsewhere. */
function cpuMs(pid: number | null): number | undefined {
  if (!pid) return undefined;
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(f[11]) + Number(f[12])) * 10; // clock ticks of 10 ms (CLK_TCK 100)
  } catch {
    return undefined;
  }
}

/**
 * A project whose config names the given servers and allows everything the bench calls. `serve` names it with
 * --config (the user's own config), so workspace trust does not hold its servers and rules back.
 */
function project(servers: Record<string, unknown>, allow: string[]): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolhost-bench-mcp-")));
  const config: Record<string, unknown> = { permissions: { allow }, mcpServers: servers };
  if (!HAS_PERMISSIONS) {
    // Until the permissions plugin lands, a tiny plugin turns the allow list into allow decisions.
    const root = path.join(dir, "allow-plugin");
    fs.mkdirSync(path.join(root, ".claude-plugin"), { recursive: true });
    fs.writeFileSync(path.join(root, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "bench-allow", main: "./index.mjs" }));
    fs.writeFileSync(
      path.join(root, "index.mjs"),
      `const allow = new Set(${JSON.stringify(allow)});
export default { name: "bench-allow", apply(ctx) { ctx.hooks.build.tap("bench-allow", (b) => {
  b.hooks.permission.tapPromise("bench-allow", async (call) => allow.has(call.tool.name) ? { behavior: "allow", reason: "bench", rule: call.tool.name } : undefined);
}); } };\n`,
    );
    config.plugins = ["./allow-plugin"];
  }
  fs.writeFileSync(path.join(dir, "toolhost.config.json"), JSON.stringify(config, null, 2));
  return dir;
}

async function echoLatency(): Promise<void> {
  const args = process.argv.slice(2);
  const calls = Number(args[args.indexOf("--calls") + 1]) || 3000;
  const rounds = 5;
  // alwaysLoad: the client calls echo by name, as a model would once the tool is visible (no ToolSearch round).
  const dir = project({ everything: { command: NODE, args: [EVERYTHING], alwaysLoad: true } }, ["mcp__everything__echo"]);
  const way = async (label: string, tool: string, command: string, args: string[]) => ({ label, tool, ...(await connectWithPid(command, args)), ms: [] as number[], round: [] as number[], cpu0: 0, ratios: [] as number[] });
  const serveArgs = (bin: string) => [bin, "serve", "--cwd", dir, "--config", path.join(dir, "toolhost.config.json"), "--no-watch"];
  const ways = [
    await way("direct", "echo", NODE, [EVERYTHING]),
    await way("thin SDK proxy", "echo", NODE, [PROXY, NODE, EVERYTHING]),
    await way("toolhost serve", "mcp__everything__echo", NODE, serveArgs(BIN)),
  ];
  const baseline = args.includes("--baseline") ? path.resolve(args[args.indexOf("--baseline") + 1] ?? "") : undefined;
  if (baseline) {
    const bin = path.join(baseline, "bin", "toolhost.mjs");
    if (!fs.existsSync(bin)) throw new Error(`--baseline ${baseline}: no bin/toolhost.mjs there`);
    ways.push(await way("baseline serve", "mcp__everything__echo", NODE, serveArgs(bin)));
  }
  // Sanity: every way answers the same.
  for (const w of ways) {
    const r = (await w.client.callTool({ name: w.tool, arguments: { message: "hi" } })) as { content: Array<{ text: string }>; isError?: boolean };
    if (r.isError || !r.content[0]?.text.includes("hi")) throw new Error(`${w.label}: unexpected answer ${JSON.stringify(r)}`);
  }
  for (const w of ways) for (let i = 0; i < 500; i++) await w.client.callTool({ name: w.tool, arguments: { message: "warm" } });
  // Interleave call by call, rotating the order, so load bursts on a shared machine hit all three ways
  // alike; several rounds give a spread of the ratio as well as the overall medians.
  for (const w of ways) w.cpu0 = cpuMs(w.pid) ?? NaN;
  const perRound = Math.ceil(calls / rounds);
  for (let r = 0; r < rounds; r++) {
    for (const w of ways) w.round = [];
    for (let i = 0; i < perRound; i++) {
      for (let k = 0; k < ways.length; k++) {
        const w = ways[(i + k) % ways.length]!;
        const t0 = performance.now();
        await w.client.callTool({ name: w.tool, arguments: { message: `m${i}` } });
        const dt = performance.now() - t0;
        w.round.push(dt);
        w.ms.push(dt);
      }
    }
    for (const w of ways) w.ratios.push(median(w.round) / median(ways[1]!.round));
  }
  const direct = median(ways[0]!.ms);
  const proxy = median(ways[1]!.ms);
  console.log(`\nMCP echo round trip (server-everything), ${ways[0]!.ms.length} calls per way, interleaved, ${rounds} rounds${baseline ? ` (baseline: ${baseline})` : ""}`);
  console.log(`${"way".padEnd(16)} ${"median ms".padStart(10)} ${"p90 ms".padStart(8)} ${"× direct".padStart(9)} ${"× proxy".padStart(8)}`);
  for (const w of ways) {
    const m = median(w.ms);
    console.log(`${w.label.padEnd(16)} ${m.toFixed(3).padStart(10)} ${pct(w.ms, 90).toFixed(3).padStart(8)} ${(m / direct).toFixed(2).padStart(9)} ${(m / proxy).toFixed(2).padStart(8)}`);
  }
  for (const w of ways.slice(2)) {
    const ratio = median(w.ms) / proxy;
    const verdict = w === ways[2] ? `; target ≤ ${TARGET}: ${median(w.ratios) <= TARGET ? "met" : "NOT met"}` : "";
    console.log(`${w.label} / thin proxy = ${ratio.toFixed(3)} overall; per round ${w.ratios.map((x) => x.toFixed(2)).join(", ")} (median ${median(w.ratios).toFixed(3)})${verdict}`);
    console.log(`${w.label} adds ${((median(w.ms) - proxy) * 1000).toFixed(0)} µs per call over the bare proxy`);
  }
  if (baseline) console.log(`toolhost serve / baseline serve = ${(median(ways[2]!.ms) / median(ways[3]!.ms)).toFixed(3)} overall; per round ${ways[2]!.ratios.map((x, i) => (x / ways[3]!.ratios[i]!).toFixed(3)).join(", ")}`);
  console.log(`load average ${os.loadavg().map((x) => x.toFixed(1)).join(" / ")} (1 / 5 / 15 min) on ${os.cpus().length} CPUs`);
  // The middle processes' own CPU per call (proxy vs toolhost serve), less sensitive to scheduling
  // than the round trip: what the pipeline costs in the serve process.
  const cpu = ways.map((w) => ((cpuMs(w.pid) ?? NaN) - w.cpu0) / w.ms.length);
  if (Number.isFinite(cpu[1]) && Number.isFinite(cpu[2])) {
    const us = (x: number) => `${(x * 1000).toFixed(0)} µs`;
    const serves = ways.slice(2).map((w, i) => `${w.label} ${us(cpu[i + 2]!)} (+${us(cpu[i + 2]! - cpu[1]!)})`);
    console.log(`CPU per call in the middle process (/proc, 10 ms ticks): thin proxy ${us(cpu[1]!)}, ${serves.join(", ")}`);
  }
  for (const w of ways) await w.client.close();
}

async function coldStart(): Promise<void> {
  const args = process.argv.slice(2);
  const runs = Number(args[args.indexOf("--cold") + 1]) || 3;
  const scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolhost-bench-fs-")));
  const kinds = [
    (i: number) => ({ command: NODE, args: [MEMORY], env: { MEMORY_FILE_PATH: path.join(scratch, `m${i}.jsonl`) } }),
    () => ({ command: NODE, args: [EVERYTHING] }),
    () => ({ command: NODE, args: [FILESYSTEM, scratch] }),
  ];
  const servers: Record<string, { command: string; args: string[]; env?: Record<string, string> }> = {};
  for (let i = 0; i < 10; i++) servers[`s${i}`] = kinds[i % kinds.length]!(i);
  const dir = project(servers, []);
  const serve: number[] = [];
  const floor: number[] = [];
  let tools = 0;
  for (let r = 0; r < runs; r++) {
    let t0 = performance.now();
    const clients = await Promise.all(Object.values(servers).map((s) => connect(s.command, s.args)));
    const lists = await Promise.all(clients.map((c) => c.listTools()));
    floor.push(performance.now() - t0);
    const direct = lists.reduce((n, l) => n + l.tools.length, 0);
    await Promise.all(clients.map((c) => c.close()));

    t0 = performance.now();
    const c = await connect(NODE, [BIN, "serve", "--cwd", dir, "--config", path.join(dir, "toolhost.config.json"), "--no-watch"]);
    const l = await c.listTools();
    serve.push(performance.now() - t0);
    tools = l.tools.length;
    if (r === 0) console.log(`\n(10 servers expose ${direct} tools directly; toolhost serve lists ${tools} visible tools)`);
    await c.close();
  }
  console.log(`Cold start to first tools/list, 10 stdio servers (memory, everything, filesystem), ${runs} runs on ${os.cpus().length} CPUs`);
  console.log(`  10 SDK clients in parallel (floor): median ${median(floor).toFixed(0)} ms`);
  console.log(`  toolhost serve:                     median ${median(serve).toFixed(0)} ms  (${(median(serve) / median(floor)).toFixed(2)}× the floor)`);
}

export default async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (!args.includes("--cold-only")) await echoLatency();
  if (!args.includes("--echo-only")) await coldStart();
}
