/**
 * Scoring for ToolSearch ranking: BM25F over the query terms, then factors — coverage of the query's
 * concepts (over all fields, and over name + lead), action agreement between query and name verbs, a
 * server-name match, name coverage — then the best `limit` (ties: pool order) and a companion tool.
 */
import { stem, words, STOP_WORDS } from "./text.ts";
import type { IndexData } from "./index-build.ts";
import type { Hit, RankOptions, SearchDoc, SearchOptions } from "./options.ts";
import type { QueryPlan } from "./query-plan.ts";

/** Action classes of tool verbs (stemmed), for action agreement between a query and a tool name. */
const VERB_CLASSES = [
  "create make new add generate build compose draft insert register",
  "get fetch retrieve read show view display describe inspect detail",
  "list enumerate browse",
  "search find query lookup locate discover",
  "update edit modify change patch set rename replace",
  "delete remove erase drop destroy purge discard clear",
  "send post publish notify message reply",
  "run execute exec launch invoke trigger start",
  "stop kill terminate cancel abort halt",
];
const VERB_CLASS: ReadonlyMap<string, number> = (() => {
  const m = new Map<string, number>();
  VERB_CLASSES.forEach((line, k) => {
    for (const w of line.split(" ")) m.set(stem(w), (m.get(stem(w)) ?? 0) | (1 << k));
  });
  return m;
})();

/** Last words of a parameter name that make it an identifier of something else. */
const ID_WORDS = new Set(["id", "ids", "key", "uuid", "ref"]);
/** Name verbs (stemmed) of tools that produce identifiers: resolve, list, find, search, lookup. */
const PRODUCER_VERBS = new Set(["resolv", "list", "find", "search", "lookup"]);
/** The last position of ToolSearch's default page (5 results): where a companion goes when it ranks lower. */
const COMPANION_SLOT = 4;

/** Scratch accumulators reused across queries (search is synchronous); only touched slots are reset. */
export interface Scratch {
  scores?: Float64Array;
  matched?: Uint16Array;
}

/** Raw BM25 per tool: each query term's weight × idf × saturated pseudo-frequency, and how many base terms matched. */
export function bm25(ix: IndexData, nDocs: number, k1: number, scratch: Scratch, q: Map<string, number>, base: Set<string>, allowed?: boolean[]): { scores: Float64Array; matched: Uint16Array; touched: number[] } {
  const scores = (scratch.scores ??= new Float64Array(nDocs));
  const matched = (scratch.matched ??= new Uint16Array(nDocs));
  const touched: number[] = [];
  for (const [t, w] of q) {
    const id = ix.termId.get(t);
    if (id === undefined) continue;
    const idf = ix.idfs[id]!;
    const isBase = base.has(t);
    const docs = ix.postDocs;
    const tfs = ix.postTfs;
    const end = ix.postStart[id + 1]!;
    for (let j = ix.postStart[id]!; j < end; j++) {
      const d = docs[j]!;
      if (allowed && !allowed[d]) continue;
      const tf = tfs[j]!;
      if (scores[d] === 0) touched.push(d);
      scores[d] += (w * idf * tf * (k1 + 1)) / (tf + k1);
      if (isBase) matched[d]++;
    }
  }
  return { scores, matched, touched };
}

/** Per tool and query word: the best credit among the terms of that word's group the tool has. */
function conceptCoverage(ix: IndexData, nDocs: number, o: RankOptions, plan: QueryPlan): { cov: Float32Array; gw: number[]; gwSum: number } {
  const K = plan.nGroups;
  const cov = new Float32Array(nDocs * K);
  const gw = o.coverageIdf ? plan.groupIdf : plan.groupIdf.map(() => 1);
  const gwSum = gw.reduce((a, b) => a + b, 0);
  for (const [t, gs] of plan.groups) {
    const id = ix.termId.get(t);
    if (id === undefined) continue;
    const docs = ix.postDocs.subarray(ix.postStart[id]!, ix.postStart[id + 1]!);
    for (const [g, w] of gs) {
      const credit = o.coverageMode === "concept" ? w : w === 1 ? 1 : 0;
      if (credit === 0) continue;
      for (const d of docs) if (cov[d * K + g]! < credit) cov[d * K + g] = credit;
    }
  }
  return { cov, gw, gwSum };
}

/** What every tool's factors need from one query, computed once per query. */
export interface Factors {
  ix: IndexData;
  o: RankOptions;
  plan: QueryPlan;
  /** Query weight per term id (0: not in the query); dense, so the per-tool loops index instead of hashing. */
  qW: Float64Array;
  /** 1 per base term id. */
  isBase: Uint8Array;
  nBase: number;
  qVerbs: number;
  verbMask: Int32Array;
  leadGroups?: Map<number, Array<[number, number]>>;
  leadSum: number;
  coverage?: { cov: Float32Array; gw: number[]; gwSum: number };
}

export function queryFactors(ix: IndexData, nDocs: number, o: RankOptions, plan: QueryPlan, baseTerms: Set<string>, verbMask: Int32Array): Factors {
  const T = ix.terms.length;
  const qW = new Float64Array(T);
  for (const [t, w] of plan.q) {
    const id = ix.termId.get(t);
    if (id !== undefined) qW[id] = w;
  }
  const isBase = new Uint8Array(T);
  for (const t of baseTerms) {
    const id = ix.termId.get(t);
    if (id !== undefined) isBase[id] = 1;
  }
  let qVerbs = 0;
  for (const t of baseTerms) qVerbs |= VERB_CLASS.get(t) ?? 0;
  let leadGroups: Map<number, Array<[number, number]>> | undefined;
  if (o.leadCoverage > 0) {
    leadGroups = new Map();
    for (const [t, gs] of plan.groups) {
      const id = ix.termId.get(t);
      if (id !== undefined) leadGroups.set(id, gs);
    }
  }
  const weighted = o.coverage > 0 && plan.nGroups > 1 && (o.coverageMode === "concept" || o.coverageIdf);
  const leadSum = plan.groupIdf.reduce((a, b) => a + b, 0);
  const coverage = weighted ? conceptCoverage(ix, nDocs, o, plan) : undefined;
  return { ix, o, plan, qW, isBase, nBase: baseTerms.size, qVerbs, verbMask, leadGroups, leadSum, coverage };
}

/** The base terms of a plan (weight 1): what raw BM25 counts as matched. */
export function baseTermsOf(plan: QueryPlan): Set<string> {
  return plan.base ?? new Set([...plan.q].filter(([, w]) => w === 1).map(([t]) => t));
}

/**
 * The best `limit` tools (ties: pool order) by final score = raw BM25 × coverage factors. One loop
 * over the touched tools with the query's constants in locals: the hot path of a search.
 */
export function topHits(f: Factors, raw: { scores: Float64Array; matched: Uint16Array; touched: number[] }, limit: number, docs: readonly SearchDoc[]): Hit[] {
  const { ix, o, plan, leadGroups, qVerbs, verbMask, leadSum, coverage, isBase, qW, nBase } = f;
  const { ranges, buf, slots, nameSlot, leadSlot, nameStart, nameBuf, docServer, serverStart, serverBuf } = ix;
  const K = plan.nGroups;
  // the query names a server: one pass over the servers, not one per tool
  let serverHit: Uint8Array | undefined;
  if (o.serverBoost > 0) {
    serverHit = new Uint8Array(serverStart.length - 1);
    for (let s = 0; s < serverHit.length; s++) for (let j = serverStart[s]!; j < serverStart[s + 1]!; j++) if (isBase[serverBuf[j]!]) (serverHit[s] = 1), (j = serverStart[s + 1]!);
  }
  const top: Hit[] = [];
  for (const i of raw.touched) {
    let score = raw.scores[i]!;
    if (o.leadCoverage > 0 && K > 0 && leadGroups) {
      const got = new Float32Array(K);
      for (const slot of [nameSlot, leadSlot]) {
        if (slot < 0) continue;
        const b0 = (i * slots + slot) * 2;
        for (let j = ranges[b0]!; j < ranges[b0 + 1]!; j++) {
          const gs = leadGroups.get(buf[j]!);
          if (gs) for (const [g, w] of gs) if (got[g]! < w) got[g] = w;
        }
      }
      let c = 0;
      for (let g = 0; g < K; g++) c += got[g]! * plan.groupIdf[g]!;
      score *= 1 + (o.leadCoverage * c) / leadSum;
    }
    if (qVerbs && (o.verbAgree > 0 || o.verbMismatch > 0)) {
      const b0 = (i * slots + nameSlot) * 2;
      let has = 0;
      for (let j = ranges[b0]!; j < ranges[b0 + 1]!; j++) has |= verbMask[buf[j]!] ?? 0;
      if (has) score *= has & qVerbs ? 1 + o.verbAgree : 1 - o.verbMismatch;
    }
    if (coverage) {
      let c = 0;
      for (let g = 0; g < K; g++) c += coverage.cov[i * K + g]! * coverage.gw[g]!;
      score *= 1 + (o.coverage * c) / coverage.gwSum;
    } else if (o.coverage > 0 && nBase > 1) score *= 1 + (o.coverage * raw.matched[i]!) / nBase;
    if (serverHit && serverHit[docServer[i]!]) score *= 1 + o.serverBoost;
    if (o.nameCoverage > 0) {
      const s0 = nameStart[i]!;
      const s1 = nameStart[i + 1]!;
      if (s1 > s0) {
        let m = 0;
        for (let j = s0; j < s1; j++) m += qW[nameBuf[j]!]!;
        score *= 1 + (o.nameCoverage * m) / (s1 - s0);
      }
    }
    if (top.length === limit) {
      const last = top[limit - 1]!;
      if (score < last.score || (score === last.score && i > last.index)) continue;
      top.pop();
    }
    let j = top.length;
    while (j > 0 && (top[j - 1]!.score < score || (top[j - 1]!.score === score && top[j - 1]!.index > i))) j--;
    top.splice(j, 0, { name: docs[i]!.name, score, index: i });
  }
  return top;
}

/** Required parameters of a tool that name an entity by id: `repo_id` → ["repo"], `pid` → ["process"]. */
function requiredEntities(doc: SearchDoc): string[][] {
  const required = (doc.inputSchema as { required?: unknown } | undefined)?.required;
  if (!Array.isArray(required)) return [];
  const entities: string[][] = [];
  for (const p of required) {
    if (typeof p !== "string") continue;
    const ws = words(p);
    if (ws.length === 1 && ws[0] === "pid") entities.push(["process"]);
    else if (ws.length > 1 && ID_WORDS.has(ws[ws.length - 1]!)) entities.push(ws.slice(0, -1).filter((w) => !STOP_WORDS.has(w)).map(stem));
  }
  return entities;
}

export function serverOf(d: SearchDoc): string | undefined {
  return d.server ?? /^mcp__(.+?)__/.exec(d.name)?.[1];
}

/**
 * The producer of the id the best hit requires, from the same server, inserted right after it (when it is
 * not already in the results). Generic: required parameter names ending in id/ids/key (or `pid`) name an
 * entity; a same-server tool whose name has a producing verb and that entity supplies it.
 */
export function addCompanion(docs: readonly SearchDoc[], byServer: () => Map<string, number[]>, nameWords: (i: number) => readonly string[], top: Hit[], limit: number, filter: SearchOptions["filter"]): void {
  const best = top[0]!;
  const doc = docs[best.index]!;
  const entities = requiredEntities(doc);
  if (!entities.length) return;
  const server = serverOf(doc);
  if (!server) return;
  for (const ent of entities) {
    if (!ent.length) continue;
    for (const i of byServer().get(server) ?? []) {
      if (i === best.index || (filter && !filter(docs[i]!, i))) continue;
      const name = nameWords(i);
      if (!name.some((w) => PRODUCER_VERBS.has(w)) || !ent.every((e) => name.includes(e) || name.includes(e + "s") || name.some((w) => w.startsWith(e)))) continue;
      // keep it within the first COMPANION_SLOT results (ToolSearch's default page) without displacing
      // anything above that slot: the ranking stays, the page gains the step the best hit depends on
      const slot = Math.min(COMPANION_SLOT, top.length, limit - 1);
      const at = top.findIndex((h) => h.index === i);
      if (at >= 0 && at <= slot) return;
      const hit = at > 0 ? top.splice(at, 1)[0]! : { name: docs[i]!.name, score: 0, index: i };
      hit.score = top[slot - 1]?.score ?? best.score;
      top.splice(slot, 0, hit);
      if (top.length > limit) top.length = limit;
      return;
    }
  }
}

/** term id → bit mask of the action classes the term belongs to. */
export function verbMaskOf(terms: readonly string[]): Int32Array {
  const m = new Int32Array(terms.length);
  for (let t = 0; t < terms.length; t++) m[t] = VERB_CLASS.get(terms[t]!) ?? 0;
  return m;
}
