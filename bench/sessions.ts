/**
 * Session store benchmark: `node bench/run.mjs sessions [--quick]`. Per-call cost of a pipeline call in a
 * named session with the on-disk store (SQLite) against the same call with sessions in memory, hosts
 * measured in interleaved rounds in one process (median round). Three calls:
 *  - a no-op in-process tool (nothing in the session changes: only the usage count, flushed later);
 *  - Read of a file already read (the read record is the same: nothing to write);
 *  - Read of a file not read before (a new read record) — the worst case: written behind by default
 *    (sessions.writeBehindMs, many calls per transaction), and, for comparison, with writeBehindMs 0 (one
 *    SQLite transaction per call before it returns: the store's behaviour before write-behind).
 * Every call in a stored session also pays the freshness check (one PRAGMA data_version per millisecond).
 * Goal (issue 16): ≤ +5% of a pipeline call with the disk store; the ratio column is sqlite / memory of
 * the median rounds, the goal line's the median of the per-round ratios (each round's hosts run back to
 * back, so a ratio within a round is less disturbed by other load than two medians).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createHost, definePlugin, defineTool, type Host } from "../core/index.ts";

const noop = defineTool({ name: "Noop", description: "does nothing", isReadOnly: true, inputSchema: { properties: { n: { type: "number" } } }, call: () => "ok" });
const tools = definePlugin({
  name: "bench-tools",
  apply(ctx) {
    ctx.hooks.build.tap("bench-tools", (b) => b.hooks.collect.tap("bench-tools", (c) => c.add({ ...noop, origin: "plugin", plugin: "bench-tools" })));
  },
});

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const us = (ms: number) => `${(ms * 1000).toFixed(1)} µs`;

/** Per call: wall ms, and CPU ms of this process (user + system: the store's work is in-process) — less disturbed by other load. */
const cpu: Record<string, Record<string, number[]>> = {};
async function time(n: number, fn: (i: number) => Promise<unknown>, into?: number[]): Promise<number> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await fn(i);
  const wall = (performance.now() - t0) / n;
  const c = process.cpuUsage(c0);
  into?.push((c.user + c.system) / 1000 / n);
  return wall;
}

export default async function main(args: string[]): Promise<void> {
  const quick = args.includes("--quick");
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolhost-bench-sessions-")));
  const rounds = quick ? 5 : 15;
  const iters = quick ? 500 : 1000;
  const fresh = quick ? 200 : 600;
  fs.mkdirSync(path.join(dir, "files"));
  for (let i = 0; i < rounds * fresh * 2 + 10; i++) fs.writeFileSync(path.join(dir, "files", `f${i}.txt`), `file ${i}\n`.repeat(20));
  const hosts: Record<string, Host> = {
    memory: await createHost({ cwd: dir, trustWorkspace: true, plugins: [tools], config: { sessions: { backend: "memory" } } }),
    sqlite: await createHost({ cwd: dir, trustWorkspace: true, plugins: [tools], config: { sessions: { backend: "sqlite", path: path.join(dir, "sessions.db") } } }),
    "sqlite-sync": await createHost({ cwd: dir, trustWorkspace: true, plugins: [tools], config: { sessions: { backend: "sqlite", path: path.join(dir, "sessions-sync.db"), writeBehindMs: 0 } } }),
  };
  console.log(`toolhost session store benchmark — node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}`);
  console.log(`${rounds} interleaved rounds (alternating order); per call: median round\n`);
  const cases = ["noop", "read again", "read new"] as const;
  const res: Record<string, Record<string, number[]>> = { memory: {}, sqlite: {}, "sqlite-sync": {} };
  let next = 0;
  try {
    for (const h of Object.values(hosts)) {
      await h.execute("Read", { file_path: "files/f0.txt" }, { sessionId: "bench" });
      for (let i = 0; i < 200; i++) await h.execute("Noop", { n: i }, { sessionId: "bench" });
    }
    for (let r = 0; r < rounds; r++) {
      // the hosts' order alternates between rounds: no host always runs first (after another's garbage)
      for (const [name, h] of r % 2 ? Object.entries(hosts).reverse() : Object.entries(hosts)) {
        const o = { sessionId: "bench" };
        const run = async (c: (typeof cases)[number], ms: (into: number[]) => Promise<number>) => (res[name]![c] ??= []).push(await ms(((cpu[name] ??= {})[c] ??= [])));
        await run("noop", (into) => time(iters, (i) => h.execute("Noop", { n: i }, o), into));
        await run("read again", (into) => time(iters, () => h.execute("Read", { file_path: "files/f0.txt" }, o), into));
        const base = (next += fresh) + 10;
        // the round's last flush (write-behind) belongs to its calls: closing the round waits for it
        await run("read new", (into) => time(fresh + 1, async (i) => (i < fresh ? h.execute("Read", { file_path: `files/f${base + i}.txt` }, { sessionId: `bench-${name}-${r}` }) : h.service<{ runtime: { flush(): Promise<void> } }>("sessions.admin")!.runtime.flush()), into));
      }
    }
    console.log("call".padEnd(12) + "memory".padStart(12) + "sqlite".padStart(12) + "ratio".padStart(9) + "   extra per call" + "   | writeBehindMs 0".padEnd(20) + "ratio".padStart(8));
    for (const c of cases) {
      const m = median(res.memory![c]!);
      const s = median(res.sqlite![c]!);
      const w = median(res["sqlite-sync"]![c]!);
      console.log(c.padEnd(12) + us(m).padStart(12) + us(s).padStart(12) + `${(s / m).toFixed(3)}×`.padStart(9) + `   ${((s / m - 1) * 100).toFixed(1)}%  (${us(s - m)})`.padEnd(20) + `  | ${us(w).padStart(12)}` + `${(w / m).toFixed(3)}×`.padStart(10));
    }
    console.log("\nCPU time of this process per call (user + system), median round:");
    for (const c of cases) {
      const [m, s, w] = (["memory", "sqlite", "sqlite-sync"] as const).map((n) => median(cpu[n]![c]!));
      console.log(c.padEnd(12) + us(m!).padStart(12) + us(s!).padStart(12) + `${(s! / m!).toFixed(3)}×`.padStart(9) + `   ${((s! / m! - 1) * 100).toFixed(1)}%  (${us(s! - m!)})`.padEnd(20) + `  | ${us(w!).padStart(12)}` + `${(w! / m!).toFixed(3)}×`.padStart(10));
    }
    // the median of the per-round ratios (rounds run the hosts back to back)
    const ratio = (c: (typeof cases)[number], r: typeof res) => median(r.sqlite![c]!.map((x, i) => x / r.memory![c]![i]!)).toFixed(3);
    console.log(`\ngoal ≤ +5% (ratio ≤ 1.050×) with the disk store (default settings), median of the per-round ratios — wall: ${cases.map((c) => `${c} ${ratio(c, res)}×`).join(", ")}; CPU: ${cases.map((c) => `${c} ${ratio(c, cpu)}×`).join(", ")}`);
    const rec = await hosts.sqlite!.service<{ counts(): Promise<Record<string, { count: number }>> }>("sessions.usage")!.counts();
    console.log(`\n(check) usage counted by the sqlite host: Noop ${rec.Noop?.count ?? 0}, Read ${rec.Read?.count ?? 0}`);
  } finally {
    for (const h of Object.values(hosts)) await h.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
