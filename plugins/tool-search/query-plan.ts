/**
 * Query plan for ToolSearch ranking: a query → weighted terms and concept groups. Stop words dropped,
 * stems; id-like chunks down-weighted; then expansion — lexicon synonyms and prefix matches against the
 * vocabulary, each at a reduced weight (a term keeps its largest weight).
 */
import { stem, words, STOP_WORDS } from "./text.ts";
import { SYNONYMS } from "./synonyms.ts";
import { lexiconSynonyms } from "./lexicon.ts";
import { associations } from "./learned.ts";
import { plainWords, stemFn, type IndexData } from "./index-build.ts";
import type { RankOptions } from "./options.ts";

/**
 * Query chunks that carry values rather than intent: ids containing digits (`pi_3NcX9u2e`, `U024BE7LH`, `#482`).
 * (Down-weighting URLs, file names and paths too was measured and lost: their extensions and folders carry intent.)
 */
/** Function words of NLTK's English stop list that STOP_WORDS keeps (tool names use some: "up", "out"); query side only. */
const FUNCTION_WORDS = new Set("before after above below up down out off again further once during while until between through because against few more most nor am myself ourselves yourself yourselves himself herself itself themselves".split(" "));

const VALUE_CHUNK = /#\d+|\b(?=[\w-]*\d)[\w-]+\b/g;

/** A file name or glob in a query (`package.json`, `*.ts`, `src/app.py`, `Dockerfile` is not caught): the query is about files. */
const FILE_NAME = /(?:^|[\s'"`(])(?:[\w.*/-]*[\w*])?\.(?:json|jsonc|ya?ml|toml|ini|env|lock|tsx?|jsx?|mjs|cjs|py|rb|go|rs|java|kt|swift|c|cc|cpp|h|hpp|cs|php|sh|bash|zsh|ps1|sql|md|mdx|txt|rst|csv|tsv|xml|html?|css|scss|svg|png|jpe?g|gif|pdf|log|conf|cfg)(?=$|[\s'"`),.;:!?])/i;

/**
 * Weighted query terms, plus the concept groups for coverage: group k is the k-th distinct query word,
 * `groups.get(term)` lists (group, weight) pairs — the word itself at 1, its synonyms and prefix matches lower.
 */
export interface QueryPlan {
  q: Map<string, number>;
  groups: Map<string, Array<[number, number]>>;
  nGroups: number;
  groupIdf: number[];
  /** The query's own terms when their weights are not 1 (salience); otherwise the weight-1 terms are. */
  base?: Set<string>;
}

/** Collects terms at their largest weight and, with a group, their (group, weight) pairs. */
class PlanBuilder {
  readonly q = new Map<string, number>();
  readonly groups = new Map<string, Array<[number, number]>>();

  put(t: string, w: number, g = -1): void {
    const q = this.q;
    if (w > (q.get(t) ?? 0)) q.set(t, w);
    if (g < 0) return;
    let l = this.groups.get(t);
    if (!l) this.groups.set(t, (l = []));
    const e = l.find((x) => x[0] === g);
    if (!e) l.push([g, w]);
    else if (w > e[1]) e[1] = w;
  }
}

/** Vocabulary words that extend `t` (at most 8), and those `t` extends (at least 4 letters), at the prefix weight. */
function expandPrefix(ix: IndexData, p: PlanBuilder, t: string, w: number, g: number | undefined): void {
  const vocab = ix.vocab;
  let lo = 0;
  let hi = vocab.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (vocab[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo, k = 0; i < vocab.length && k < 8 && vocab[i]!.startsWith(t); i++) if (vocab[i] !== t) (p.put(vocab[i]!, w, g), k++);
  for (let len = t.length - 1; len >= 4; len--) {
    const pre = t.slice(0, len);
    if (ix.termId.has(pre)) p.put(pre, w, g);
  }
}

export function queryPlan(ix: IndexData, nDocs: number, o: RankOptions, query: string): QueryPlan {
  const p = new PlanBuilder();
  const sf = stemFn(o);
  let intent = query;
  if (o.valueWeight !== 1 && o.analyzer !== "plain") {
    intent = query.replace(VALUE_CHUNK, (chunk) => {
      for (const w of words(chunk)) if (!STOP_WORDS.has(w)) p.put(sf(w), o.valueWeight);
      return " ";
    });
  }
  const ws = o.analyzer === "plain" ? plainWords(intent) : words(intent).filter((w) => !STOP_WORDS.has(w) && !(o.queryFunctionWords && FUNCTION_WORDS.has(w)));
  const base = ws.map(sf);
  if (o.fileHint > 0 && FILE_NAME.test(query)) p.put(sf("file"), o.fileHint);
  const gOf = new Map<string, number>();
  for (const t of base) if (!gOf.has(t)) gOf.set(t, gOf.size);
  for (const t of base) p.put(t, 1, gOf.get(t));
  if (o.synonyms > 0) {
    for (let i = 0; i < ws.length; i++) {
      const w = ws[i]!;
      for (const s of SYNONYMS.get(w) ?? SYNONYMS.get(stem(w)) ?? []) for (const st of words(s)) p.put(sf(st), o.synonyms, gOf.get(base[i]!));
      if (o.lexiconWeight > 0) for (const s of lexiconSynonyms(w) ?? []) for (const st of words(s)) if (!STOP_WORDS.has(st)) p.put(sf(st), o.lexiconWeight, gOf.get(base[i]!));
    }
  }
  if (o.learnedWeight > 0) {
    const table = o.learned ?? associations();
    for (const t of base) {
      const list = table.get(t);
      const w = o.learnedInVocab === 1 || !ix.termId.has(t) ? o.learnedWeight : o.learnedWeight * o.learnedInVocab;
      if (list && w > 0) for (let k = 0; k < list.length && k < o.learnedTopK; k++) p.put(list[k]![0], w * list[k]![1], gOf.get(t));
    }
  }
  if (o.neighbourWeight > 0 && o.neighbours) {
    const table = o.neighbours;
    for (const t of base) {
      const list = table.get(t);
      if (list) for (const [u, cos] of list) p.put(u, o.neighbourWeight * cos, gOf.get(t));
    }
  }
  if (o.prefix > 0) for (const t of base) if (t.length >= 4) expandPrefix(ix, p, t, o.prefix, gOf.get(t));
  const maxIdf = Math.log(1 + (nDocs + 0.5) / 0.5);
  const groupIdf = [...gOf.keys()].map((t) => {
    const id = ix.termId.get(t);
    return id === undefined ? maxIdf : ix.idfs[id]!;
  });
  if (o.salience) {
    // the query's own words keep their identity (base terms, coverage) and only their BM25 weight moves
    const baseSet = new Set([...p.q].filter(([, w]) => w === 1).map(([t]) => t));
    for (const t of baseSet) p.q.set(t, o.salience.get(t) ?? 1);
    return { q: p.q, groups: p.groups, nGroups: gOf.size, groupIdf, base: baseSet };
  }
  return { q: p.q, groups: p.groups, nGroups: gOf.size, groupIdf };
}
