/** Quick quality check (dev helper): `node bench/run.mjs toolsearch/quick '<json options>'` — prints all/hard figures per set. */
import { ToolIndex, PLAIN_BM25, type RankOptions } from "../../plugins/tool-search/rank.ts";
import { loadLiveMcpBenchSplit, loadMetaToolSplit, loadMetaToolMulti, loadToolsearch, scoreQuery, type BenchSet } from "./data.ts";

function evalSet(set: BenchSet, index: ToolIndex, filter?: (q: BenchSet["queries"][number]) => boolean) {
  let n = 0, r1 = 0, r5 = 0, mrr = 0;
  const fails: string[] = [];
  for (const q of set.queries) {
    if (filter && !filter(q)) continue;
    const { ranked, r1: a1, r5: a5, mrr: am } = scoreQuery(set, index, q);
    n++; r1 += a1; r5 += a5; mrr += am;
    if (a5 < 1) fails.push(`${q.query} -> ${ranked.slice(0, 3).join(", ")} [gold ${q.gold.join(",")}]`);
  }
  return { n, r1: r1 / n, r5: r5 / n, mrr: mrr / n, fails };
}

export default async function (argv: string[]) {
  const opts: Partial<RankOptions> = argv[0] ? JSON.parse(argv[0]) : {};
  const sets = [loadToolsearch(), loadLiveMcpBenchSplit("heldout"), loadMetaToolSplit("heldout"), loadMetaToolMulti()];
  for (const set of sets) {
    const ours = evalSet(set, new ToolIndex(set.docs, opts));
    const base = evalSet(set, new ToolIndex(set.docs.map((d) => ({ name: d.name, shortName: d.shortName, description: d.description })), PLAIN_BM25));
    console.log(`${set.name.padEnd(22)} R@1 ${ours.r1.toFixed(3)} R@5 ${ours.r5.toFixed(3)} MRR ${ours.mrr.toFixed(3)}  | bm25 R@5 ${base.r5.toFixed(3)} ratio ${(ours.r5 / base.r5).toFixed(3)}`);
    if (argv.includes("--fails") && set.name.startsWith("toolsearch")) for (const f of ours.fails) console.log("   ", f);
  }
}
