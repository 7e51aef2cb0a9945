/**
 * Index build for ToolSearch ranking: tool fields → term ids → BM25F postings.
 *
 * Every field of every tool is analysed once into one buffer of term ids (`ranges` holds [start, end)
 * per (tool, field slot)); texts shared by many tools (a server's name and description, the lexicon's
 * words for a name word) are analysed once and copied as ids. Then two passes over that buffer give
 * each term's document frequency and, per tool, its BM25F pseudo-frequency (field weights and length
 * norms summed) in one CSR postings layout.
 */
import { stem, lightStem, terms, words, forEachWordSpan, SpanTable, LETTER_OR_DIGIT, lowerWord } from "./text.ts";
import { relatedWords } from "./lexicon.ts";
import { reverseAssociations } from "./learned.ts";
import { FIELDS, type FieldName, type RankOptions, type SearchDoc } from "./options.ts";

/** What a built index holds; read by the query plan and scoring. */
export interface IndexData {
  /** term (stem) → id; postings and idf are indexed by id. */
  readonly termId: ReadonlyMap<string, number>;
  readonly terms: readonly string[];
  /** Postings in one CSR layout: term t's docs are postDocs[postStart[t] .. postStart[t + 1]), with tfs alongside. */
  readonly postStart: Int32Array;
  readonly postDocs: Int32Array;
  readonly postTfs: Float64Array;
  readonly idfs: Float64Array;
  /** Every term, sorted (prefix expansion). */
  readonly vocab: readonly string[];
  /** Term ids of every field of every tool, in one buffer; `ranges` holds [start, end) per (doc, field slot). */
  readonly buf: Int32Array;
  readonly ranges: Int32Array;
  readonly nameSlot: number;
  /** -1 when the lead field is off. */
  readonly leadSlot: number;
  readonly serverSlot: number;
  readonly slots: number;
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
    // for-in, not Object.entries: no pair arrays per property (schemas are plain JSON objects)
    for (const k in props) {
      const v = props[k];
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

export function plainWords(text: string): string[] {
  return text.split(/[^\p{L}\p{M}\p{N}]+/u).filter(Boolean).map(lowerWord);
}

export function stemFn(o: RankOptions): (w: string) => string {
  return o.stemming === "porter" ? stem : o.stemming === "light" ? lightStem : (w) => w;
}

function analyzer(o: RankOptions): (text: string) => string[] {
  if (o.analyzer === "plain") return plainWords;
  const sf = stemFn(o);
  return (t) => terms(t, false, sf);
}

const FNV_BASIS = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;
/** ASCII character classes as `forEachWordSpan` reads them: 0 separator, 1 lower-case, 2 upper-case, 3 digit. */
const ASCII_CLASS = (() => {
  const t = new Uint8Array(128);
  for (let c = 97; c <= 122; c++) t[c] = 1;
  for (let c = 65; c <= 90; c++) t[c] = 2;
  for (let c = 48; c <= 57; c++) t[c] = 3;
  return t;
})();

/** Raw text → term ids in a growing buffer, with a word → id cache (each distinct word is analysed once). */
class TermBuffer {
  readonly termId = new Map<string, number>();
  readonly terms: string[] = [];
  buf = new Int32Array(1 << 16);
  len = 0;
  private readonly wordId = new SpanTable();
  private readonly an: (text: string) => string[];

  constructor(private readonly o: RankOptions) {
    this.an = analyzer(o);
  }

  private idOfTerm(t: string): number {
    let id = this.termId.get(t);
    if (id === undefined) {
      id = this.terms.length;
      this.terms.push(t);
      this.termId.set(t, id);
    }
    return id;
  }

  push(id: number): void {
    if (this.len === this.buf.length) {
      const nb = new Int32Array(this.buf.length * 2);
      nb.set(this.buf);
      this.buf = nb;
    }
    this.buf[this.len++] = id;
  }

  private readonly add = (str: string, s: number, e: number): void => {
    const id = this.wordId.get(str, s, e) ?? this.firstSeen(str, s, e);
    if (id >= 0) this.push(id);
  };

  /** A word not in the table yet: analysed once, its term id (or -1: no single term) remembered. */
  private firstSeen(str: string, s: number, e: number): number {
    const w = str.slice(s, e).toLowerCase();
    const t = this.an(w);
    const id = t.length === 1 ? this.idOfTerm(t[0]!) : -1;
    this.wordId.set(w, id);
    return id;
  }

  /** The word str[s, e) (ASCII; `h` its FNV-1a hash, case folded) → its term id appended. */
  private emit(str: string, s: number, e: number, h: number): void {
    const id = this.wordId.getHashed(str, s, e, h >>> 0) ?? this.firstSeen(str, s, e);
    if (id >= 0) this.push(id);
  }

  /**
   * `forEachWordSpan` + `add` in one loop over text[from, to): the same word boundaries, with each word's table
   * hash computed while it is scanned (no callback, no second pass over the word). ASCII text is read as is; at
   * the first other character the text is lower-cased once (as `forEachWordSpan` does) and words are read from
   * that copy. Returns false when lower-casing changes the text's length (rare Unicode): the caller then drops
   * what was appended and takes the general path.
   */
  private scan(text: string, from: number, to: number): boolean {
    let lower: string | undefined;
    let s = -1;
    let prev = 0;
    let prev2 = 0;
    let h = 0;
    let hPrev = 0;
    for (let i = from; i < to; i++) {
      const c = text.charCodeAt(i);
      let cls: number;
      let hc: number;
      if (c < 128) {
        cls = ASCII_CLASS[c]!;
        hc = cls === 2 ? c + 32 : c;
      } else {
        if (lower === undefined) {
          lower = text.toLowerCase();
          if (lower.length !== text.length) return false;
        }
        cls = (c >= 0xd800 && c <= 0xdfff) || LETTER_OR_DIGIT.test(text[i]!) ? 1 : 0;
        hc = lower.charCodeAt(i);
        if (hc >= 65 && hc <= 90) hc += 32;
      }
      if (cls === 0) {
        if (s >= 0) this.emit(lower ?? text, s, i, h);
        s = -1;
        prev = prev2 = 0;
        continue;
      }
      if (s < 0) (s = i), (h = FNV_BASIS);
      else if ((cls === 3) !== (prev === 3) || (prev === 1 && cls === 2)) {
        this.emit(lower ?? text, s, i, h);
        s = i;
        h = FNV_BASIS;
      } else if (prev === 2 && cls === 1 && prev2 === 2 && i - 1 > s) {
        // ACRONYMWord: the previous capital (ASCII, class 2) starts the next word
        this.emit(lower ?? text, s, i - 1, hPrev);
        s = i - 1;
        h = Math.imul(FNV_BASIS ^ (text.charCodeAt(i - 1) + 32), FNV_PRIME);
      }
      hPrev = h;
      h = Math.imul(h ^ hc, FNV_PRIME);
      prev2 = prev;
      prev = cls;
    }
    if (s >= 0) this.emit(lower ?? text, s, to, h);
    return true;
  }

  /** Analyse text[from, to) (default: all of it) into term ids. */
  analyse(text: string, from = 0, to = text.length): void {
    if (from >= to) return;
    if (this.o.analyzer === "plain") {
      for (const w of plainWords(from === 0 && to === text.length ? text : text.slice(from, to))) this.add(w, 0, w.length);
      return;
    }
    const len0 = this.len;
    if (this.scan(text, from, to)) return;
    this.len = len0;
    forEachWordSpan(from === 0 && to === text.length ? text : text.slice(from, to), this.add);
  }

  /** Append ids cached under `key`, or analyse `text()` once and cache what it appended. */
  copyOrAnalyse(cache: Map<string, ArrayLike<number>>, key: string, text: () => string): void {
    const ids = cache.get(key);
    if (ids) for (let j = 0; j < ids.length; j++) this.push(ids[j]!);
    else {
      const r0 = this.len;
      this.analyse(text());
      cache.set(key, this.buf.slice(r0, this.len));
    }
  }
}

/** The index terms of text[from, to) as the builder reads them (tests check they equal `terms()`). */
export function indexTerms(text: string, o: RankOptions, from = 0, to = text.length): string[] {
  const tb = new TermBuffer(o);
  tb.analyse(text, from, to);
  return Array.from(tb.buf.subarray(0, tb.len), (id) => tb.terms[id]!);
}

/** Field slots: every active field (weight > 0), plus name and server (always kept for the post-scoring factors). */
interface SlotLayout {
  active: FieldName[];
  extra: FieldName[];
  slots: number;
  nameSlot: number;
  serverSlot: number;
  leadSlot: number | undefined;
  descSlot: number | undefined;
}

function slotLayout(o: RankOptions): SlotLayout {
  const active = FIELDS.filter((f) => o.weights[f] > 0);
  const slotOf = new Map<string, number>(active.map((f, k) => [f, k]));
  const extra: FieldName[] = [];
  for (const f of ["name", "server"] as const) if (!slotOf.has(f)) slotOf.set(f, active.length + extra.push(f) - 1);
  return { active, extra, slots: active.length + extra.length, nameSlot: slotOf.get("name")!, serverSlot: slotOf.get("server")!, leadSlot: slotOf.get("lead"), descSlot: slotOf.get("desc") };
}

/** Texts analysed once and shared: per server text, and the lexicon's words per name word. */
interface SharedIds {
  perServer: Map<string, ArrayLike<number>>;
  related: Map<string, ArrayLike<number>>;
}

/** Analyse one tool's fields into the buffer and record each slot's range at `base`. */
function analyseDoc(tb: TermBuffer, doc: SearchDoc, o: RankOptions, lay: SlotLayout, ranges: Int32Array, base: number, shared: SharedIds): void {
  const ft = fieldTexts(doc, o);
  const { leadSlot, descSlot, active } = lay;
  // lead and the rest of the description are analysed back to back, so desc = lead ∪ rest is one range
  if (leadSlot !== undefined || descSlot !== undefined) {
    const s0 = tb.len;
    tb.analyse(ft.desc, 0, ft.lead.length);
    const s1 = tb.len;
    tb.analyse(ft.desc, ft.lead.length);
    if (leadSlot !== undefined) (ranges[base + leadSlot * 2] = s0), (ranges[base + leadSlot * 2 + 1] = s1);
    if (descSlot !== undefined) (ranges[base + descSlot * 2] = s0), (ranges[base + descSlot * 2 + 1] = tb.len);
  }
  for (let k = 0; k < lay.slots; k++) {
    const f = k < active.length ? active[k]! : lay.extra[k - active.length]!;
    if (f === "lead" || f === "desc") continue;
    const s0 = tb.len;
    if (f === "related" && doc.related === undefined) {
      // the lexicon's words for each name word, analysed once per distinct word and then copied as ids
      if (o.relatedFromLexicon || o.learnedRelated) {
        const rev = o.learnedRelated ? reverseAssociations(o.learned) : undefined;
        for (const w of words(ft.name)) tb.copyOrAnalyse(shared.related, w, () => `${o.relatedFromLexicon ? relatedWords(w) : ""} ${rev?.get(stem(w))?.join(" ") ?? ""}`);
      }
    } else if (f === "serverInfo" || f === "server") tb.copyOrAnalyse(shared.perServer, ft[f], () => ft[f]);
    else tb.analyse(ft[f]);
    ranges[base + k * 2] = s0;
    ranges[base + k * 2 + 1] = tb.len;
  }
}

/** The two passes over the analysed buffer: document frequencies, then BM25F pseudo-frequencies in CSR postings, and idf. */
function buildPostings(buf: Int32Array, ranges: Int32Array, nDocs: number, lay: SlotLayout, o: RankOptions, T: number, avg: number[]) {
  const { active, slots } = lay;
  // pass 1: document frequency per term (a term counts once per tool, whatever its fields)
  const df = new Int32Array(T + 1);
  const lastDoc = new Int32Array(T).fill(-1);
  for (let i = 0; i < nDocs; i++) {
    const base = i * slots * 2;
    for (let k = 0; k < active.length; k++) {
      const s1 = ranges[base + k * 2 + 1]!;
      for (let j = ranges[base + k * 2]!; j < s1; j++) {
        const t = buf[j]!;
        if (lastDoc[t] !== i) (lastDoc[t] = i), df[t]!++;
      }
    }
  }
  const postStart = new Int32Array(T + 1);
  for (let t = 0; t < T; t++) postStart[t + 1] = postStart[t]! + df[t]!;
  const postDocs = new Int32Array(postStart[T]!);
  const postTfs = new Float64Array(postStart[T]!);
  const cursor = postStart.slice(0, T);
  // pass 2: per tool, the BM25F pseudo-frequency of each term (field weights and length norms summed), in doc order
  const acc = new Float64Array(T);
  const touched: number[] = [];
  for (let i = 0; i < nDocs; i++) {
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
  const n = Math.max(1, nDocs);
  const idfs = new Float64Array(T);
  for (let t = 0; t < T; t++) {
    const d = df[t]!;
    idfs[t] = Math.log(1 + (n - d + 0.5) / (d + 0.5));
  }
  return { postStart, postDocs, postTfs, idfs };
}

/** Build the index of `docs` with resolved options. */
export function buildIndex(docs: readonly SearchDoc[], o: RankOptions): IndexData {
  const tb = new TermBuffer(o);
  const lay = slotLayout(o);
  const ranges = new Int32Array(docs.length * lay.slots * 2);
  const totals = new Float64Array(lay.active.length);
  const shared: SharedIds = { perServer: new Map(), related: new Map() };
  for (let i = 0; i < docs.length; i++) {
    const base = i * lay.slots * 2;
    analyseDoc(tb, docs[i]!, o, lay, ranges, base, shared);
    for (let k = 0; k < lay.active.length; k++) totals[k] += ranges[base + k * 2 + 1]! - ranges[base + k * 2]!;
  }
  const n = Math.max(1, docs.length);
  const avg = Array.from(totals, (t) => Math.max(1, t / n));
  const { postStart, postDocs, postTfs, idfs } = buildPostings(tb.buf, ranges, docs.length, lay, o, tb.terms.length, avg);
  return {
    termId: tb.termId,
    terms: tb.terms,
    postStart,
    postDocs,
    postTfs,
    idfs,
    vocab: [...tb.terms].sort(),
    buf: tb.buf,
    ranges,
    nameSlot: lay.nameSlot,
    leadSlot: lay.leadSlot ?? -1,
    serverSlot: lay.serverSlot,
    slots: lay.slots,
  };
}
