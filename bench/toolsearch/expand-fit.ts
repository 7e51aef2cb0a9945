/**
 * `node bench/run.mjs toolsearch/expand-fit ['<json grid>']`: issue 18's "learned association as an expansion field",
 * measured on TRAINING data only. The association table is refitted on train.ts's fit fold (train.ts's chosen
 * parameters), and each expansion-field setting (options.ts `weights.expansion`, `expansionTopK`) is scored on
 * the fit fold and on the tune fold split by gold tool (tools the table never saw), both sets counting equally
 * as in train.ts. The dev set is not read.
 */
import { ToolIndex, DEFAULT_OPTIONS, type RankOptions } from "../../plugins/tool-search/rank.ts";
import { loadLiveMcpBenchSplit, loadMetaToolSplit } from "./data.ts";
import { fit, isTuneByTool, LIVE_WEIGHT, mean, pairsOf } from "./train.ts";

export const CHOSEN_FIT = { minCount: 3, minNpmi: 0.25, topK: 8, liveWeight: LIVE_WEIGHT, minTools: 2, ownWordTools: 0 };

export default async function (argv: string[]) {
  const grid: Array<Partial<RankOptions>> = argv[0]
    ? JSON.parse(argv[0])
    : [0, 0.1, 0.25, 0.5, 1].flatMap((w) => (w === 0 ? [{ w }] : [8, 16].map((k) => ({ w, k })))).map(({ w, k }: { w: number; k?: number }) => ({ weights: { ...DEFAULT_OPTIONS.weights, expansion: w }, ...(k ? { expansionTopK: k } : {}) }));
  const tune = isTuneByTool;
  const meta = loadMetaToolSplit("train");
  const live = loadLiveMcpBenchSplit("train");
  const table = fit([...pairsOf(meta, 1, (q) => !tune(q)), ...pairsOf(live, LIVE_WEIGHT, (q) => !tune(q))], CHOSEN_FIT);
  const f = (x: number) => x.toFixed(3);
  console.log("| setting | fit fold MetaTool R@5 / MRR | fit LiveMCPBench R@5 / MRR | fit score | tune MetaTool R@5 / MRR | tune LiveMCPBench R@5 / MRR | tune score |");
  console.log("|---|---|---|---|---|---|---|");
  for (const g of grid) {
    const o = { ...g, learned: table };
    const mi = new ToolIndex(meta.docs, o);
    const li = new ToolIndex(live.docs, o);
    const fm = mean(meta, mi, (q) => !tune(q)), fl = mean(live, li, (q) => !tune(q));
    const tm = mean(meta, mi, tune), tl = mean(live, li, tune);
    const sc = (m: typeof fm, l: typeof fl) => (m.r5 + m.mrr) / 2 + (l.r5 + l.mrr) / 2;
    const label = JSON.stringify({ ...g, weights: g.weights ? { expansion: g.weights.expansion } : undefined });
    console.log(`| ${label} | ${f(fm.r5)} / ${f(fm.mrr)} | ${f(fl.r5)} / ${f(fl.mrr)} | ${sc(fm, fl).toFixed(4)} | ${f(tm.r5)} / ${f(tm.mrr)} | ${f(tl.r5)} / ${f(tl.mrr)} | ${sc(tm, tl).toFixed(4)} |`);
  }
}
