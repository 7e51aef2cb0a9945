/**
 * A small cross-field reranker over the first stage's best candidates (issue 18): per candidate a handful
 * of features the one-pass BM25F score cannot express — does the query's action agree with the tool name's
 * verb, does it name the tool's object, how many query words hit the name versus only the description or a
 * parameter name, how much of the candidate set its server holds, and is a name word matched only by a query
 * word in a "before/after/without …" clause (a literal-word trap: "before pushing anything, …" → push_files).
 *
 * final = ln(score / best score) + Σ weight × feature. The few weights are fitted on TRAINING data only
 * (bench/toolsearch/rerank-fit.ts, run by `npm run toolsearch:train`) and ship as data/rerank.json.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { words, STOP_WORDS } from "./text.ts";
import { stemFn, type IndexData } from "./index-build.ts";
import { RERANK_FEATURES, type Hit, type RankOptions, type RerankWeights, type SearchDoc } from "./options.ts";
import { serverOf } from "./scoring.ts";
import { associations } from "./learned.ts";

export const RERANK_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), "data", "rerank.json");

export const FEATURES = RERANK_FEATURES;
export type FeatureName = (typeof FEATURES)[number];
export type { RerankWeights };

export const ZERO_WEIGHTS: RerankWeights = Object.fromEntries(FEATURES.map((f) => [f, 0])) as RerankWeights;

let shipped: RerankWeights | undefined;

/** The shipped weights (all 0, i.e. the first stage's order, when the file is missing). */
export function rerankWeights(): RerankWeights {
  if (shipped) return shipped;
  let w: Partial<RerankWeights> = {};
  try {
    w = (JSON.parse(fs.readFileSync(RERANK_FILE, "utf8")) as { weights?: Partial<RerankWeights> }).weights ?? {};
  } catch {
    // no data file: no reranking effect
  }
  return (shipped = { ...ZERO_WEIGHTS, ...w });
}

/** Action classes of tool-name verbs (the same classes as scoring.ts's action agreement). */
const VERB_CLASSES = [
  "create make new add generate build compose draft insert register write",
  "get fetch retrieve read show view display describe inspect detail check",
  "list enumerate browse",
  "search find query lookup locate discover",
  "update edit modify change patch set rename replace",
  "delete remove erase drop destroy purge discard clear",
  "send post publish notify message reply push",
  "run execute exec launch invoke trigger start",
  "stop kill terminate cancel abort halt",
  "merge",
  "download export save",
  "upload import",
];

/** Words that open a clause whose action is not the one asked for ("before pushing", "after creating", "without deleting"). */
const TRAP_MARKERS = new Set(["before", "after", "without", "instead", "rather", "unless", "until", "prior", "once"]);
/** How many words after a marker its clause covers at most (a clause also ends at , ; : . ! ? and at "then"). */
const TRAP_SPAN = 4;

/** One query's analysis for the reranker: the words in trap clauses and the action classes of the others. */
export interface RerankQuery {
  /** term id → 1 main-clause query word, 2 only in a trap clause. */
  role: Map<number, 1 | 2>;
  nMain: number;
  verbs: number;
  /** term id → strongest learned association (learned.ts) from a main-clause query word (empty unless asked for). */
  assoc: Map<number, number>;
  /** Some indexed word occurs only in a trap clause (else the trap feature is 0 for every tool). */
  hasTrap: boolean;
}

const verbClassCache = new WeakMap<RankOptions, Map<string, number>>();
function verbClasses(o: RankOptions): Map<string, number> {
  let m = verbClassCache.get(o);
  if (m) return m;
  const sf = stemFn(o);
  m = new Map();
  VERB_CLASSES.forEach((line, k) => {
    for (const w of line.split(" ")) m!.set(sf(w), (m!.get(sf(w)) ?? 0) | (1 << k));
  });
  verbClassCache.set(o, m);
  return m;
}

export function analyseQuery(ix: IndexData, o: RankOptions, query: string, withAssoc = true): RerankQuery {
  const sf = stemFn(o);
  const role = new Map<number, 1 | 2>();
  const vc = verbClasses(o);
  let verbs = 0;
  for (const clause of query.split(/[,;:.!?\n]+|\bthen\b/i)) {
    let trapLeft = 0;
    for (const w of words(clause)) {
      if (TRAP_MARKERS.has(w)) {
        trapLeft = TRAP_SPAN;
        continue;
      }
      const trapped = trapLeft > 0;
      if (trapped) trapLeft--;
      if (STOP_WORDS.has(w)) continue;
      const t = sf(w);
      const id = ix.termId.get(t);
      if (!trapped) verbs |= vc.get(t) ?? 0;
      if (id === undefined) continue;
      if (!trapped) role.set(id, 1);
      else if (!role.has(id)) role.set(id, 2);
    }
  }
  let nMain = 0;
  let hasTrap = false;
  const assoc = new Map<number, number>();
  const table = withAssoc && o.learnedWeight > 0 ? (o.learned ?? associations()) : undefined;
  for (const [id, r] of role) {
    if (r !== 1) {
      hasTrap = true;
      continue;
    }
    nMain++;
    for (const [u, st] of table?.get(ix.terms[id]!) ?? []) {
      const uid = ix.termId.get(u);
      if (uid !== undefined && st > (assoc.get(uid) ?? 0)) assoc.set(uid, st);
    }
  }
  return { role, nMain, verbs, assoc, hasTrap };
}

/** The features of each candidate (same order as `top`), as rows of FEATURES.length numbers. */
export function features(ix: IndexData, o: RankOptions, docs: readonly SearchDoc[], rq: RerankQuery, qW: Float64Array, top: readonly Hit[]): Float64Array[] {
  const vc = verbClasses(o);
  const { buf, ranges, slots, fieldSlot, nameStart, nameBuf, terms } = ix;
  const strong = [fieldSlot.name, fieldSlot.server, fieldSlot.hint].filter((s): s is number => s !== undefined);
  const weak = [fieldSlot.desc, fieldSlot.paramDesc, fieldSlot.serverInfo].filter((s): s is number => s !== undefined);
  const params = fieldSlot.params;
  // server share of the candidate set's score mass
  let total = 0;
  const mass = new Map<string, number>();
  for (const h of top) {
    total += h.score;
    const s = serverOf(docs[h.index]!);
    if (s !== undefined) mass.set(s, (mass.get(s) ?? 0) + h.score);
  }
  const nMain = Math.max(1, rq.nMain);
  const seen = new Map<number, number>();
  return top.map((h) => {
    const i = h.index;
    const f = new Float64Array(FEATURES.length);
    // name words: verb classes, objects the query names, words only a trap clause matches
    let nameVerbs = 0, objects = 0, objHit = 0, trap = 0, assoc = 0;
    for (let j = nameStart[i]!; j < nameStart[i + 1]!; j++) {
      const id = nameBuf[j]!;
      if (rq.role.get(id) !== 1) assoc += rq.assoc.get(id) ?? 0;
      const cls = vc.get(terms[id]!) ?? 0;
      nameVerbs |= cls;
      if (!cls) (objects++, (objHit += Math.min(1, qW[id]!)));
      if (rq.role.get(id) === 2) trap = 1;
    }
    if (rq.verbs && nameVerbs) f[nameVerbs & rq.verbs ? 0 : 1] = 1;
    f[2] = objects ? objHit / objects : 0;
    // where the main-clause words hit: 1 name/server/hint, 8 the description's first sentence, 2 parameter names, 4 elsewhere
    seen.clear();
    const mark = (slot: number | undefined, bit: number) => {
      if (slot === undefined) return;
      const b = (i * slots + slot) * 2;
      for (let j = ranges[b]!; j < ranges[b + 1]!; j++) {
        const id = buf[j]!;
        if (rq.role.get(id) === 1) seen.set(id, (seen.get(id) ?? 0) | bit);
      }
    };
    for (const s of strong) mark(s, 1);
    mark(params, 2);
    mark(fieldSlot.lead, 8);
    for (const s of weak) mark(s, 4);
    let nameHit = 0, descOnly = 0, paramHit = 0, leadHit = 0;
    for (const bits of seen.values()) {
      if (bits & 1) nameHit++;
      else if (bits & 8) leadHit++;
      else if (bits & 2) paramHit++;
      else descOnly++;
    }
    f[3] = nameHit / nMain;
    f[4] = descOnly / nMain;
    f[5] = paramHit / nMain;
    const s = serverOf(docs[i]!);
    f[6] = s !== undefined && total > 0 ? mass.get(s)! / total : 0;
    f[7] = trap;
    f[8] = leadHit / nMain;
    const nName = nameStart[i + 1]! - nameStart[i]!;
    f[9] = nName ? assoc / nName : 0;
    return f;
  });
}

/** Whether the reranker can change this query's order: not when only the trap weight is set and the query has no trap clause. */
export function rerankApplies(rq: RerankQuery, w: RerankWeights): boolean {
  return rq.hasTrap || FEATURES.some((f) => f !== "trap" && w[f] !== 0);
}

/** Reorders `top` by ln(score / best) + weights · features (ties: first-stage order). */
export function rerankHits(top: Hit[], feats: readonly Float64Array[], w: RerankWeights): Hit[] {
  if (top.length < 2) return top;
  const best = top[0]!.score || 1;
  const wv = FEATURES.map((k) => w[k]);
  const scored = top.map((h, k) => {
    let s = Math.log(Math.max(h.score, 1e-9) / best);
    const f = feats[k]!;
    for (let j = 0; j < wv.length; j++) s += wv[j]! * f[j]!;
    return { h, s, k };
  });
  scored.sort((a, b) => b.s - a.s || a.k - b.k);
  // the reported score follows the new order (best × e^final): callers that print or compare scores stay monotonic
  return scored.map((x) => ((x.h.score = best * Math.exp(x.s)), x.h));
}
