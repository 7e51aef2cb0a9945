/**
 * `node bench/run.mjs toolsearch/rerank-fit [--dry] [--verbose]` (also the last step of `npm run toolsearch:train`):
 * fits the cross-field reranker's few weights (plugins/tool-search/rerank.ts) on TRAINING data only — MetaTool's
 * train split and LiveMCPBench's train split, the same splits as the associations — and writes
 * plugins/tool-search/data/rerank.json. The toolsearch dev queries are never read here.
 *
 * The first stage's top 20 and their features are computed once per query; then coordinate ascent over a grid of
 * round values, one weight at a time, keeps a change only when the objective (as in train.ts: mean of R@5 and MRR@10
 * of each set, both sets counting equally) rises by more than 0.001 — a weight the data does not ask for stays 0.
 * Before the final fit, the same procedure on a fit fold is checked on the tool-split tune fold (train.ts's
 * isTuneByTool) and printed: what the weights are worth on tools they were not fitted on.
 */
import fs from "node:fs";
import path from "node:path";
import { ToolIndex } from "../../plugins/tool-search/rank.ts";
import { FEATURES, RERANK_FILE, ZERO_WEIGHTS, type RerankWeights } from "../../plugins/tool-search/rerank.ts";
import { loadLiveMcpBenchSplit, loadMetaToolSplit, type BenchQuery, type BenchSet } from "./data.ts";
import { fit, isTuneByTool, LIVE_WEIGHT, pairsOf, type FitParams } from "./train.ts";
import { ASSOCIATIONS_FILE, type AssociationTable } from "../../plugins/tool-search/learned.ts";

const DEPTH = 20;
export const WEIGHT_GRID = [-2, -1, -0.5, -0.25, -0.1, 0, 0.1, 0.25, 0.5, 1, 2];
const MIN_GAIN = 0;
/** The tune-fold gain the pruned weights must exceed to ship (else every weight ships as 0). */
const GAIN_TO_SHIP = 0.002;
/** Features fitted on the slice of training queries where they fire. */
const RARE_FEATURES = ["trap"] as const;
let sliceNote = "";

interface Cand {
  ids: string[];
  scores: number[];
  feats: Float64Array[];
  gold: Set<string>;
  accept: Set<string>;
  names: string[];
}

export function candidates(set: BenchSet, filter?: (q: BenchQuery) => boolean, learned?: AssociationTable): Cand[] {
  const ix = new ToolIndex(set.docs, { rerank: DEPTH, ...(learned ? { learned } : {}) });
  const idOf = set.idOf ?? ((n: string) => n);
  const out: Cand[] = [];
  for (const q of set.queries) {
    if (filter && !filter(q)) continue;
    const feats: Float64Array[] = [];
    const hits = ix.search(q.query, { limit: DEPTH, features: feats });
    out.push({ ids: hits.map((h) => idOf(h.name)), names: hits.map((h) => h.name), scores: hits.map((h) => h.score), feats, gold: new Set(q.gold), accept: new Set(q.acceptable ?? []) });
  }
  return out;
}

/** Mean R@5 and MRR@10 of the reranked candidates (the bench's scoring: acceptable ids skipped, ids deduplicated). */
export function evaluate(cands: readonly Cand[], w: RerankWeights): { r5: number; mrr: number } {
  const wv = FEATURES.map((k) => w[k]);
  let r5 = 0, mrr = 0;
  for (const c of cands) {
    const n = c.ids.length;
    if (!n) continue;
    const best = c.scores[0]! || 1;
    const s = c.scores.map((x, k) => {
      let v = Math.log(Math.max(x, 1e-9) / best);
      for (let j = 0; j < wv.length; j++) v += wv[j]! * c.feats[k]![j]!;
      return v;
    });
    const order = [...Array(n).keys()].sort((a, b) => s[b]! - s[a]! || a - b);
    const ranked: string[] = [];
    for (const k of order) {
      const id = c.ids[k]!;
      if (c.accept.has(c.names[k]!) || c.accept.has(id) || ranked.includes(id)) continue;
      ranked.push(id);
    }
    r5 += ranked.slice(0, 5).filter((x) => c.gold.has(x)).length / c.gold.size;
    const first = ranked.findIndex((x) => c.gold.has(x));
    if (first >= 0 && first < 10) mrr += 1 / (first + 1);
  }
  return { r5: r5 / cands.length, mrr: mrr / cands.length };
}

const objective = (sets: ReadonlyArray<readonly Cand[]>, w: RerankWeights) =>
  sets.reduce((a, c) => {
    const e = evaluate(c, w);
    return a + (e.r5 + e.mrr) / 2;
  }, 0);

/** Coordinate ascent over WEIGHT_GRID from all-zero weights; a change must gain more than MIN_GAIN. */
export function fitWeights(sets: ReadonlyArray<readonly Cand[]>, log?: (s: string) => void): { w: RerankWeights; score: number; base: number } {
  const w: RerankWeights = { ...ZERO_WEIGHTS };
  const base = objective(sets, w);
  let score = base;
  for (let sweep = 0; sweep < 3; sweep++) {
    let changed = false;
    for (const f of FEATURES) {
      let bestV = w[f];
      let bestS = score;
      for (const v of WEIGHT_GRID) {
        if (v === w[f]) continue;
        const s = objective(sets, { ...w, [f]: v });
        if (s > bestS + MIN_GAIN || (Math.abs(s - bestS) <= 1e-12 && Math.abs(v) < Math.abs(bestV) && s > score + MIN_GAIN)) (bestS = s), (bestV = v);
      }
      if (bestV !== w[f]) (w[f] = bestV), (score = bestS), (changed = true), log?.(`  ${f} → ${bestV}: ${score.toFixed(4)}`);
    }
    if (!changed) break;
  }
  return { w, score, base };
}

/** The association parameters train.ts chose (the shipped table's header), to refit a fold-only table. */
function shippedFitParams(): FitParams {
  const m = /^# params (\{.*?\})/m.exec(fs.readFileSync(ASSOCIATIONS_FILE, "utf8"));
  const p = m ? JSON.parse(m[1]!) : {};
  return { minCount: p.minCount ?? 3, minNpmi: p.minNpmi ?? 0.25, topK: p.topK ?? 8, liveWeight: p.liveWeight ?? LIVE_WEIGHT, minTools: p.minTools ?? 2, ownWordTools: p.ownWordTools ?? 0 };
}

export default async function rerankFit(argv: string[] = []): Promise<void> {
  const t0 = performance.now();
  const log = argv.includes("--verbose") ? (s: string) => console.log(s) : undefined;
  const f3 = (x: number) => x.toFixed(3);
  const meta = loadMetaToolSplit("train");
  const live = loadLiveMcpBenchSplit("train");
  // The fit fold and the tool-split tune fold of train.ts; the associations the features read are refitted on the
  // fit fold only, so a weight on a learned feature cannot win by memorising the tune fold's tools.
  const fitPairs = [...pairsOf(meta, 1, (q) => !isTuneByTool(q)), ...pairsOf(live, LIVE_WEIGHT, (q) => !isTuneByTool(q))];
  const learned = fit(fitPairs, shippedFitParams());
  const fitSets = [candidates(meta, (q) => !isTuneByTool(q), learned), candidates(live, (q) => !isTuneByTool(q), learned)];
  const tuneSets = [candidates(meta, isTuneByTool, learned), candidates(live, isTuneByTool, learned)];
  const fold = fitWeights(fitSets, log);
  console.log(`fit fold (${fitSets[0]!.length} MetaTool, ${fitSets[1]!.length} LiveMCPBench): ${f3(fold.base)} → ${f3(fold.score)} with ${JSON.stringify(fold.w)}`);
  // prune on the tune fold: a weight stays only if zeroing it lowers the tune objective
  const w = { ...fold.w };
  let tune = objective(tuneSets, w);
  const tune0 = objective(tuneSets, ZERO_WEIGHTS);
  for (const f of FEATURES) {
    if (!w[f]) continue;
    const without = objective(tuneSets, { ...w, [f]: 0 });
    console.log(`  tune fold without ${f} (${w[f]}): ${f3(without)} vs ${f3(tune)}${without >= tune ? " → dropped" : ""}`);
    if (without >= tune) (w[f] = 0), (tune = without);
  }
  const row = (c: readonly Cand[], x: RerankWeights) => {
    const e = evaluate(c, x);
    return `R@5 ${f3(e.r5)} MRR ${f3(e.mrr)}`;
  };
  console.log(`tune fold (by gold tool; ${tuneSets[0]!.length} MetaTool, ${tuneSets[1]!.length} LiveMCPBench): ${f3(tune0)} → ${f3(tune)}; MetaTool ${row(tuneSets[0]!, ZERO_WEIGHTS)} → ${row(tuneSets[0]!, w)}; LiveMCPBench ${row(tuneSets[1]!, ZERO_WEIGHTS)} → ${row(tuneSets[1]!, w)}`);
  console.log(`fit fold with the pruned weights: MetaTool ${row(fitSets[0]!, ZERO_WEIGHTS)} → ${row(fitSets[0]!, w)}; LiveMCPBench ${row(fitSets[1]!, ZERO_WEIGHTS)} → ${row(fitSets[1]!, w)}`);
  // ship nothing the tune fold does not ask for: weights that do not raise it by more than GAIN_TO_SHIP stay 0
  if (tune <= tune0 + GAIN_TO_SHIP) {
    console.log(`the pruned weights raise the tune fold by ${f3(tune - tune0)} (≤ ${GAIN_TO_SHIP}): all-zero weights`);
    for (const f of FEATURES) w[f] = 0;
  }
  // Rare features (the literal-word trap: a candidate's name word matched only by a word of a "before/after/without …"
  // clause) fire on a few training queries, too few to move the whole objective: their weight is chosen on their own
  // slice of ALL training queries (both folds), counting queries, and ships only when it gains on the slice of each fold.
  for (const rf of RARE_FEATURES) {
    const k = FEATURES.indexOf(rf);
    const slice = [...fitSets, ...tuneSets].map((c) => c.filter((x) => x.feats.some((f) => f[k]! > 0)));
    const gain = (c: readonly Cand[], v: number) => {
      if (!c.length) return 0;
      const a = evaluate(c, { ...w, [rf]: v }), b = evaluate(c, { ...w, [rf]: 0 });
      return ((a.r5 + a.mrr - b.r5 - b.mrr) / 2) * c.length;
    };
    let best = 0, bestG = 0;
    for (const v of WEIGHT_GRID) {
      const g = slice.reduce((a, c) => a + gain(c, v), 0);
      console.log(`  ${rf} slice (${slice.map((c) => c.length).join(" + ")} training queries: MetaTool fit, LiveMCPBench fit, MetaTool tune, LiveMCPBench tune), weight ${v}: ${slice.map((c) => (c.length ? row(c, { ...w, [rf]: v }) : "-")).join(" | ")}; gain ${g.toFixed(2)} queries`);
      if (g > bestG + 1e-9) (best = v), (bestG = g);
    }
    const perFold = [gain([...slice[0]!, ...slice[1]!], best), gain([...slice[2]!, ...slice[3]!], best)];
    if (best && perFold.every((g) => g > 0) && objective(tuneSets, { ...w, [rf]: best }) >= objective(tuneSets, w)) (w[rf] = best), console.log(`  ${rf} → ${best} (gain ${perFold.map((g) => g.toFixed(2)).join(" / ")} queries on the fit / tune fold slices)`);
    else console.log(`  ${rf} stays 0`);
  }
  sliceNote = RARE_FEATURES.map((f) => `${f} ${w[f]}`).join(", ");
  console.log(`shipped weights ${JSON.stringify(w)}`);
  const data = {
    about: [
      "ToolSearch cross-field reranker weights (plugins/tool-search/rerank.ts): final = ln(score / best) + sum of weight × feature over the first stage's top 20.",
      "Generated by `npm run toolsearch:train` (bench/toolsearch/rerank-fit.ts); do not edit by hand.",
      `Fitted on the fit fold of ${meta.name} (MetaTool, MIT, HowieHwong/MetaTool @ 35e81bb) and ${live.name} (LiveMCPBench, Apache-2.0, icip-cas/LiveMCPBench @ a928e57) — coordinate ascent over ${JSON.stringify(WEIGHT_GRID)} — then pruned on the tune fold split by gold tool (a weight stays only when removing it costs the tune fold). See NOTICE.md.`,
      `Objective (mean of R@5 and MRR@10 per set, summed): fit fold ${f3(fold.base)} → ${f3(fold.score)}, tune fold ${f3(tune0)} → ${f3(tune)}.`,
      `Fit-fold weights before pruning: ${JSON.stringify(fold.w)}; after pruning: tune-fold gain ${f3(tune - tune0)} (shipped only above ${GAIN_TO_SHIP}); rare features chosen on their training slice: ${sliceNote}.`,
      "The toolsearch dev queries were not used (validation only).",
    ],
    depth: DEPTH,
    weights: w,
  };
  if (!argv.includes("--dry")) {
    fs.writeFileSync(RERANK_FILE, JSON.stringify(data, null, 2) + "\n");
    console.log(`wrote ${path.relative(process.cwd(), RERANK_FILE)}; ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
}
