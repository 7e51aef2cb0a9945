/**
 * In-repository word vectors for ToolSearch (issue 18): a PPMI co-occurrence matrix over tool texts and training
 * queries, reduced by a truncated eigendecomposition (randomized subspace iteration; the PPMI matrix is
 * symmetric), then each word's nearest neighbours by cosine. Only the neighbour lists ship
 * (plugins/tool-search/data/neighbours.txt, same format as associations.txt); no vectors, nothing at run time.
 *
 * Units of co-occurrence (a word co-occurs with every other word of its unit, once per unit):
 *  - each tool of the three public corpora (toolsearch, LiveMCPBench, MetaTool): name words, description,
 *    parameter names and descriptions — the documents only, never a toolsearch query;
 *  - each training query (MetaTool and LiveMCPBench fit folds, see train.ts) together with its gold tool's
 *    name and first 400 description characters.
 * Deterministic: a fixed-seed PRNG, a fixed word order.
 */
import { terms, words } from "../../plugins/tool-search/text.ts";
import type { SearchDoc } from "../../plugins/tool-search/rank.ts";
import { mulberry32 } from "./data.ts";

export interface EmbedParams {
  /** A word needs this many units to get a vector. */
  minCount: number;
  /** Dimensions kept. */
  dims: number;
  /** Context distribution smoothing (Levy et al. 2015). */
  alpha: number;
  /** Neighbours kept per word, and the cosine a neighbour needs. */
  topK: number;
  minCos: number;
  /** Units longer than this many distinct terms are cut (long descriptions would dominate the counts). */
  maxUnit: number;
}

export const EMBED_PARAMS: EmbedParams = { minCount: 5, dims: 96, alpha: 0.75, topK: 8, minCos: 0.45, maxUnit: 60 };

const USABLE = /^(?=.*\p{L})[\p{L}\p{N}]{2,20}$/u;

function schemaText(schema: unknown, out: string[], depth = 0): void {
  if (!schema || typeof schema !== "object" || depth > 3) return;
  const props = (schema as { properties?: Record<string, unknown> }).properties;
  if (props && typeof props === "object")
    for (const k in props) {
      out.push(k);
      const p = props[k] as { description?: unknown } | undefined;
      if (p && typeof p.description === "string") out.push(p.description.slice(0, 300));
      schemaText(p, out, depth + 1);
    }
}

/** One tool's text as a unit. */
export function toolUnit(d: SearchDoc): string[] {
  const parts = [words(d.shortName ?? d.name).join(" "), (d.description ?? "").slice(0, 1024)];
  schemaText(d.inputSchema, parts);
  return unitTerms(parts.join(" "));
}

export function unitTerms(text: string): string[] {
  return [...new Set(terms(text))].filter((t) => USABLE.test(t));
}

/** Nearest neighbours (cosine of the reduced vectors) per word: word → [neighbour, cosine rounded to 0.01]. */
export function neighbourTable(units: string[][], p: EmbedParams = EMBED_PARAMS): Map<string, Array<[string, number]>> {
  // vocabulary: words in at least minCount units, in sorted order (deterministic ids)
  const df = new Map<string, number>();
  for (const u of units) for (const t of u) df.set(t, (df.get(t) ?? 0) + 1);
  const vocab = [...df].filter(([, n]) => n >= p.minCount).map(([t]) => t).sort();
  const id = new Map(vocab.map((t, i) => [t, i]));
  const V = vocab.length;
  // co-occurrence counts (symmetric), one per unit and pair
  const rows: Array<Map<number, number>> = vocab.map(() => new Map());
  const rowSum = new Float64Array(V);
  for (const u of units) {
    const ids = u.slice(0, p.maxUnit).map((t) => id.get(t)).filter((x): x is number => x !== undefined);
    for (let a = 0; a < ids.length; a++)
      for (let b = 0; b < ids.length; b++) {
        if (a === b) continue;
        const r = rows[ids[a]!]!;
        r.set(ids[b]!, (r.get(ids[b]!) ?? 0) + 1);
      }
  }
  let total = 0;
  for (let i = 0; i < V; i++) for (const c of rows[i]!.values()) (rowSum[i] += c), (total += c);
  const ctx = new Float64Array(V);
  let ctxTotal = 0;
  for (let i = 0; i < V; i++) (ctx[i] = Math.pow(rowSum[i]!, p.alpha)), (ctxTotal += ctx[i]!);
  // PPMI in CSR
  const start = new Int32Array(V + 1);
  const cols: number[] = [];
  const vals: number[] = [];
  for (let i = 0; i < V; i++) {
    for (const [j, c] of [...rows[i]!].sort((x, y) => x[0] - y[0])) {
      const pmi = Math.log((c * ctxTotal) / (rowSum[i]! * ctx[j]!));
      if (pmi > 0) cols.push(j), vals.push(pmi);
    }
    start[i + 1] = cols.length;
  }
  const colA = Int32Array.from(cols);
  const valA = Float64Array.from(vals);
  const k = Math.min(p.dims + 16, V);
  const mul = (X: Float64Array[], out: Float64Array[]) => {
    // out[c] = A · X[c] (column-major: X[c] is a column of length V)
    for (let c = 0; c < X.length; c++) {
      const x = X[c]!;
      const o = out[c]!;
      for (let i = 0; i < V; i++) {
        let s = 0;
        for (let j = start[i]!; j < start[i + 1]!; j++) s += valA[j]! * x[colA[j]!]!;
        o[i] = s;
      }
    }
  };
  const orth = (X: Float64Array[]) => {
    // modified Gram-Schmidt, twice for stability
    for (let pass = 0; pass < 2; pass++)
      for (let c = 0; c < X.length; c++) {
        const x = X[c]!;
        for (let d = 0; d < c; d++) {
          const y = X[d]!;
          let dot = 0;
          for (let i = 0; i < V; i++) dot += x[i]! * y[i]!;
          for (let i = 0; i < V; i++) x[i]! -= dot * y[i]!;
        }
        let n = 0;
        for (let i = 0; i < V; i++) n += x[i]! * x[i]!;
        n = Math.sqrt(n) || 1;
        for (let i = 0; i < V; i++) x[i]! /= n;
      }
  };
  const rnd = mulberry32(20261202);
  let Q = Array.from({ length: k }, () => Float64Array.from({ length: V }, () => rnd() * 2 - 1));
  let Y = Array.from({ length: k }, () => new Float64Array(V));
  orth(Q);
  for (let it = 0; it < 4; it++) {
    mul(Q, Y);
    [Q, Y] = [Y, Q];
    orth(Q);
  }
  // B = Qᵀ A Q (k × k, symmetric), eigendecomposition by cyclic Jacobi
  mul(Q, Y);
  const B = Array.from({ length: k }, (_, a) => Float64Array.from({ length: k }, (_, b) => {
    let s = 0;
    for (let i = 0; i < V; i++) s += Q[a]![i]! * Y[b]![i]!;
    return s;
  }));
  for (let a = 0; a < k; a++) for (let b = a + 1; b < k; b++) B[a]![b] = B[b]![a] = (B[a]![b]! + B[b]![a]!) / 2;
  const { values, vectors } = jacobi(B);
  const order = values.map((v, i) => [v, i] as const).sort((x, y) => y[0] - x[0]).slice(0, p.dims);
  // word vectors: rows of Q · U (eigenvalue weight 0 works best for similarity, Levy et al.), then normalised
  const D = order.length;
  const W = new Float32Array(V * D);
  for (let d = 0; d < D; d++) {
    const u = order[d]![1];
    for (let i = 0; i < V; i++) {
      let s = 0;
      for (let a = 0; a < k; a++) s += Q[a]![i]! * vectors[a]![u]!;
      W[i * D + d] = s;
    }
  }
  for (let i = 0; i < V; i++) {
    let n = 0;
    for (let d = 0; d < D; d++) n += W[i * D + d]! ** 2;
    n = Math.sqrt(n) || 1;
    for (let d = 0; d < D; d++) W[i * D + d]! /= n;
  }
  const out = new Map<string, Array<[string, number]>>();
  const sims = new Float32Array(V);
  for (let i = 0; i < V; i++) {
    for (let j = 0; j < V; j++) {
      let s = 0;
      for (let d = 0; d < D; d++) s += W[i * D + d]! * W[j * D + d]!;
      sims[j] = s;
    }
    sims[i] = -1;
    const best: Array<[number, number]> = [];
    for (let j = 0; j < V; j++) {
      const s = sims[j]!;
      if (s < p.minCos) continue;
      if (best.length < p.topK) best.push([j, s]), best.sort((x, y) => y[1] - x[1]);
      else if (s > best[best.length - 1]![1]) (best[best.length - 1] = [j, s]), best.sort((x, y) => y[1] - x[1]);
    }
    if (best.length) out.set(vocab[i]!, best.map(([j, s]) => [vocab[j]!, Math.round(s * 100) / 100]));
  }
  return out;
}

/** Eigenvalues and eigenvectors (columns) of a symmetric matrix by cyclic Jacobi rotations. */
function jacobi(A0: Float64Array[]): { values: number[]; vectors: Float64Array[] } {
  const n = A0.length;
  const A = A0.map((r) => Float64Array.from(r));
  const V = Array.from({ length: n }, (_, i) => Float64Array.from({ length: n }, (_, j) => (i === j ? 1 : 0)));
  for (let sweep = 0; sweep < 30; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += A[p]![q]! ** 2;
    if (off < 1e-18) break;
    for (let p = 0; p < n; p++)
      for (let q = p + 1; q < n; q++) {
        const apq = A[p]![q]!;
        if (Math.abs(apq) < 1e-14) continue;
        const theta = (A[q]![q]! - A[p]![p]!) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let r = 0; r < n; r++) {
          const arp = A[r]![p]!;
          const arq = A[r]![q]!;
          A[r]![p] = c * arp - s * arq;
          A[r]![q] = s * arp + c * arq;
        }
        for (let r = 0; r < n; r++) {
          const apr = A[p]![r]!;
          const aqr = A[q]![r]!;
          A[p]![r] = c * apr - s * aqr;
          A[q]![r] = s * apr + c * aqr;
        }
        for (let r = 0; r < n; r++) {
          const vrp = V[r]![p]!;
          const vrq = V[r]![q]!;
          V[r]![p] = c * vrp - s * vrq;
          V[r]![q] = s * vrp + c * vrq;
        }
      }
  }
  return { values: A.map((r, i) => r[i]!), vectors: V };
}

/**
 * `node bench/run.mjs toolsearch/embed ['<json EmbedParams>'] [--tools-only]`: the experiment. Builds the units
 * (tool texts of the three corpora; unless --tools-only also the training fit fold's queries with their gold
 * tool), fits the neighbour table, and scores query expansion by it on the training tune fold (train.ts) at a few
 * weights, as train.ts scores its grid; dev is printed for the record only.
 */
export default async function experiment(argv: string[] = []): Promise<void> {
  const { loadLiveMcpBench, loadLiveMcpBenchSplit, loadMetaToolSplit, loadMetaToolMulti, loadToolsearch } = await import("./data.ts");
  const { fit, isTune: byQuery, isTuneByTool, mean, pairsOf, LIVE_WEIGHT } = await import("./train.ts");
  // the tune fold as train.ts splits it (by gold tool unless --tune-by-query, the first round's split)
  const isTune = argv.includes("--tune-by-query") ? byQuery : isTuneByTool;
  const { ToolIndex } = await import("../../plugins/tool-search/rank.ts");
  const t0 = performance.now();
  const meta = loadMetaToolSplit("train");
  const live = loadLiveMcpBenchSplit("train");
  const dev = loadToolsearch();
  const units: string[][] = [];
  for (const docs of [dev.docs, loadLiveMcpBench().docs, meta.docs, loadMetaToolMulti().docs]) for (const d of docs) units.push(toolUnit(d));
  const nTools = units.length;
  if (!argv.includes("--tools-only"))
    for (const s of [meta, live]) {
      const by = new Map(s.docs.flatMap((d) => [[d.name, d], [d.shortName ?? d.name, d]] as const));
      for (const q of s.queries) {
        if (isTune(q)) continue;
        const gold = q.gold.map((g) => by.get(g)).filter((d): d is SearchDoc => !!d);
        units.push(unitTerms(`${q.query} ${gold.map((d) => `${words(d.shortName ?? d.name).join(" ")} ${(d.description ?? "").slice(0, 400)}`).join(" ")}`));
      }
    }
  const p = { ...EMBED_PARAMS, ...(argv[0] && !argv[0].startsWith("--") ? JSON.parse(argv[0]) : {}) };
  const neighbours = neighbourTable(units, p);
  console.log(`${nTools} tool units, ${units.length - nTools} query units; ${neighbours.size} words with neighbours; ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const learned = fit([...pairsOf(meta, 1, (q) => !isTune(q)), ...pairsOf(live, LIVE_WEIGHT, (q) => !isTune(q))], argv.includes("--tune-by-query") ? { minCount: 3, minNpmi: 0.25, topK: 8, liveWeight: LIVE_WEIGHT, minTools: 1, ownWordTools: 0 } : { minCount: 3, minNpmi: 0.25, topK: 8, liveWeight: LIVE_WEIGHT, minTools: 2, ownWordTools: 0 }); // each round's chosen table
  for (const neighbourWeight of [0, 0.1, 0.2, 0.35]) {
    const o = { learned, neighbours, neighbourWeight };
    const m = mean(meta, new ToolIndex(meta.docs, o), isTune);
    const l = mean(live, new ToolIndex(live.docs, o), isTune);
    const d = mean(dev, new ToolIndex(dev.docs, { neighbours, neighbourWeight }));
    console.log(`neighbourWeight ${neighbourWeight}: tune MetaTool R@5 ${m.r5.toFixed(3)} MRR ${m.mrr.toFixed(3)}, LiveMCPBench R@5 ${l.r5.toFixed(3)} MRR ${l.mrr.toFixed(3)}, score ${((m.r5 + m.mrr) / 2 + (l.r5 + l.mrr) / 2).toFixed(4)} | dev (record only) R@5 ${d.r5.toFixed(3)} MRR ${d.mrr.toFixed(3)}`);
  }
}
