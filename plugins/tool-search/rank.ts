/**
 * ToolSearch ranking: a BM25F index over tool fields with query expansion.
 *
 * Fields (each with its own weight and length normalisation): the tool's own name split into words,
 * the server name, `searchHint`, the first sentence of the description, the whole description,
 * parameter names and parameter descriptions (incl. enum values). Per term and tool the field
 * frequencies are combined into one pseudo-frequency (BM25F), saturated once with k1, times idf.
 *
 * Query side: stop words dropped, Porter stems, then expansion — lexicon synonyms and prefix
 * matches against the vocabulary, each at a reduced weight (a term keeps its largest weight). A
 * coverage factor favours tools that match more of the query's own words. Every technique is an
 * option so the benchmark can measure what it pays (bench/toolsearch prints the ablation).
 *
 *   options.ts      documents, fields and options (DEFAULT_OPTIONS, PLAIN_BM25)
 *   index-build.ts  fields → term ids → postings
 *   query-plan.ts   query → weighted terms and concept groups
 *   scoring.ts      BM25F, the factors, the top-k and the companion tool
 */
import { buildIndex, shortNameOf, type IndexData } from "./index-build.ts";
import { DEFAULT_OPTIONS, type Hit, type RankOptions, type SearchDoc, type SearchOptions } from "./options.ts";
import { queryPlan, type QueryPlan } from "./query-plan.ts";
import { analyseQuery, features, rerankApplies, rerankHits, rerankWeights, type RerankWeights } from "./rerank.ts";
import { addCompanion, baseTermsOf, bm25, queryFactors, serverOf, topHits, verbMaskOf, type Scratch } from "./scoring.ts";

export { DEFAULT_OPTIONS, FIELDS, PLAIN_BM25, type FieldName, type Hit, type RankOptions, type SearchDoc, type SearchOptions } from "./options.ts";
export { shortNameOf };

export class ToolIndex {
  readonly docs: readonly SearchDoc[];
  readonly options: RankOptions;
  readonly buildMs: number;
  private readonly ix: IndexData;
  private readonly scratch: Scratch = {};
  private verbMaskCache?: Int32Array;
  private byServerCache?: Map<string, number[]>;
  private weightsCache?: RerankWeights | null;

  constructor(docs: readonly SearchDoc[], options: Partial<RankOptions> = {}) {
    const t0 = performance.now();
    this.docs = docs;
    this.options = { ...DEFAULT_OPTIONS, ...options };
    this.ix = buildIndex(docs, this.options);
    this.buildMs = performance.now() - t0;
  }

  get size(): number {
    return this.docs.length;
  }

  /** The weighted query terms (exposed for tests and for `--explain`-style debugging). */
  queryTerms(query: string): Map<string, number> {
    return this.plan(query).q;
  }

  private plan(query: string): QueryPlan {
    return queryPlan(this.ix, this.docs.length, this.options, query);
  }

  search(query: string, opts: SearchOptions = {}): Hit[] {
    const limit = Math.max(1, opts.limit ?? 10);
    const o = this.options;
    const n = this.docs.length;
    const plan = this.plan(query);
    const baseTerms = baseTermsOf(plan);
    const allowed = opts.filter ? this.docs.map((d, i) => opts.filter!(d, i)) : undefined;
    const r = bm25(this.ix, n, o.k1, this.scratch, plan.q, baseTerms, allowed);
    const f = queryFactors(this.ix, n, o, plan, baseTerms, (this.verbMaskCache ??= verbMaskOf(this.ix.terms)));
    // the reranker's query analysis first: when it cannot move anything (the shipped weights set the trap penalty
    // only, and most queries have no trap clause), the first stage keeps just `limit` hits
    const w = o.rerank > 0 ? this.weights() : undefined;
    const rq = opts.features || w ? analyseQuery(this.ix, o, query, opts.features !== undefined || w!.assocName !== 0) : undefined;
    const reranks = !opts.features && w !== undefined && rerankApplies(rq!, w);
    const depth = opts.features || reranks ? Math.max(limit, o.rerank) : limit;
    let top = topHits(f, r, o.serverStage > 0 || o.serverDocStage > 0 ? Math.max(depth, 30) : depth, this.docs);
    if (o.serverStage > 0) top = this.serverStage(top, depth);
    if (o.serverDocStage > 0) top = this.serverDocStage(query, top, depth);
    if (opts.features) opts.features.push(...features(this.ix, o, this.docs, rq!, f.qW, (top = top.slice(0, limit))));
    else if (reranks && top.length > 1) top = rerankHits(top.slice(0, o.rerank), features(this.ix, o, this.docs, rq!, f.qW, top.slice(0, o.rerank)), w!).concat(top.slice(o.rerank));
    if (top.length > limit) top.length = limit;
    for (const i of r.touched) {
      r.scores[i] = 0;
      r.matched[i] = 0;
    }
    if (o.companions && top.length) addCompanion(this.docs, () => this.byServer(), (i) => this.nameWords(i), top, limit, opts.filter);
    return top;
  }

  /** The reranker's weights, or undefined when all are 0 (then the reranker is skipped: same order, no cost). */
  private weights(): RerankWeights | undefined {
    if (this.weightsCache === undefined) {
      const w = { ...rerankWeights(), ...this.options.rerankWeights };
      this.weightsCache = Object.values(w).some((x) => x !== 0) ? w : null;
    }
    return this.weightsCache ?? undefined;
  }

  /** Server-then-tool: re-score the pool of candidates by how strongly their server as a whole matched. */
  private serverStage(top: Hit[], limit: number): Hit[] {
    const agg = new Map<string, number>();
    for (const h of top) {
      const s = serverOf(this.docs[h.index]!) ?? h.name;
      agg.set(s, (agg.get(s) ?? 0) + h.score);
    }
    const best = Math.max(...agg.values(), 1e-9);
    const lam = this.options.serverStage;
    for (const h of top) h.score *= 1 + (lam * agg.get(serverOf(this.docs[h.index]!) ?? h.name)!) / best;
    top.sort((a, b) => b.score - a.score || a.index - b.index);
    return top.slice(0, limit);
  }

  private serverIx?: ToolIndex | null;

  /** Server-then-tool with a server-level index (options.ts `serverDocStage`). */
  private serverDocStage(query: string, top: Hit[], limit: number): Hit[] {
    if (this.serverIx === undefined) {
      const docs: SearchDoc[] = [];
      for (const [s, idx] of this.byServer()) {
        const d0 = this.docs[idx[0]!]!;
        const text = idx.map((i) => `${this.docs[i]!.shortName ?? shortNameOf(this.docs[i]!.name, s)}: ${/^[\s\S]*?[.!?](\s|$)/.exec(this.docs[i]!.description ?? "")?.[0] ?? this.docs[i]!.description ?? ""}`).join(" ");
        docs.push({ name: s, shortName: s, description: text, serverDescription: d0.serverDescription });
      }
      this.serverIx = docs.length > 1 ? new ToolIndex(docs, { ...this.options, serverDocStage: 0, rerank: 0, companions: false, weights: { ...this.options.weights, server: 0, serverInfo: Math.max(this.options.weights.serverInfo, 0.5) } }) : null;
    }
    if (!this.serverIx) return top.slice(0, limit);
    const hits = this.serverIx.search(query, { limit: this.serverIx.size });
    const best = hits[0]?.score ?? 0;
    if (!(best > 0)) return top.slice(0, limit);
    const sc = new Map(hits.map((h) => [h.name, h.score / best]));
    const lam = this.options.serverDocStage;
    for (const h of top) h.score *= 1 + lam * (sc.get(serverOf(this.docs[h.index]!) ?? "") ?? 0);
    top.sort((a, b) => b.score - a.score || a.index - b.index);
    return top.slice(0, limit);
  }

  /** Server → indexes of its tools (built on the first companion lookup). */
  private byServer(): Map<string, number[]> {
    if (!this.byServerCache) {
      const m = (this.byServerCache = new Map<string, number[]>());
      this.docs.forEach((d, i) => {
        const s = serverOf(d);
        if (!s) return;
        let l = m.get(s);
        if (!l) m.set(s, (l = []));
        l.push(i);
      });
    }
    return this.byServerCache;
  }

  /** Name words of a tool (for `+required` checks and suggestions). */
  nameWords(index: number): readonly string[] {
    if (index < 0 || index >= this.docs.length) return [];
    const { buf, ranges, slots, nameSlot, terms } = this.ix;
    const base = (index * slots + nameSlot) * 2;
    return Array.from(buf.subarray(ranges[base]!, ranges[base + 1]!), (id) => terms[id]!);
  }
}
