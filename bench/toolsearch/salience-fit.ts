/**
 * `node bench/run.mjs toolsearch/salience-fit`: a learned weight per query word (issue 18 experiment), on TRAINING
 * data only. From train.ts's fit-fold pairs: how often a query word is also in its gold tool's terms (name + first
 * 400 characters), smoothed towards the overall rate (prior of `alpha` pairs); the query word's BM25 weight becomes
 * (rate / overall rate)^gamma, clamped to [lo, hi]. Scored on the fit fold and the tune fold split by gold tool,
 * with the association table refitted on the fit fold (as expand-fit.ts). The dev set is not read (`--heldout`:
 * after the choice, every set of heldout.ts with salience from all training pairs, for the record).
 */
import { ToolIndex, type RankOptions } from "../../plugins/tool-search/rank.ts";
import { loadLiveMcpBenchSplit, loadMetaToolSplit } from "./data.ts";
import { fit, isTuneByTool, LIVE_WEIGHT, mean, pairsOf, type Pair } from "./train.ts";
import { CHOSEN_FIT } from "./expand-fit.ts";

export function salience(pairs: Pair[], alpha: number, gamma: number, lo: number, hi: number, minPairs = 3): Map<string, number> {
  const n = new Map<string, number>();
  const h = new Map<string, number>();
  let N = 0, H = 0;
  for (const { q, t } of pairs) {
    const ts = new Set(t);
    for (const a of q) {
      n.set(a, (n.get(a) ?? 0) + 1), N++;
      if (ts.has(a)) h.set(a, (h.get(a) ?? 0) + 1), H++;
    }
  }
  const p0 = H / N;
  const out = new Map<string, number>();
  for (const [a, na] of n) {
    if (na < minPairs) continue;
    const r = ((h.get(a) ?? 0) + alpha * p0) / (na + alpha);
    out.set(a, Math.min(hi, Math.max(lo, (r / p0) ** gamma)));
  }
  return out;
}

export default async function (argv: string[]) {
  if (argv[0] === "--heldout") {
    // for the record, after the choice: salience from all training pairs (gamma 0.25, alpha 5, 0.25–2) on every set
    const all = [...pairsOf(loadMetaToolSplit("train"), 1), ...pairsOf(loadLiveMcpBenchSplit("train"), LIVE_WEIGHT)];
    const { heldoutRows, heldoutTable } = await import("./heldout.ts");
    console.log(heldoutTable(heldoutRows({ salience: salience(all, 5, 0.25, 0.25, 2) })).join("\n"));
    return;
  }
  const tune = isTuneByTool;
  const meta = loadMetaToolSplit("train");
  const live = loadLiveMcpBenchSplit("train");
  const fitPairs = [...pairsOf(meta, 1, (q) => !tune(q)), ...pairsOf(live, LIVE_WEIGHT, (q) => !tune(q))];
  const table = fit(fitPairs, CHOSEN_FIT);
  const f = (x: number) => x.toFixed(3);
  console.log("| gamma | alpha | clamp | fit MetaTool R@5 / MRR | fit LiveMCPBench R@5 / MRR | fit score | tune MetaTool R@5 / MRR | tune LiveMCPBench R@5 / MRR | tune score |");
  console.log("|---|---|---|---|---|---|---|---|---|");
  for (const [gamma, alpha, lo, hi] of [[0, 5, 1, 1], [0.25, 5, 0.25, 2], [0.5, 5, 0.25, 2], [1, 5, 0.25, 2], [0.5, 20, 0.25, 2], [0.5, 5, 0.5, 1], [1, 5, 0.1, 1]] as const) {
    const o: Partial<RankOptions> = { learned: table, ...(gamma > 0 ? { salience: salience(fitPairs, alpha, gamma, lo, hi) } : {}) };
    const mi = new ToolIndex(meta.docs, o);
    const li = new ToolIndex(live.docs, o);
    const fm = mean(meta, mi, (q) => !tune(q)), fl = mean(live, li, (q) => !tune(q));
    const tm = mean(meta, mi, tune), tl = mean(live, li, tune);
    const sc = (m: typeof fm, l: typeof fl) => (m.r5 + m.mrr) / 2 + (l.r5 + l.mrr) / 2;
    console.log(`| ${gamma} | ${alpha} | ${lo}–${hi} | ${f(fm.r5)} / ${f(fm.mrr)} | ${f(fl.r5)} / ${f(fl.mrr)} | ${sc(fm, fl).toFixed(4)} | ${f(tm.r5)} / ${f(tm.mrr)} | ${f(tl.r5)} / ${f(tl.mrr)} | ${sc(tm, tl).toFixed(4)} |`);
  }
}
