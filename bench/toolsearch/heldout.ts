/**
 * `node bench/run.mjs toolsearch/heldout ['<json rank options>']`: the held-out discipline in one table —
 * training splits (what the learned data was fitted on), held-out splits and the toolsearch dev set
 * (validation), each beside plain BM25 of the same run.
 */
import { ToolIndex, PLAIN_BM25, type RankOptions } from "../../plugins/tool-search/rank.ts";
import { loadLiveMcpBenchSplit, loadMetaToolMulti, loadMetaToolSplit, loadToolsearch, type BenchSet } from "./data.ts";
import { mean } from "./train.ts";

export interface HeldoutRow {
  set: string;
  role: "train" | "held-out" | "validation";
  n: number;
  ours: { r1: number; r5: number; mrr: number };
  bm25: { r1: number; r5: number; mrr: number };
}

export function heldoutRows(opts: Partial<RankOptions> = {}): HeldoutRow[] {
  const sets: Array<[BenchSet, HeldoutRow["role"]]> = [
    [loadMetaToolSplit("train"), "train"],
    [loadLiveMcpBenchSplit("train"), "train"],
    [loadToolsearch(), "validation"],
    [loadMetaToolSplit("heldout"), "held-out"],
    [loadLiveMcpBenchSplit("heldout"), "held-out"],
    [loadMetaToolMulti(), "held-out"],
  ];
  return sets.map(([set, role]) => {
    const ours = mean(set, new ToolIndex(set.docs, opts));
    const bm25 = mean(set, new ToolIndex(set.docs.map((d) => ({ name: d.name, shortName: d.shortName, description: d.description })), PLAIN_BM25));
    return { set: set.name, role, n: ours.n, ours, bm25 };
  });
}

export function heldoutTable(rows: HeldoutRow[]): string[] {
  const f = (x: number) => x.toFixed(3);
  const out = ["| set | role | n | R@1 ours / bm25 | R@5 ours / bm25 (ratio) | MRR@10 ours / bm25 |", "|---|---|---|---|---|---|"];
  for (const r of rows) out.push(`| ${r.set} | ${r.role} | ${r.n} | ${f(r.ours.r1)} / ${f(r.bm25.r1)} | ${f(r.ours.r5)} / ${f(r.bm25.r5)} (${(r.ours.r5 / r.bm25.r5).toFixed(2)}×) | ${f(r.ours.mrr)} / ${f(r.bm25.mrr)} |`);
  return out;
}

export default async function (argv: string[]) {
  const opts: Partial<RankOptions> = argv[0] ? JSON.parse(argv[0]) : {};
  console.log(heldoutTable(heldoutRows(opts)).join("\n"));
}
