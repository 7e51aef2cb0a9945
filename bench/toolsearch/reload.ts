/**
 * ToolSearch index cost on rebuilds: `node bench/run.mjs toolsearch/reload [--quick]`.
 * Like bench/reload.ts sections 2–3, but every tool is deferred (`shouldDefer: true`, with a realistic
 * description and schema), so the tool-search plugin has an index to build. Runs each measure twice:
 * "eager" (the index built at build.seal for every generation, the behaviour before index reuse) and
 * "lazy-reuse" (built on the first search, reused while the deferred tools are unchanged).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createHost, type Host } from "../../core/index.ts";
import { setIndexStrategy, indexBuildCount } from "../../plugins/tool-search/search.ts";

const quick = process.argv.includes("--quick");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const f1 = (n: number) => n.toFixed(1);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function tmp(): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolhost-bench-tsreload-")));
}
function write(f: string, text: string): void {
  fs.mkdirSync(path.dirname(f), { recursive: true });
  fs.writeFileSync(f, text);
}
const VERBS = ["list", "get", "create", "update", "delete", "search", "send", "run"];
const NOUNS = ["issue", "file", "message", "channel", "record", "event", "user", "report", "page", "job"];
function toolsModule(prefix: string, n: number, reply: string, descSuffix = ""): string {
  let s = "";
  for (let i = 0; i < n; i++) {
    const v = VERBS[i % VERBS.length]!;
    const o = NOUNS[(i * 7 + prefix.length) % NOUNS.length]!;
    const desc = `${v[0]!.toUpperCase()}${v.slice(1)} a ${o} in ${prefix}. Returns the ${o} with its id, owner, timestamps and status; pages with cursor.${descSuffix}`;
    s += `export const t${i} = { name: "${prefix}_${v}_${o}_${i}", shouldDefer: true, description: ${JSON.stringify(desc)}, inputSchema: { type: "object", properties: { id: { type: "string", description: "The ${o} id" }, cursor: { type: "string", description: "Page cursor from a previous call" }, limit: { type: "number", description: "Max results" } } }, isReadOnly: true, isConcurrencySafe: true, call: () => ${JSON.stringify(reply)} };\n`;
  }
  return s;
}
function plugin(root: string, name: string, tools: number, reply = "r0"): void {
  write(path.join(root, ".claude-plugin", "plugin.json"), JSON.stringify({ name, tools: ["./tools.ts"] }));
  write(path.join(root, "tools.ts"), toolsModule(name, tools, reply));
}
const opts = (cwd: string, plugins: string[]) => ({ cwd, config: { plugins }, onAsk: () => "allow" as const, dataHome: path.join(cwd, ".data") });

async function firstSearch(host: Host): Promise<number> {
  const t0 = performance.now();
  const o = await host.execute("ToolSearch", { query: "create issue", max_results: 5 }, { sessionId: "bench" });
  if (o.status !== "ok") throw new Error(`ToolSearch failed: ${o.status}`);
  return performance.now() - t0;
}

async function rebuilds(strategy: "eager" | "lazy-reuse"): Promise<void> {
  setIndexStrategy(strategy);
  const nPlugins = 100;
  const perPlugin = quick ? 20 : 100;
  const cwd = tmp();
  const refs: string[] = [];
  for (let i = 0; i < nPlugins; i++) {
    plugin(path.join(cwd, "plugins", `p${i}`), `p${i}`, perPlugin);
    refs.push(`./plugins/p${i}`);
  }
  const host = await createHost(opts(cwd, refs));
  const deferred = host.pool.deferred.length;
  await firstSearch(host);
  const b0 = indexBuildCount();
  const same: number[] = [];
  const sameSearch: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    await host.rebuild("no change");
    same.push(performance.now() - t0);
    sameSearch.push(await firstSearch(host));
  }
  const b1 = indexBuildCount();
  const code: number[] = [];
  for (let i = 0; i < 5; i++) {
    write(path.join(cwd, "plugins", "p7", "tools.ts"), toolsModule("p7", perPlugin, `edit${i}`));
    const t0 = performance.now();
    await host.rebuild("code edited");
    code.push(performance.now() - t0);
  }
  const desc: number[] = [];
  const descSearch: number[] = [];
  for (let i = 0; i < 5; i++) {
    write(path.join(cwd, "plugins", "p7", "tools.ts"), toolsModule("p7", perPlugin, `edit${i}`, ` Revision ${i}.`));
    const t0 = performance.now();
    await host.rebuild("description edited");
    desc.push(performance.now() - t0);
    descSearch.push(await firstSearch(host));
  }
  await host.close();
  console.log(`  [${strategy}] ${deferred} deferred tools: no-change rebuild median ${f1(median(same))} ms, then first search ${f1(median(sameSearch))} ms (${b1 - b0} index builds in 5 rebuilds)`);
  console.log(`  [${strategy}] one plugin's code edited (tool definitions unchanged): rebuild median ${f1(median(code))} ms`);
  console.log(`  [${strategy}] one plugin's descriptions edited: rebuild median ${f1(median(desc))} ms, then first search ${f1(median(descSearch))} ms`);
}

async function callsUnderReload(strategy: "eager" | "lazy-reuse"): Promise<void> {
  setIndexStrategy(strategy);
  const seconds = quick ? 1 : 3;
  const cwd = tmp();
  const p1 = path.join(cwd, "plugins", "p1");
  // 10 plugins / 200 tools that are called, plus 10 plugins / 1,000 deferred tools that give the index some size
  for (let i = 1; i <= 20; i++) plugin(path.join(cwd, "plugins", `p${i}`), `p${i}`, i <= 10 ? 20 : 100);
  const host = await createHost(opts(cwd, Array.from({ length: 20 }, (_, i) => `./plugins/p${i + 1}`)));
  const tool = host.pool.deferred.find((t) => t.name.startsWith("p1_"))!.name;
  const run = async (ms: number) => {
    let calls = 0;
    const end = performance.now() + ms;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (performance.now() < end) {
          const o = await host.execute(tool, { id: "a" }, { yes: true, sessionId: "bench", autoLoadDeferred: true });
          if (o.status !== "ok") throw new Error(`call failed: ${o.status}`);
          calls++;
          await new Promise((r) => setImmediate(r));
        }
      }),
    );
    return calls;
  };
  await run(300);
  const base = await run(seconds * 1000);
  let stop = false;
  let reloads = 0;
  const reloader = (async () => {
    let i = 0;
    while (!stop) {
      const t0 = performance.now();
      write(path.join(p1, "tools.ts"), toolsModule("p1", 20, `r${++i}`));
      if ((await host.rebuild("bench reload")).ok) reloads++;
      await sleep(Math.max(0, 100 - (performance.now() - t0)));
    }
  })();
  const loaded = await run(seconds * 1000);
  stop = true;
  await reloader;
  await host.close();
  console.log(`  [${strategy}] calls/s, ${host.pool.deferred.length} deferred tools: no reloads ${Math.round(base / seconds)}, reloading every 100 ms (${reloads} rebuilds) ${Math.round(loaded / seconds)}: ratio ${(loaded / base).toFixed(2)}`);
}

export default async function main(): Promise<void> {
  console.log(`tool-search index cost on rebuilds${quick ? " (--quick)" : ""} · node ${process.version} · ${os.cpus().length} cpus · load ${os.loadavg()[0]!.toFixed(1)}`);
  console.log(`1. rebuild, 100 plugins / ${quick ? 2000 : 10000} deferred tools:`);
  await rebuilds("eager");
  await rebuilds("lazy-reuse");
  console.log(`2. calls/s under reload (concurrency 16):`);
  await callsUnderReload("eager");
  await callsUnderReload("lazy-reuse");
  setIndexStrategy("lazy-reuse");
}
