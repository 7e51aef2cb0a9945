/**
 * Hot-reload benchmark: `node bench/run.mjs reload [--quick]`.
 *  1. edit → visible: time from a file write (a tool module's reply changes) to the new code answering
 *     a call, with real chokidar and the default debounce (50 ms); median and p90 over 50 edits.
 *     Baseline: the same edit followed by an explicit host.rebuild() (no watcher, no debounce).
 *  2. rebuild time for 100 plugins / 10,000 tools (plain-object tool modules): startup, a rebuild
 *     where nothing changed, a rebuild where one plugin changed; per 1,000 tools. Also 10 plugins whose
 *     tool modules import defineTool from toolhost (each fresh import re-evaluates the core).
 *  3. calls per second sustained while reloading every 100 ms (a tool module edited + rebuilt) vs
 *     calls per second with no reloads (ratio).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createHost, PACKAGE_ROOT, resultText, type Host } from "../core/index.ts";

const quick = process.argv.includes("--quick");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function tmp(): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolhost-bench-reload-")));
}

function write(f: string, text: string): void {
  fs.mkdirSync(path.dirname(f), { recursive: true });
  fs.writeFileSync(f, text);
}

function toolsModule(prefix: string, n: number, reply: string): string {
  let s = "";
  for (let i = 0; i < n; i++) {
    s += `export const t${i} = { name: "${prefix}_${i}", description: "tool ${i} of ${prefix}", inputSchema: { type: "object", properties: { x: { type: "string" } } }, isReadOnly: true, isConcurrencySafe: true, call: () => ${JSON.stringify(reply)} };\n`;
  }
  return s;
}

function plugin(root: string, name: string, tools: number, reply = "r0"): void {
  write(path.join(root, ".claude-plugin", "plugin.json"), JSON.stringify({ name, tools: ["./tools.ts"] }));
  write(path.join(root, "tools.ts"), toolsModule(name, tools, reply));
}

async function until(pred: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const t0 = performance.now();
  while (!(await pred())) {
    if (performance.now() - t0 > timeoutMs) throw new Error("timed out");
    await new Promise((r) => setImmediate(r));
  }
}

function stats(xs: number[]): { median: number; p90: number; min: number; max: number } {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)]!, p90: s[Math.floor(s.length * 0.9)]!, min: s[0]!, max: s.at(-1)! };
}

const f1 = (n: number) => n.toFixed(1);
const opts = (cwd: string, plugins: string[]) => ({ cwd, config: { plugins }, onAsk: () => "allow" as const, dataHome: path.join(cwd, ".data") });

async function reply(host: Host, tool: string): Promise<string> {
  return resultText((await host.execute(tool, {})).result);
}

async function editToVisible(): Promise<void> {
  const edits = quick ? 15 : 50;
  const cwd = tmp();
  const p1 = path.join(cwd, "plugins", "p1");
  plugin(p1, "p1", 5);
  const watched = await createHost({ ...opts(cwd, ["./plugins/p1"]), watch: true });
  const lat: number[] = [];
  for (let i = 1; i <= edits; i++) {
    await sleep(300); // a quiet spell between saves, like a person editing (storm control stays out of the way)
    const t0 = performance.now();
    write(path.join(p1, "tools.ts"), toolsModule("p1", 5, `w${i}`));
    await until(async () => (await reply(watched, "p1_0")) === `w${i}`);
    lat.push(performance.now() - t0);
  }
  await watched.close();

  const cwd2 = tmp();
  const q1 = path.join(cwd2, "plugins", "p1");
  plugin(q1, "p1", 5);
  const manual = await createHost(opts(cwd2, ["./plugins/p1"]));
  const base: number[] = [];
  for (let i = 1; i <= edits; i++) {
    const t0 = performance.now();
    write(path.join(q1, "tools.ts"), toolsModule("p1", 5, `m${i}`));
    await manual.rebuild("bench");
    if ((await reply(manual, "p1_0")) !== `m${i}`) throw new Error("explicit rebuild did not load the edit");
    base.push(performance.now() - t0);
  }
  await manual.close();
  const w = stats(lat);
  const b = stats(base);
  console.log(`1. edit → new code visible, ${edits} edits (chokidar + debounce 50 ms):`);
  console.log(`   watched: median ${f1(w.median)} ms, p90 ${f1(w.p90)} ms, min ${f1(w.min)} ms, max ${f1(w.max)} ms`);
  console.log(`   baseline write + explicit rebuild: median ${f1(b.median)} ms, p90 ${f1(b.p90)} ms`);
  console.log(`   ratio watched / explicit (median): ${(w.median / b.median).toFixed(1)}×; watcher + debounce overhead ${f1(w.median - b.median)} ms`);
}

async function bigRebuild(): Promise<void> {
  const nPlugins = 100;
  const perPlugin = quick ? 20 : 100;
  const cwd = tmp();
  const refs: string[] = [];
  for (let i = 0; i < nPlugins; i++) {
    plugin(path.join(cwd, "plugins", `p${i}`), `p${i}`, perPlugin);
    refs.push(`./plugins/p${i}`);
  }
  const total = nPlugins * perPlugin;
  let t0 = performance.now();
  const host = await createHost(opts(cwd, refs));
  const startup = performance.now() - t0;
  const poolSize = host.pool.tools.length + host.pool.deferred.length;
  const same: number[] = [];
  for (let i = 0; i < 5; i++) {
    t0 = performance.now();
    const r = await host.rebuild("no change");
    same.push(performance.now() - t0);
    if (!r.ok || r.diff!.fingerprintChanged) throw new Error("a no-change rebuild changed the pool");
  }
  const one: number[] = [];
  for (let i = 0; i < 5; i++) {
    write(path.join(cwd, "plugins", "p7", "tools.ts"), toolsModule("p7", perPlugin, `edit${i}`));
    t0 = performance.now();
    await host.rebuild("one plugin changed");
    one.push(performance.now() - t0);
  }
  if ((await reply(host, "p7_0")) !== "edit4") throw new Error("the edited plugin did not reload");
  await host.close();

  // The same startup with watching on (chokidar's initial scan of 100 plugin directories).
  t0 = performance.now();
  const watched = await createHost({ ...opts(cwd, refs), watch: true });
  const watchedStartup = performance.now() - t0;
  await watched.close();

  console.log(`2. rebuild, ${nPlugins} plugins / ${total} tools (pool ${poolSize} incl. built-ins):`);
  console.log(`   startup ${f1(startup)} ms (cold jiti transform cache); again with watching on (warm cache, chokidar scan of 100 dirs): ${f1(watchedStartup)} ms`);
  console.log(`   no-change rebuild: median ${f1(stats(same).median)} ms (${f1((stats(same).median / total) * 1000)} ms per 1,000 tools)`);
  console.log(`   one plugin edited: median ${f1(stats(one).median)} ms`);

  // Tool modules that import defineTool from toolhost's core: each fresh (uncached) import re-evaluates the core.
  const cwd2 = tmp();
  const core = path.join(PACKAGE_ROOT, "core", "index.ts");
  const refs2: string[] = [];
  const n2 = 10;
  for (let i = 0; i < n2; i++) {
    const root = path.join(cwd2, "plugins", `d${i}`);
    write(path.join(root, ".claude-plugin", "plugin.json"), JSON.stringify({ name: `d${i}`, tools: ["./tools.ts"] }));
    write(path.join(root, "tools.ts"), `import { defineTool } from ${JSON.stringify(core)};\n` + toolsModule(`d${i}`, 10, "x").replace(/= \{/g, "= defineTool({").replace(/\};\n/g, "});\n"));
    refs2.push(`./plugins/d${i}`);
  }
  const h2 = await createHost(opts(cwd2, refs2));
  const d: number[] = [];
  for (let i = 0; i < 3; i++) {
    t0 = performance.now();
    await h2.rebuild("no change");
    d.push(performance.now() - t0);
  }
  await h2.close();
  console.log(`   ${n2} plugins whose modules import defineTool from core: no-change rebuild median ${f1(stats(d).median)} ms (${f1(stats(d).median / n2)} ms per module)`);
}

async function callsUnderReload(): Promise<void> {
  const seconds = quick ? 1 : 3;
  const concurrency = 16;
  const cwd = tmp();
  const p1 = path.join(cwd, "plugins", "p1");
  plugin(p1, "p1", 20);
  for (let i = 2; i <= 10; i++) plugin(path.join(cwd, "plugins", `p${i}`), `p${i}`, 20);
  const host = await createHost(opts(cwd, Array.from({ length: 10 }, (_, i) => `./plugins/p${i + 1}`)));

  const run = async (ms: number): Promise<{ calls: number; failed: number; gens: Set<number> }> => {
    let calls = 0;
    let failed = 0;
    const gens = new Set<number>();
    const end = performance.now() + ms;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < end) {
          const o = await host.execute("p1_3", { x: "a" });
          calls++;
          gens.add(o.generation);
          if (o.status !== "ok") failed++;
          // A real call does I/O; this one resolves in microtasks, so yield to the event loop like one would.
          await new Promise((r) => setImmediate(r));
        }
      }),
    );
    return { calls, failed, gens };
  };
  await run(300); // warm-up
  const base = await run(seconds * 1000);

  let stop = false;
  let reloads = 0;
  const reloader = (async () => {
    let i = 0;
    while (!stop) {
      const t0 = performance.now();
      write(path.join(p1, "tools.ts"), toolsModule("p1", 20, `r${++i}`));
      const r = await host.rebuild("bench reload");
      if (r.ok) reloads++;
      await sleep(Math.max(0, 100 - (performance.now() - t0)));
    }
  })();
  const loaded = await run(seconds * 1000);
  stop = true;
  await reloader;
  await host.close();
  const bps = base.calls / seconds;
  const lps = loaded.calls / seconds;
  console.log(`3. calls/s (concurrency ${concurrency}, ${seconds} s each, 10 plugins / 200 tools):`);
  console.log(`   no reloads: ${Math.round(bps)} calls/s`);
  console.log(`   reloading every 100 ms (${reloads} rebuilds, calls served by ${loaded.gens.size} generations, ${loaded.failed} failed): ${Math.round(lps)} calls/s`);
  console.log(`   ratio under reload / no reload: ${(lps / bps).toFixed(2)}`);
}

export default async function main(): Promise<void> {
  console.log(`toolhost reload benchmark${quick ? " (--quick)" : ""} · node ${process.version} · ${os.cpus().length} cpus`);
  await editToVisible();
  await bigRebuild();
  await callsUnderReload();
}
