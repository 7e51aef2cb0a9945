/**
 * `node --cpu-prof bench/run.mjs toolsearch/profile [builds]`: only the 10,000-tool index build, repeated (default 20),
 * for a CPU profile of the build without the evaluation sets; prints CPU ms per build (median).
 */
import { ToolIndex } from "../../plugins/tool-search/rank.ts";
import { loadLiveMcpBench, loadToolsearch } from "./data.ts";
import { synthesise } from "./index.ts";

export default async function (argv: string[]) {
  const n = Number(argv[0] ?? 20);
  const big = synthesise([loadToolsearch(), loadLiveMcpBench()], 10_000);
  const cpu: number[] = [];
  for (let i = 0; i < n; i++) {
    const c = process.cpuUsage();
    new ToolIndex(big);
    const d = process.cpuUsage(c);
    cpu.push((d.user + d.system) / 1000);
  }
  const s = cpu.slice(1).sort((a, b) => a - b);
  console.log(`10k build CPU: median ${s[s.length >> 1]!.toFixed(1)} ms, best ${s[0]!.toFixed(1)} ms over ${n - 1} builds after one warm-up`);
}
