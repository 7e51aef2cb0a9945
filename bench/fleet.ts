/**
 * Fleet benchmark (issue 16): `node bench/run.mjs fleet [--quick]`. Needs redis-server and haproxy.
 * All ratios are against a baseline measured in the same run:
 *   1. store overhead: a library host call that changes session state, with the Redis store and the
 *      SQLite store vs no store (in memory), interleaved rounds; raw Redis patch/get latency;
 *   2. what Redis holds per session: a session that loaded tools, read 20 files, cd'd and approved;
 *   3. one instance's capacity: calls per CPU-second of the serve process (and of redis-server) for an
 *      in-process tool, an MCP tool (server-everything echo) and a Bash call;
 *   4. `serve --http` throughput with 1 vs 2 instances behind HAProxy (8 clients);
 *   5. failover: from SIGKILL of the instance serving a client to that client's next successful call
 *      (another instance takes its MCP session over; a re-initialize only if that fails).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createHost, definePlugin, defineTool, type Host } from "../core/index.ts";
import { openRedisStore } from "../lib/session-store/redis.ts";
import { connectClient, startHaproxy, startInstance, writeProject, type FleetClient, type Instance } from "../test/fleet/harness.ts";
import { startRedis, which, type RedisServer } from "../test/fleet/servers.ts";

const EVERYTHING = path.resolve(import.meta.dirname, "..", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const f1 = (n: number) => n.toFixed(1);

/** CPU ms (user + system) of a process, its reaped children, and its live children (Linux /proc). */
function cpuMs(pid: number, withChildren = true): number {
  const stat = (p: number) => {
    try {
      return fs.readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1]!.split(" ").map(Number);
    } catch {
      return undefined;
    }
  };
  const f = stat(pid);
  if (!f) return 0;
  let ticks = f[11]! + f[12]! + (withChildren ? f[13]! + f[14]! : 0);
  if (withChildren) {
    for (const t of fs.readdirSync(`/proc/${pid}/task`)) {
      const kids = fs.readFileSync(`/proc/${pid}/task/${t}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
      for (const k of kids) ticks += cpuMs(k, true) / 10;
    }
  }
  return ticks * 10;
}

async function storeOverhead(redis: RedisServer, rounds: number, per: number): Promise<void> {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolhost-bench-fleet-")));
  const bump = defineTool({ name: "Bump", description: "changes session state", isReadOnly: true, inputSchema: { properties: { n: { type: "number" } } }, call: (i: { n?: number }, ctx) => (ctx.sessionState!.set("bench:n", i.n ?? 0), "ok") });
  const tools = definePlugin({ name: "bench", apply: (ctx) => ctx.hooks.build.tap("bench", (b) => b.hooks.collect.tap("bench", (c) => c.add({ ...bump, origin: "plugin", plugin: "bench" }))) });
  const mk = (sessions: Record<string, unknown>) => createHost({ cwd: dir, watch: false, plugins: [tools], config: { permissions: { allow: ["Bump"] }, sessions } });
  const hosts: Record<string, Host> = {
    memory: await mk({ backend: "memory" }),
    sqlite: await mk({ backend: "sqlite", path: path.join(dir, "s.db") }),
    redis: await mk({ backend: "redis", url: redis.url, prefix: "bench:" }),
  };
  const times: Record<string, number[]> = { memory: [], sqlite: [], redis: [] };
  let n = 0;
  for (const [name, h] of Object.entries(hosts)) for (let i = 0; i < 50; i++) await h.execute("Bump", { n: n++ }, { sessionId: `warm-${name}` });
  for (let r = 0; r < rounds; r++) {
    for (const [name, h] of Object.entries(hosts)) {
      const t0 = performance.now();
      for (let i = 0; i < per; i++) {
        const o = await h.execute("Bump", { n: n++ }, { sessionId: `bench-${name}-${r % 4}` });
        if (o.status !== "ok") throw new Error(`${name}: ${o.status} ${o.reason}`);
      }
      times[name]!.push(((performance.now() - t0) / per) * 1000);
    }
  }
  const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)])) as Record<string, number>;
  console.log(`\n1. store overhead per call that changes session state (${rounds} interleaved rounds × ${per} calls, medians):`);
  console.log(`   in memory ${f1(m.memory!)} µs · SQLite ${f1(m.sqlite!)} µs (${(m.sqlite! / m.memory!).toFixed(2)}×, +${f1(m.sqlite! - m.memory!)} µs) · Redis ${f1(m.redis!)} µs (${(m.redis! / m.memory!).toFixed(2)}×, +${f1(m.redis! - m.memory!)} µs)`);
  const s = await openRedisStore({ url: redis.url, prefix: "raw:" });
  const lat = { patch: [] as number[], get: [] as number[] };
  for (let i = 0; i < 500; i++) {
    let t = performance.now();
    await s.patch("raw", [{ op: "set", field: "shared", key: "k", value: i }]);
    lat.patch.push((performance.now() - t) * 1000);
    t = performance.now();
    await s.get("raw");
    lat.get.push((performance.now() - t) * 1000);
  }
  console.log(`   raw Redis store on loopback: patch ${f1(median(lat.patch))} µs, get ${f1(median(lat.get))} µs (median of 500)`);

  // 2. A realistic session: 20 files read, 3 deferred tools loaded, a cd, usage counts.
  const h = hosts.redis!;
  for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(dir, `src-file-${i}.ts`), `export const x${i} = ${i};\n`.repeat(50));
  for (let i = 0; i < 20; i++) await h.execute("Read", { file_path: path.join(dir, `src-file-${i}.ts`) }, { sessionId: "realistic" });
  await h.execute("Bash", { command: "cd src 2>/dev/null; true" }, { sessionId: "realistic", yes: true });
  await h.execute("ToolSearch", { query: "select:exec_command,write_stdin" }, { sessionId: "realistic" });
  for (const x of Object.values(hosts)) await x.close(); // flushes usage counts
  const stored = await openRedisStore({ url: redis.url, prefix: "bench:" });
  const rec = await stored.get("realistic");
  await stored.close();
  const mem = await (await import("@redis/client")).createClient({ url: redis.url }).connect();
  const bytes = Number(await mem.sendCommand(["MEMORY", "USAGE", "bench:s:realistic"]));
  const used = Number(/used_memory:(\d+)/.exec(String(await mem.sendCommand(["INFO", "memory"])))?.[1]);
  await mem.close();
  await s.close();
  console.log(`\n2. what Redis holds for a session that read 20 files, loaded 2 deferred tools, ran a cd and counted usage:`);
  console.log(`   ${rec?.bytes} bytes of keys + JSON (the size limit's measure); Redis MEMORY USAGE of its hash: ${bytes} bytes (fields: ${Object.entries(rec?.fields ?? {}).map(([k, v]) => `${k} ${Object.keys(v).length}`).join(", ")}); redis-server used_memory ${(used / 1e6).toFixed(1)} MB`);
}

async function drive(clients: FleetClient[], calls: number, make: (c: number, i: number) => [string, Record<string, unknown>]): Promise<number> {
  const t0 = performance.now();
  await Promise.all(
    clients.map(async (c, ci) => {
      for (let i = 0; i < calls; i++) {
        const [name, args] = make(ci, i);
        const r = await c.client.callTool({ name, arguments: args });
        if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content).slice(0, 300)}`);
      }
    }),
  );
  return (performance.now() - t0) / 1000;
}

async function capacity(redis: RedisServer, dir: string, calls: number): Promise<void> {
  const inst = await startInstance({
    name: "cap",
    cwd: dir,
    config: { plugins: [path.join(dir, "deferred-plugin")], permissions: { allow: ["Echo_text", "Bash(true)", "mcp__everything__echo"] }, mcpServers: { everything: { command: process.execPath, args: [EVERYTHING] } }, sessions: { backend: "redis", url: redis.url, prefix: "cap:" } },
  });
  try {
    const clients = await Promise.all(Array.from({ length: 4 }, (_, i) => connectClient(inst.url, { session: `cap-${i}` })));
    for (const c of clients) await c.client.callTool({ name: "ToolSearch", arguments: { query: "select:mcp__everything__echo" } });
    const kinds: Array<[string, number, (c: number, i: number) => [string, Record<string, unknown>]]> = [
      ["in-process tool (Echo_text)", calls, (_c, i) => ["Echo_text", { text: `t${i}` }]],
      ["MCP tool (server-everything echo)", calls, (_c, i) => ["mcp__everything__echo", { message: `m${i}` }]],
      ["Bash call (`true`)", Math.ceil(calls / 3), () => ["Bash", { command: "true" }]],
    ];
    console.log(`\n3. one instance's capacity: 4 clients over Streamable HTTP, Redis store; calls per CPU-second of the serve process and its children (= calls/s per core), and of redis-server:`);
    for (const [label, n, make] of kinds) {
      await drive(clients, 20, make); // warm
      const c0 = cpuMs(inst.child.pid!);
      const r0 = cpuMs(redis.child.pid!, false);
      const wall = await drive(clients, n, make);
      const cpu = (cpuMs(inst.child.pid!) - c0) / 1000;
      const rcpu = (cpuMs(redis.child.pid!, false) - r0) / 1000;
      const total = n * clients.length;
      console.log(`   ${label}: ${Math.round(total / cpu)} calls/s per core (${total} calls, ${cpu.toFixed(2)} CPU-s, wall ${Math.round(total / wall)} calls/s); redis-server ${rcpu > 0 ? Math.round(total / rcpu) : "> " + total * 100} calls per CPU-second`);
    }
    await Promise.all(clients.map((c) => c.close()));
  } finally {
    await inst.kill("SIGTERM");
  }
}

async function throughput(redis: RedisServer, haproxy: string, dir: string, calls: number): Promise<void> {
  const lbPort1 = await (await import("../test/fleet/servers.ts")).freePort();
  const lbPort2 = await (await import("../test/fleet/servers.ts")).freePort();
  const config = { plugins: [path.join(dir, "deferred-plugin")], permissions: { allow: ["Echo_text"] }, sessions: { backend: "redis", url: redis.url, prefix: "tp:" } };
  const allowHosts = [`127.0.0.1:${lbPort1}`, `127.0.0.1:${lbPort2}`];
  const [a, b] = await Promise.all(["a", "b"].map((name) => startInstance({ name, cwd: dir, config, allowHosts })));
  const one = await startHaproxy(haproxy, [a!], { sticky: true, port: lbPort1 });
  const two = await startHaproxy(haproxy, [a!, b!], { sticky: true, port: lbPort2 });
  try {
    const rates: Record<string, number[]> = { one: [], two: [] };
    for (let round = 0; round < 3; round++) {
      for (const [k, lb] of [["one", one], ["two", two]] as const) {
        const clients = await Promise.all(Array.from({ length: 8 }, (_, i) => connectClient(lb.url, { session: `tp-${k}-${round}-${i}` })));
        const wall = await drive(clients, calls, (_c, i) => ["Echo_text", { text: `x${i}` }]);
        rates[k]!.push((calls * clients.length) / wall);
        await Promise.all(clients.map((c) => c.close()));
      }
    }
    const m1 = median(rates.one!);
    const m2 = median(rates.two!);
    console.log(`\n4. serve --http throughput behind HAProxy, 8 clients × ${calls} in-process calls, 3 interleaved rounds: 1 instance ${Math.round(m1)} calls/s, 2 instances ${Math.round(m2)} calls/s = ${(m2 / m1).toFixed(2)}× (on this ${os.cpus().length}-core machine the balancer, the clients and Redis share the cores)`);
  } finally {
    await Promise.all([one.stop(), two.stop(), a!.kill("SIGTERM"), b!.kill("SIGTERM")]);
  }
}

async function failover(redis: RedisServer, haproxy: string, dir: string, kills: number): Promise<void> {
  const lbPort = await (await import("../test/fleet/servers.ts")).freePort();
  const config = { plugins: [path.join(dir, "deferred-plugin")], permissions: { allow: ["Echo_text"] }, sessions: { backend: "redis", url: redis.url, prefix: "fo:" } };
  const names = Array.from({ length: kills + 1 }, (_, i) => String.fromCharCode(97 + i));
  const instances: Instance[] = await Promise.all(names.map((name) => startInstance({ name, cwd: dir, config, allowHosts: [`127.0.0.1:${lbPort}`] })));
  const lb = await startHaproxy(haproxy, instances, { sticky: true, port: lbPort });
  const times: number[] = [];
  let c = await connectClient(lb.url, { session: "fo-1" });
  try {
    for (let k = 0; k < kills; k++) {
      await c.client.callTool({ name: "Echo_text", arguments: { text: "before" } });
      const victim = instances.find((i) => i.name === c.instances.at(-1))!;
      const t0 = performance.now();
      await victim.kill("SIGKILL");
      for (let tries = 0; ; tries++) {
        const ok = await c.client.callTool({ name: "Echo_text", arguments: { text: "after" } }).then((r) => !r.isError, () => false);
        if (ok) break;
        if (tries > 50) throw new Error("no successful call after 50 tries");
        await c.close();
        c = await connectClient(lb.url, { session: "fo-1" }).catch(async () => (await new Promise((r) => setTimeout(r, 20)), connectClient(lb.url, { session: "fo-1" })));
      }
      times.push(performance.now() - t0);
    }
    console.log(`\n5. failover: SIGKILL of the serving instance → the client's next successful call (another instance takes the MCP session over from the store; a re-initialize only if that fails): ${times.map((t) => `${Math.round(t)} ms`).join(", ")} (HAProxy check inter 100 ms, fall 1; retry-on conn-failure, redispatch)`);
  } finally {
    await c.close();
    await lb.stop();
    await Promise.all(instances.map((i) => i.kill("SIGTERM")));
  }
}

export default async function main(args: string[]): Promise<void> {
  const quick = args.includes("--quick");
  const redisBin = which("redis-server");
  const haproxy = which("haproxy");
  if (!redisBin || !haproxy) {
    console.log(`fleet bench needs redis-server and haproxy (apt-get install -y redis-server haproxy); missing: ${[!redisBin && "redis-server", !haproxy && "haproxy"].filter(Boolean).join(", ")}`);
    return;
  }
  console.log(`fleet bench on ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`);
  const redis = await startRedis(redisBin);
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolhost-bench-fleet-")));
  writeProject(dir);
  try {
    await storeOverhead(redis, quick ? 4 : 10, quick ? 100 : 300);
    await capacity(redis, dir, quick ? 60 : 300);
    await throughput(redis, haproxy, dir, quick ? 50 : 200);
    await failover(redis, haproxy, dir, 2);
  } finally {
    await redis.stop();
  }
}
