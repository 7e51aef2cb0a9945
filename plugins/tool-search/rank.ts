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
 */
import type { JsonSchema } from "../../core/index.ts";
import { stem, lightStem, terms, words, forEachWordSpan, SpanTable, STOP_WORDS } from "./text.ts";
import { SYNONYMS } from "./synonyms.ts";
import { relatedWords, lexiconSynonyms } from "./lexicon.ts";

export interface SearchDoc {
  /** The callable name (unique in the index). */
  name: string;
  /** The tool's own name without a server prefix (defaults to `name` minus `mcp__server__`). */
  shortName?: string;
  server?: string;
  /** What the server says about itself (MCP `instructions`, a registry description), truncated at 2 KB. */
  serverDescription?: string;
  description?: string;
  searchHint?: string;
  inputSchema?: JsonSchema;
  /** Words related to the tool's name words (a lexical database's synonyms and definitions); low weight. */
  related?: string;
}

export const FIELDS = ["name", "server", "serverInfo", "hint", "lead", "desc", "params", "paramDesc", "related"] as const;
export type FieldName = (typeof FIELDS)[number];

export interface RankOptions {
  /** Field weights; 0 drops the field. */
  weights: Record<FieldName, number>;
  /** Length normalisation per field. */
  b: Record<FieldName, number>;
  k1: number;
  /** Weight of lexicon synonyms (0 = off). */
  synonyms: number;
  /** Query expansion by a lexical database's synonyms (lexicon.ts, WordNet) at this weight; 0 = off. */
  lexiconWeight: number;
  /** Index the "related" field from the lexicon (definitions and synonyms of name words) when a doc has none. */
  relatedFromLexicon: boolean;
  /** Weight of vocabulary prefix matches (0 = off). */
  prefix: number;
  /** Score multiplier (1 + coverage × fraction of query words matched); 0 = off. */
  coverage: number;
  /**
   * How coverage counts a query word: "exact" — the tool has the word itself; "concept" — the tool has the
   * word or one of its expansions (synonym, prefix), credited at that expansion's weight.
   */
  coverageMode: "exact" | "concept";
  /** Score multiplier (1 + leadCoverage × idf-weighted fraction of query words — or their expansions, at their
   * weight — found in the tool's name or the first sentence of its description); 0 = off. */
  leadCoverage: number;
  /** Action agreement: when the query and the tool's name both carry an action verb (create/read/list/search/
   * update/delete/send/run classes), × (1 + verbAgree) when a class is shared, × (1 − verbMismatch) when none is. */
  verbAgree: number;
  verbMismatch: number;
  /** Weight each query word's share of coverage by its idf (rare words count more); false = every word equal. */
  coverageIdf: boolean;
  /** Score multiplier (1 + nameCoverage × weighted fraction of the tool's name words the query has); 0 = off. */
  nameCoverage: number;
  /** Weight of words inside value-like chunks of the query (ids with digits, #123); 1 = no special case. */
  valueWeight: number;
  /** Score multiplier (1 + serverBoost) for tools whose server the query names. 0 = off. */
  serverBoost: number;
  /** Stem words: Porter, a light plural/verb-ending stemmer, or none. */
  stemming: "porter" | "light" | false;
  /** Description characters indexed per tool (and per tool for all parameter descriptions together). */
  maxDescChars: number;
  /** "plain": lower-case, split on non-alphanumerics, nothing else (the baseline's analyser). */
  analyzer?: "full" | "plain";
  /** Weight of the term "file" added when the query names a file (`package.json`, `*.ts`, `src/app.py`); 0 = off. */
  fileHint: number;
  /**
   * Workflow companions: when the best hit needs an id it cannot get by itself (`libraryId`, `pid`), the tool
   * of the same server that produces it (resolve/list/find/search … library, process) joins the results
   * right after it. false = off.
   */
  companions: boolean;
}

export const DEFAULT_OPTIONS: RankOptions = {
  // Tuned on the toolsearch dev set (random search over these knobs), checked on LiveMCPBench and MetaTool.
  weights: { name: 4, server: 2.5, serverInfo: 0.3, hint: 2, lead: 2, desc: 0.5, params: 0.5, paramDesc: 0.5, related: 0.25 },
  b: { name: 0.3, server: 0, serverInfo: 0.75, hint: 0.5, lead: 0.5, desc: 0.75, params: 0.5, paramDesc: 0.75, related: 0.75 },
  k1: 1.6,
  synonyms: 0.6,
  lexiconWeight: 0.2,
  relatedFromLexicon: true,
  prefix: 0.4,
  coverage: 2,
  coverageMode: "exact",
  coverageIdf: false,
  leadCoverage: 0,
  verbAgree: 0,
  verbMismatch: 0,
  nameCoverage: 0.25,
  valueWeight: 0.3,
  serverBoost: 0.5,
  stemming: "porter",
  maxDescChars: 1024,
  fileHint: 0.5,
  companions: true,
};

/** The plain BM25 baseline the benchmark compares against: name + description, one field, no extras. */
export const PLAIN_BM25: RankOptions = {
  weights: { name: 1, server: 0, serverInfo: 0, hint: 0, lead: 0, desc: 1, params: 0, paramDesc: 0, related: 0 },
  b: { name: 0.75, server: 0.75, serverInfo: 0.75, hint: 0.75, lead: 0.75, desc: 0.75, params: 0.75, paramDesc: 0.75, related: 0.75 },
  k1: 1.2,
  synonyms: 0,
  lexiconWeight: 0,
  relatedFromLexicon: false,
  prefix: 0,
  coverage: 0,
  coverageMode: "exact",
  coverageIdf: false,
  leadCoverage: 0,
  verbAgree: 0,
  verbMismatch: 0,
  nameCoverage: 0,
  valueWeight: 1,
  serverBoost: 0,
  stemming: false,
  maxDescChars: Infinity,
  fileHint: 0,
  companions: false,
  analyzer: "plain",
};

export interface Hit {
  name: string;
  score: number;
  /** Position of the tool in the indexed list. */
  index: number;
}

export interface SearchOptions {
  limit?: number;
  /** Only tools for which this returns true are ranked (e.g. `+required` terms). */
  filter?: (doc: SearchDoc, index: number) => boolean;
}

export function shortNameOf(name: string, server?: string): string {
  const m = /^mcp__(.+?)__(.+)$/.exec(name);
  if (m) return m[2]!;
  if (server && name.startsWith(server + "__")) return name.slice(server.length + 2);
  return name;
}

/** Field texts of one tool. */
function fieldTexts(d: SearchDoc, o: RankOptions): Record<FieldName, string> {
  const desc = (d.description ?? "").slice(0, o.maxDescChars);
  const lead = /^[\s\S]*?[.!?](\s|$)/.exec(desc)?.[0] ?? desc;
  const params: string[] = [];
  const paramDesc: string[] = [];
  collectParams(d.inputSchema, params, paramDesc, 0);
  return {
    name: d.shortName ?? shortNameOf(d.name, d.server),
    server: d.server ?? /^mcp__(.+?)__/.exec(d.name)?.[1] ?? "",
    serverInfo: (d.serverDescription ?? "").slice(0, 2048),
    hint: d.searchHint ?? "",
    lead,
    desc,
    params: params.join(" "),
    paramDesc: paramDesc.join(" ").slice(0, o.maxDescChars),
    // (from the lexicon: filled per name word, with cached term ids, by the index builder)
    related: d.related ?? "",
  };
}

function collectParams(schema: unknown, names: string[], descs: string[], depth: number): void {
  if (!schema || typeof schema !== "object" || depth > 3) return;
  const s = schema as Record<string, unknown>;
  const props = s.properties && typeof s.properties === "object" ? (s.properties as Record<string, unknown>) : undefined;
  if (props) {
    for (const [k, v] of Object.entries(props)) {
      names.push(k);
      if (v && typeof v === "object") {
        const p = v as Record<string, unknown>;
        if (typeof p.description === "string") descs.push(p.description.slice(0, 300));
        if (Array.isArray(p.enum)) descs.push(p.enum.filter((e) => typeof e === "string").join(" "));
        collectParams(p, names, descs, depth + 1);
        if (p.items) collectParams(p.items, names, descs, depth + 1);
      }
    }
  }
  for (const k of ["anyOf", "oneOf", "allOf"]) if (Array.isArray(s[k])) for (const x of s[k] as unknown[]) collectParams(x, names, descs, depth + 1);
}

/**
 * Query chunks that carry values rather than intent: ids containing digits (`pi_3NcX9u2e`, `U024BE7LH`, `#482`).
 * (Down-weighting URLs, file names and paths too was measured and lost: their extensions and folders carry intent.)
 */
const VALUE_CHUNK = /#\d+|\b(?=[\w-]*\d)[\w-]+\b/g;

/** A file name or glob in a query (`package.json`, `*.ts`, `src/app.py`, `Dockerfile` is not caught): the query is about files. */
const FILE_NAME = /(?:^|[\s'"`(])(?:[\w.*/-]*[\w*])?\.(?:json|jsonc|ya?ml|toml|ini|env|lock|tsx?|jsx?|mjs|cjs|py|rb|go|rs|java|kt|swift|c|cc|cpp|h|hpp|cs|php|sh|bash|zsh|ps1|sql|md|mdx|txt|rst|csv|tsv|xml|html?|css|scss|svg|png|jpe?g|gif|pdf|log|conf|cfg)(?=$|[\s'"`),.;:!?])/i;

function plainWords(text: string): string[] {
  return text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}

function stemFn(o: RankOptions): (w: string) => string {
  return o.stemming === "porter" ? stem : o.stemming === "light" ? lightStem : (w) => w;
}

function analyzer(o: RankOptions): (text: string) => string[] {
  if (o.analyzer === "plain") return plainWords;
  const sf = stemFn(o);
  return (t) => terms(t, false, sf);
}

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

export class ToolIndex {
  readonly docs: readonly SearchDoc[];
  readonly options: RankOptions;
  /** term (stem) → id; postings and idf are indexed by id. */
  private readonly termId = new Map<string, number>();
  private readonly terms: string[] = [];
  /** Postings in one CSR layout: term t's docs are postDocs[postStart[t] .. postStart[t + 1]), with tfs alongside. */
  private postStart: Int32Array;
  private postDocs: Int32Array;
  private postTfs: Float64Array;
  private idfs: Float64Array;
  private vocab: string[] = [];
  /** Term ids of every field of every tool, in one buffer; `ranges` holds [start, end) per (doc, field). */
  private buf: Int32Array;
  private ranges: Int32Array;
  private readonly nameSlot: number;
  private readonly leadSlot: number;
  private readonly serverSlot: number;
  private readonly slots: number;
  readonly buildMs: number;
  private scratchScores?: Float64Array;
  private scratchMatched?: Uint16Array;

  constructor(docs: readonly SearchDoc[], options: Partial<RankOptions> = {}) {
    const t0 = performance.now();
    this.docs = docs;
    const o = (this.options = { ...DEFAULT_OPTIONS, ...options });
    const an = analyzer(o);
    const terms = this.terms;
    // raw text → term ids, with a word → id cache (each distinct word is analysed once)
    const wordId = new SpanTable();
    const idOfTerm = (t: string): number => {
      let id = this.termId.get(t);
      if (id === undefined) {
        id = terms.length;
        terms.push(t);
        this.termId.set(t, id);
      }
      return id;
    };
    let buf = new Int32Array(1 << 16);
    let len = 0;
    const relIds = new Map<string, number[]>();
    const perServer = new Map<string, Int32Array>();
    const push = (id: number) => {
      if (len === buf.length) {
        const nb = new Int32Array(buf.length * 2);
        nb.set(buf);
        buf = nb;
      }
      buf[len++] = id;
    };
    const add = (str: string, s: number, e: number) => {
      let id = wordId.get(str, s, e);
      if (id === undefined) {
        const w = str.slice(s, e).toLowerCase();
        const t = an(w);
        id = t.length === 1 ? idOfTerm(t[0]!) : -1;
        wordId.set(w, id);
      }
      if (id < 0) return;
      if (len === buf.length) {
        const nb = new Int32Array(buf.length * 2);
        nb.set(buf);
        buf = nb;
      }
      buf[len++] = id;
    };
    const analyse = (text: string) => {
      if (!text) return;
      if (o.analyzer === "plain") for (const w of plainWords(text)) add(w, 0, w.length);
      else forEachWordSpan(text, add);
    };
    const active = FIELDS.filter((f) => o.weights[f] > 0);
    // slots: every active field, plus name and server (always kept for the post-scoring factors)
    const slotOf = new Map<string, number>(active.map((f, k) => [f, k]));
    const extra: FieldName[] = [];
    for (const f of ["name", "server"] as const) if (!slotOf.has(f)) slotOf.set(f, active.length + extra.push(f) - 1);
    const slots = (this.slots = active.length + extra.length);
    this.nameSlot = slotOf.get("name")!;
    this.serverSlot = slotOf.get("server")!;
    const ranges = (this.ranges = new Int32Array(docs.length * slots * 2));
    const totals = new Float64Array(active.length);
    const leadSlot = slotOf.get("lead");
    this.leadSlot = leadSlot ?? -1;
    const descSlot = slotOf.get("desc");
    for (let i = 0; i < docs.length; i++) {
      const ft = fieldTexts(docs[i]!, o);
      const base = i * slots * 2;
      // lead and the rest of the description are analysed back to back, so desc = lead ∪ rest is one range
      if (leadSlot !== undefined || descSlot !== undefined) {
        const s0 = len;
        analyse(ft.lead);
        const s1 = len;
        analyse(ft.desc.slice(ft.lead.length));
        if (leadSlot !== undefined) (ranges[base + leadSlot * 2] = s0), (ranges[base + leadSlot * 2 + 1] = s1);
        if (descSlot !== undefined) (ranges[base + descSlot * 2] = s0), (ranges[base + descSlot * 2 + 1] = len);
      }
      for (let k = 0; k < slots; k++) {
        const f = k < active.length ? active[k]! : extra[k - active.length]!;
        if (f === "lead" || f === "desc") continue;
        const s0 = len;
        if (f === "related" && docs[i]!.related === undefined) {
          if (o.relatedFromLexicon) {
            // the lexicon's words for each name word, analysed once per distinct word and then copied as ids
            for (const w of words(ft.name)) {
              const ids = relIds.get(w);
              if (ids) for (const id of ids) push(id);
              else {
                const r0 = len;
                analyse(relatedWords(w));
                relIds.set(w, Array.from(buf.subarray(r0, len)));
              }
            }
          }
        } else if (f === "serverInfo" || f === "server") {
          // one text per server, shared by all its tools: analysed once, then copied as ids
          const text = ft[f];
          const ids = perServer.get(text);
          if (ids) for (let j = 0; j < ids.length; j++) push(ids[j]!);
          else {
            analyse(text);
            perServer.set(text, buf.slice(s0, len));
          }
        } else analyse(ft[f]);
        ranges[base + k * 2] = s0;
        ranges[base + k * 2 + 1] = len;
      }
      for (let k = 0; k < active.length; k++) totals[k] += ranges[base + k * 2 + 1]! - ranges[base + k * 2]!;
    }
    this.buf = buf;
    const n = Math.max(1, docs.length);
    const avg = Array.from(totals, (t) => Math.max(1, t / n));
    const T = terms.length;
    // pass 1: document frequency per term (a term counts once per tool, whatever its fields)
    const df = new Int32Array(T + 1);
    const lastDoc = new Int32Array(T).fill(-1);
    for (let i = 0; i < docs.length; i++) {
      const base = i * slots * 2;
      for (let k = 0; k < active.length; k++) {
        const s1 = ranges[base + k * 2 + 1]!;
        for (let j = ranges[base + k * 2]!; j < s1; j++) {
          const t = buf[j]!;
          if (lastDoc[t] !== i) (lastDoc[t] = i), df[t]!++;
        }
      }
    }
    const start = (this.postStart = new Int32Array(T + 1));
    for (let t = 0; t < T; t++) start[t + 1] = start[t]! + df[t]!;
    const postDocs = (this.postDocs = new Int32Array(start[T]!));
    const postTfs = (this.postTfs = new Float64Array(start[T]!));
    const cursor = start.slice(0, T);
    // pass 2: per tool, the BM25F pseudo-frequency of each term (field weights and length norms summed), in doc order
    const acc = new Float64Array(T);
    const touched: number[] = [];
    for (let i = 0; i < docs.length; i++) {
      const base = i * slots * 2;
      for (let k = 0; k < active.length; k++) {
        const s0 = ranges[base + k * 2]!;
        const s1 = ranges[base + k * 2 + 1]!;
        if (s1 === s0) continue;
        const f = active[k]!;
        const inc = o.weights[f] / (1 - o.b[f] + o.b[f] * ((s1 - s0) / avg[k]!));
        for (let j = s0; j < s1; j++) {
          const t = buf[j]!;
          if (acc[t] === 0) touched.push(t);
          acc[t] += inc;
        }
      }
      for (let x = 0; x < touched.length; x++) {
        const t = touched[x]!;
        const c = cursor[t]!++;
        postDocs[c] = i;
        postTfs[c] = acc[t]!;
        acc[t] = 0;
      }
      touched.length = 0;
    }
    this.idfs = new Float64Array(T);
    for (let t = 0; t < T; t++) {
      const d = df[t]!;
      this.idfs[t] = Math.log(1 + (n - d + 0.5) / (d + 0.5));
    }
    this.vocab = [...terms].sort();
    this.buildMs = performance.now() - t0;
  }

  private verbMaskCache?: Int32Array;
  /** term id → bit mask of the action classes the term belongs to. */
  private verbMask(): Int32Array {
    if (!this.verbMaskCache) {
      const m = new Int32Array(this.terms.length);
      for (let t = 0; t < this.terms.length; t++) m[t] = VERB_CLASS.get(this.terms[t]!) ?? 0;
      this.verbMaskCache = m;
    }
    return this.verbMaskCache;
  }

  /** Term ids of one field slot of a tool. */
  private slotIds(doc: number, slot: number): Int32Array {
    const base = (doc * this.slots + slot) * 2;
    return this.buf.subarray(this.ranges[base]!, this.ranges[base + 1]!);
  }

  get size(): number {
    return this.docs.length;
  }

  /** The weighted query terms (exposed for tests and for `--explain`-style debugging). */
  queryTerms(query: string): Map<string, number> {
    return this.queryPlan(query).q;
  }

  /**
   * Weighted query terms, plus the concept groups for coverage: group k is the k-th distinct query word,
   * `groupsOf(term)` lists (group, weight) pairs — the word itself at 1, its synonyms and prefix matches lower.
   */
  private queryPlan(query: string): { q: Map<string, number>; groups: Map<string, Array<[number, number]>>; nGroups: number; groupIdf: number[] } {
    const o = this.options;
    const q = new Map<string, number>();
    const groups = new Map<string, Array<[number, number]>>();
    const put = (t: string, w: number, g = -1) => {
      if (w > (q.get(t) ?? 0)) q.set(t, w);
      if (g < 0) return;
      let l = groups.get(t);
      if (!l) groups.set(t, (l = []));
      const e = l.find((x) => x[0] === g);
      if (!e) l.push([g, w]);
      else if (w > e[1]) e[1] = w;
    };
    const sf = stemFn(o);
    let intent = query;
    if (o.valueWeight !== 1 && o.analyzer !== "plain") {
      intent = query.replace(VALUE_CHUNK, (chunk) => {
        for (const w of words(chunk)) if (!STOP_WORDS.has(w)) put(sf(w), o.valueWeight);
        return " ";
      });
    }
    const ws = o.analyzer === "plain" ? plainWords(intent) : words(intent).filter((w) => !STOP_WORDS.has(w));
    const base = ws.map(sf);
    if (o.fileHint > 0 && FILE_NAME.test(query)) put(sf("file"), o.fileHint);
    const gOf = new Map<string, number>();
    for (const t of base) if (!gOf.has(t)) gOf.set(t, gOf.size);
    for (const t of base) put(t, 1, gOf.get(t));
    if (o.synonyms > 0) {
      for (let i = 0; i < ws.length; i++) {
        const w = ws[i]!;
        for (const s of SYNONYMS.get(w) ?? SYNONYMS.get(stem(w)) ?? []) for (const st of words(s)) put(sf(st), o.synonyms, gOf.get(base[i]!));
        if (o.lexiconWeight > 0) for (const s of lexiconSynonyms(w) ?? []) for (const st of words(s)) if (!STOP_WORDS.has(st)) put(sf(st), o.lexiconWeight, gOf.get(base[i]!));
      }
    }
    if (o.prefix > 0) {
      for (const t of base) {
        if (t.length < 4) continue;
        const g = gOf.get(t);
        // vocabulary words that extend the query word …
        let lo = 0;
        let hi = this.vocab.length;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (this.vocab[mid]! < t) lo = mid + 1;
          else hi = mid;
        }
        for (let i = lo, k = 0; i < this.vocab.length && k < 8 && this.vocab[i]!.startsWith(t); i++) if (this.vocab[i] !== t) (put(this.vocab[i]!, o.prefix, g), k++);
        // … and vocabulary words the query word extends (at least 4 letters)
        for (let len = t.length - 1; len >= 4; len--) {
          const p = t.slice(0, len);
          if (this.termId.has(p)) put(p, o.prefix, g);
        }
      }
    }
    const maxIdf = Math.log(1 + (this.docs.length + 0.5) / 0.5);
    const groupIdf = [...gOf.keys()].map((t) => {
      const id = this.termId.get(t);
      return id === undefined ? maxIdf : this.idfs[id]!;
    });
    return { q, groups, nGroups: gOf.size, groupIdf };
  }

  search(query: string, opts: SearchOptions = {}): Hit[] {
    const limit = Math.max(1, opts.limit ?? 10);
    const o = this.options;
    const plan = this.queryPlan(query);
    const q = plan.q;
    const baseTerms = new Set([...q].filter(([, w]) => w === 1).map(([t]) => t));
    const qIds = new Map<number, number>();
    for (const [t, w] of q) {
      const id = this.termId.get(t);
      if (id !== undefined) qIds.set(id, w);
    }
    const baseIds = new Set<number>();
    for (const t of baseTerms) {
      const id = this.termId.get(t);
      if (id !== undefined) baseIds.add(id);
    }
    const r = this.score(q, baseTerms, opts.filter);
    const K = plan.nGroups;
    const verbMask = this.verbMask();
    let qVerbs = 0;
    for (const t of baseTerms) qVerbs |= VERB_CLASS.get(t) ?? 0;
    let leadGroups: Map<number, Array<[number, number]>> | undefined;
    const leadSum = plan.groupIdf.reduce((a, b) => a + b, 0);
    if (o.leadCoverage > 0) {
      leadGroups = new Map();
      for (const [t, gs] of plan.groups) {
        const id = this.termId.get(t);
        if (id !== undefined) leadGroups.set(id, gs);
      }
    }
    const weighted = o.coverage > 0 && K > 1 && (o.coverageMode === "concept" || o.coverageIdf);
    let cov: Float32Array | undefined;
    let gw: number[] = [];
    let gwSum = 0;
    if (weighted) {
      // per tool and query word: the best credit among the terms of that word's group the tool has
      cov = new Float32Array(this.docs.length * K);
      gw = o.coverageIdf ? plan.groupIdf : plan.groupIdf.map(() => 1);
      gwSum = gw.reduce((a, b) => a + b, 0);
      for (const [t, gs] of plan.groups) {
        const id = this.termId.get(t);
        if (id === undefined) continue;
        const docs = this.postDocs.subarray(this.postStart[id]!, this.postStart[id + 1]!);
        for (const [g, w] of gs) {
          const credit = o.coverageMode === "concept" ? w : w === 1 ? 1 : 0;
          if (credit === 0) continue;
          for (const d of docs) if (cov[d * K + g]! < credit) cov[d * K + g] = credit;
        }
      }
    }
    // final score = raw × coverage factors; keep the best `limit` (ties: pool order)
    const top: Hit[] = [];
    const ranges = this.ranges;
    const buf = this.buf;
    const nBase = baseTerms.size;
    for (const i of r.touched) {
      let score = r.scores[i]!;
      if (o.leadCoverage > 0 && K > 0 && leadGroups) {
        const got = new Float32Array(K);
        for (const slot of [this.nameSlot, this.leadSlot]) {
          if (slot < 0) continue;
          const b0 = (i * this.slots + slot) * 2;
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
        const b0 = (i * this.slots + this.nameSlot) * 2;
        let has = 0;
        for (let j = ranges[b0]!; j < ranges[b0 + 1]!; j++) has |= verbMask[buf[j]!] ?? 0;
        if (has) score *= has & qVerbs ? 1 + o.verbAgree : 1 - o.verbMismatch;
      }
      if (cov) {
        let c = 0;
        for (let g = 0; g < K; g++) c += cov[i * K + g]! * gw[g]!;
        score *= 1 + (o.coverage * c) / gwSum;
      } else if (o.coverage > 0 && nBase > 1) score *= 1 + (o.coverage * r.matched[i]!) / nBase;
      const base = i * this.slots * 2;
      if (o.serverBoost > 0) {
        const s1 = ranges[base + this.serverSlot * 2 + 1]!;
        for (let j = ranges[base + this.serverSlot * 2]!; j < s1; j++) {
          if (baseIds.has(buf[j]!)) {
            score *= 1 + o.serverBoost;
            break;
          }
        }
      }
      if (o.nameCoverage > 0) {
        const s0 = ranges[base + this.nameSlot * 2]!;
        const s1 = ranges[base + this.nameSlot * 2 + 1]!;
        if (s1 > s0) {
          let m = 0;
          for (let j = s0; j < s1; j++) m += qIds.get(buf[j]!) ?? 0;
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
      top.splice(j, 0, { name: this.docs[i]!.name, score, index: i });
    }
    for (const i of r.touched) {
      r.scores[i] = 0;
      r.matched[i] = 0;
    }
    if (o.companions && top.length) this.addCompanion(top, limit, opts.filter);
    return top;
  }

  private byServer?: Map<string, number[]>;
  /**
   * The producer of the id the best hit requires, from the same server, inserted right after it (when it is
   * not already in the results). Generic: required parameter names ending in id/ids/key (or `pid`) name an
   * entity; a same-server tool whose name has a producing verb and that entity supplies it.
   */
  private addCompanion(top: Hit[], limit: number, filter: SearchOptions["filter"]): void {
    const best = top[0]!;
    const doc = this.docs[best.index]!;
    const required = (doc.inputSchema as { required?: unknown } | undefined)?.required;
    if (!Array.isArray(required)) return;
    const entities: string[][] = [];
    for (const p of required) {
      if (typeof p !== "string") continue;
      const ws = words(p);
      if (ws.length === 1 && ws[0] === "pid") entities.push(["process"]);
      else if (ws.length > 1 && ID_WORDS.has(ws[ws.length - 1]!)) entities.push(ws.slice(0, -1).filter((w) => !STOP_WORDS.has(w)).map(stem));
    }
    if (!entities.length) return;
    const server = doc.server ?? /^mcp__(.+?)__/.exec(doc.name)?.[1];
    if (!server) return;
    if (!this.byServer) {
      this.byServer = new Map();
      this.docs.forEach((d, i) => {
        const s = d.server ?? /^mcp__(.+?)__/.exec(d.name)?.[1];
        if (!s) return;
        let l = this.byServer!.get(s);
        if (!l) this.byServer!.set(s, (l = []));
        l.push(i);
      });
    }
    for (const ent of entities) {
      if (!ent.length) continue;
      for (const i of this.byServer.get(server) ?? []) {
        if (i === best.index || (filter && !filter(this.docs[i]!, i))) continue;
        const name = this.nameWords(i);
        if (!name.some((w) => PRODUCER_VERBS.has(w)) || !ent.every((e) => name.includes(e) || name.includes(e + "s") || name.some((w) => w.startsWith(e)))) continue;
        // keep it within the first COMPANION_SLOT results (ToolSearch's default page) without displacing
        // anything above that slot: the ranking stays, the page gains the step the best hit depends on
        const slot = Math.min(COMPANION_SLOT, top.length, limit - 1);
        const at = top.findIndex((h) => h.index === i);
        if (at >= 0 && at <= slot) return;
        const hit = at > 0 ? top.splice(at, 1)[0]! : { name: this.docs[i]!.name, score: 0, index: i };
        hit.score = top[slot - 1]?.score ?? best.score;
        top.splice(slot, 0, hit);
        if (top.length > limit) top.length = limit;
        return;
      }
    }
  }

  private score(q: Map<string, number>, base: Set<string>, filter?: SearchOptions["filter"]): { scores: Float64Array; matched: Uint16Array; touched: number[] } {
    const k1 = this.options.k1;
    const n = this.docs.length;
    // scratch accumulators reused across queries (search is synchronous); only touched slots are reset
    const scores = (this.scratchScores ??= new Float64Array(n));
    const matched = (this.scratchMatched ??= new Uint16Array(n));
    const touched: number[] = [];
    const allowed = filter ? this.docs.map((d, i) => filter(d, i)) : undefined;
    for (const [t, w] of q) {
      const id = this.termId.get(t);
      if (id === undefined) continue;
      const idf = this.idfs[id]!;
      const isBase = base.has(t);
      const docs = this.postDocs;
      const tfs = this.postTfs;
      const end = this.postStart[id + 1]!;
      for (let j = this.postStart[id]!; j < end; j++) {
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

  /** Name words of a tool (for `+required` checks and suggestions). */
  nameWords(index: number): readonly string[] {
    if (index < 0 || index >= this.docs.length) return [];
    return Array.from(this.slotIds(index, this.nameSlot), (id) => this.terms[id]!);
  }
}
