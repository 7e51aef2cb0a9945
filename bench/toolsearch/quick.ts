/** Quick quality check (dev helper): `node bench/run.mjs toolsearch/quick '<json options>'` — prints all/hard figures per set. */
import { ToolIndex, PLAIN_BM25, type RankOptions } from "../../plugins/tool-search/rank.ts";
import { loadLiveMcpBench, loadMetaTool, loadMetaToolMulti, loadToolsearch, type BenchSet } from "./data.ts";

function evalSet(set: BenchSet, index: ToolIndex, filter?: (q: BenchSet["queries"][number]) => boolean) {
  const idOf = set.idOf ?? ((n: string) => n);
  let n = 0, r1 = 0, r5 = 0, mrr = 0;
  const fails: string[] = [];
  for (const q of set.queries) {
    if (filter && !filter(q)) continue;
    const accept = new Set(q.acceptable ?? []);
    const ranked: string[] = [];
    for (const h of index.search(q.query, { limit: 60 })) {
      const id = idOf(h.name);
      if (accept.has(h.name) || accept.has(id) || ranked.includes(id)) continue;
      ranked.push(id);
    }
    const gold = new Set(q.gold);
    const rec = (k: number) => ranked.slice(0, k).filter((x) => gold.has(x)).length / gold.size;
    const first = ranked.findIndex((x) => gold.has(x));
    n++; r1 += rec(1); r5 += rec(5); mrr += first >= 0 && first < 10 ? 1 / (first + 1) : 0;
    if (rec(5) < 1) fails.push(`${q.query} -> ${ranked.slice(0, 3).join(", ")} [gold ${q.gold.join(",")}]`);
  }
  return { n, r1: r1 / n, r5: r5 / n, mrr: mrr / n, fails };
}

export default async function (argv: string[]) {
  const opts: Partial<RankOptions> = argv[0] ? JSON.parse(argv[0]) : {};
  const sets = [loadToolsearch(), loadLiveMcpBench(), loadMetaTool(), loadMetaToolMulti()];
  for (const set of sets) {
    const ours = evalSet(set, new ToolIndex(set.docs, opts));
    const base = evalSet(set, new ToolIndex(set.docs.map((d) => ({ name: d.name, shortName: d.shortName, description: d.description })), PLAIN_BM25));
    console.log(`${set.name.padEnd(22)} R@1 ${ours.r1.toFixed(3)} R@5 ${ours.r5.toFixed(3)} MRR ${ours.mrr.toFixed(3)}  | bm25 R@5 ${base.r5.toFixed(3)} ratio ${(ours.r5 / base.r5).toFixed(3)}`);
    if (argv.includes("--fails") && set.name.startsWith("toolsearch")) for (const f of ours.fails) console.log("   ", f);
  }
}
