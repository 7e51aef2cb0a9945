/**
 * Index build for ToolSearch ranking: tool fields → term ids → BM25F postings.
 *
 * Every field of every tool is analysed once into one buffer of term ids (`ranges` holds [start, end)
 * per (tool, field slot)); texts shared by many tools (a server's name and description, the lexicon's
 * words for a name word) are analysed once and copied as ids. Then two passes over that buffer give
 * each term's document frequency and, per tool, its BM25F pseudo-frequency (field weights and length
 * norms summed) in one CSR postings layout.
 */
import { stem, words } from "./text.ts";
import { TermBuffer } from "./term-buffer.ts";
import { relatedWords } from "./lexicon.ts";
import { associations, reverseAssociations, toolSideAssociations } from "./learned.ts";
import { FIELDS, type FieldName, type RankOptions, type SearchDoc } from "./options.ts";

export { indexTerms, plainWords, stemFn } from "./term-buffer.ts";

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
  /** Slot of each field that has one (active fields, plus name and server): the reranker reads single fields. */
  readonly fieldSlot: Readonly<Partial<Record<FieldName, number>>>;
  /**
   * Compact copies for the per-tool factors of a query (they touch most tools, in posting order): each tool's name
   * term ids (`nameBuf[nameStart[i] .. nameStart[i + 1])`) and its server's number, whose server-field term ids are
   * `serverBuf[serverStart[s] .. serverStart[s + 1])` — small arrays instead of a cache miss per tool in `buf`.
   */
  readonly nameStart: Int32Array;
  readonly nameBuf: Int32Array;
  readonly docServer: Int32Array;
  readonly serverStart: Int32Array;
  readonly serverBuf: Int32Array;
}

/** The compact name and server arrays of IndexData from the analysed buffer. */
function compactFactors(buf: Int32Array, ranges: Int32Array, serverKeys: readonly string[], lay: SlotLayout) {
  const n = serverKeys.length;
  const nameStart = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    const b = (i * lay.slots + lay.nameSlot) * 2;
    nameStart[i + 1] = nameStart[i]! + ranges[b + 1]! - ranges[b]!;
  }
  const nameBuf = new Int32Array(nameStart[n]!);
  const docServer = new Int32Array(n);
  const serverIds = new Map<string, number>();
  const sStart = [0];
  const sBuf: number[] = [];
  for (let i = 0; i < n; i++) {
    const b = (i * lay.slots + lay.nameSlot) * 2;
    nameBuf.set(buf.subarray(ranges[b]!, ranges[b + 1]!), nameStart[i]!);
    let id = serverIds.get(serverKeys[i]!);
    if (id === undefined) {
      serverIds.set(serverKeys[i]!, (id = serverIds.size));
      const sb = (i * lay.slots + lay.serverSlot) * 2;
      for (let j = ranges[sb]!; j < ranges[sb + 1]!; j++) sBuf.push(buf[j]!);
      sStart.push(sBuf.length);
    }
    docServer[i] = id;
  }
  return { nameStart, nameBuf, docServer, serverStart: Int32Array.from(sStart), serverBuf: Int32Array.from(sBuf) };
}

export function shortNameOf(name: string, server?: string): string {
  const m = /^mcp__(.+?)__(.+)$/.exec(name);
  if (m) return m[2]!;
  if (server && name.startsWith(server + "__")) return name.slice(server.length + 2);
  return name;
}

/** Field texts of one tool; `paramDescs` are the pieces `paramDesc` joins and `params` the names `params` joins with spaces (each analysed one by one, see analyseDoc). */
function fieldTexts(d: SearchDoc, o: RankOptions): Record<Exclude<FieldName, "params">, string> & { params: string[]; paramDescs: string[]; leadLen: number } {
  const desc = (d.description ?? "").slice(0, o.maxDescChars);
  const params: string[] = [];
  const paramDesc: string[] = [];
  collectParams(d.inputSchema, params, paramDesc, 0);
  return {
    paramDescs: paramDesc,
    params,
    name: d.shortName ?? shortNameOf(d.name, d.server),
    server: d.server ?? /^mcp__(.+?)__/.exec(d.name)?.[1] ?? "",
    serverInfo: (d.serverDescription ?? "").slice(0, 2048),
    hint: d.searchHint ?? "",
    lead: "",
    leadLen: leadLength(desc),
    desc,
    paramDesc: "",
    // (from the lexicon: filled per name word, with cached term ids, by the index builder)
    related: d.related ?? "",
    expansion: "",
  };
}

/** `\s` of a JavaScript regular expression, by char code. */
function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || (c >= 128 && (c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff));
}

/** Length of the first sentence, as `/^[\s\S]*?[.!?](\s|$)/` matches it (the whole text when nothing does). */
export function leadLength(desc: string): number {
  const n = desc.length;
  for (let i = 0; i < n; i++) {
    const c = desc.charCodeAt(i);
    if (c === 46 || c === 33 || c === 63) {
      if (i + 1 === n) return n;
      if (isSpace(desc.charCodeAt(i + 1))) return i + 2;
    }
  }
  return n;
}

/**
 * Parameter names and their descriptions / enum values, in schema order, three levels deep (properties, items,
 * anyOf / oneOf / allOf). Each schema object's keys are read with one for-in and a switch: schemas come in many
 * shapes, and a named read of an absent key on each (`anyOf`, `enum` …) was most of this walk's cost.
 */
function collectParams(schema: unknown, names: string[], descs: string[], depth: number): void {
  if (!schema || typeof schema !== "object" || depth > 3) return;
  const s = schema as Record<string, unknown>;
  let props: unknown, anyOf: unknown, oneOf: unknown, allOf: unknown;
  for (const k in s) {
    switch (k) {
      case "properties": props = s[k]; break;
      case "anyOf": anyOf = s[k]; break;
      case "oneOf": oneOf = s[k]; break;
      case "allOf": allOf = s[k]; break;
    }
  }
  if (props && typeof props === "object") {
    const ps = props as Record<string, unknown>;
    for (const k in ps) {
      const v = ps[k];
      names.push(k);
      if (!v || typeof v !== "object") continue;
      const p = v as Record<string, unknown>;
      let description: unknown, en: unknown, items: unknown;
      let nested = false;
      for (const q in p) {
        switch (q) {
          case "description": description = p[q]; break;
          case "enum": en = p[q]; break;
          case "items": items = p[q]; break;
          case "properties": case "anyOf": case "oneOf": case "allOf": nested = true; break;
        }
      }
      if (typeof description === "string") descs.push(description.slice(0, 300));
      if (Array.isArray(en)) descs.push(en.filter((e) => typeof e === "string").join(" "));
      if (nested) collectParams(p, names, descs, depth + 1);
      if (items) collectParams(items, names, descs, depth + 1);
    }
  }
  for (const x of [anyOf, oneOf, allOf]) if (Array.isArray(x)) for (const y of x) collectParams(y, names, descs, depth + 1);
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

/** Texts analysed once and shared: per server text, the lexicon's words per name word, and per server its parameter descriptions. */
interface SharedIds {
  perServer: Map<string, number>;
  related: Map<string, number>;
  paramDescs: Map<string, Map<string, number>>;
}

/**
 * The parameter descriptions as the text `pieces.join(" ").slice(0, max)` reads, one piece at a time: a piece
 * another tool of the same server already had (owner, repo, page … — about a fifth of the description text of real
 * servers) is copied as ids. The pieces are word-separated, so the terms are those of the joined text.
 */
function analyseParamDescs(tb: TermBuffer, pieces: readonly string[], max: number, cache: Map<string, number>): void {
  let pos = 0;
  for (const piece of pieces) {
    if (pos >= max) break;
    if (piece.length <= max - pos) tb.copyOrAnalyse(cache, piece, piece);
    else tb.analyse(piece, 0, max - pos);
    pos += piece.length + 1;
  }
}

/**
 * The expansion field: query terms the learned table associates with the tool's name and first-sentence terms
 * (already in the buffer), strengths summed over those terms, the best `expansionTopK` that the tool does not have.
 */
function expansionTerms(tb: TermBuffer, o: RankOptions, ranges: Int32Array, base: number, lay: SlotLayout): void {
  const side = toolSideAssociations(o.learned ?? associations());
  const own = new Set<string>();
  const acc = new Map<string, number>();
  for (const slot of [lay.nameSlot, lay.leadSlot]) {
    if (slot === undefined) continue;
    for (let j = ranges[base + slot * 2]!; j < ranges[base + slot * 2 + 1]!; j++) own.add(tb.terms[tb.buf[j]!]!);
  }
  for (const u of own) for (const [q, s] of side.get(u) ?? []) if (!own.has(q)) acc.set(q, (acc.get(q) ?? 0) + s);
  const best = [...acc].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, o.expansionTopK);
  for (const [q] of best) tb.pushTerm(q);
}

/** Analyse one tool's fields into the buffer and record each slot's range at `base`; returns the server field's text. */
function analyseDoc(tb: TermBuffer, doc: SearchDoc, o: RankOptions, lay: SlotLayout, ranges: Int32Array, base: number, shared: SharedIds): string {
  const ft = fieldTexts(doc, o);
  const { leadSlot, descSlot, active } = lay;
  // lead and the rest of the description are analysed back to back, so desc = lead ∪ rest is one range
  if (leadSlot !== undefined || descSlot !== undefined) {
    const s0 = tb.len;
    tb.analyse(ft.desc, 0, ft.leadLen);
    const s1 = tb.len;
    tb.analyse(ft.desc, ft.leadLen);
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
    } else if (f === "expansion") {
      expansionTerms(tb, o, ranges, base, lay);
    } else if (f === "serverInfo" || f === "server") tb.copyOrAnalyse(shared.perServer, ft[f], ft[f]);
    else if (f === "paramDesc") {
      let cache = shared.paramDescs.get(ft.server);
      if (!cache) shared.paramDescs.set(ft.server, (cache = new Map()));
      analyseParamDescs(tb, ft.paramDescs, o.maxDescChars, cache);
    } else if (f === "params") {
      // the names are word-separated, so each one's terms are those of the joined text
      for (const p of ft.params) tb.analyse(p);
    } else tb.analyse(ft[f]);
    ranges[base + k * 2] = s0;
    ranges[base + k * 2 + 1] = tb.len;
  }
  return ft.server;
}

/**
 * Postings from the analysed buffer: one pass over it gives, per tool, each term's BM25F pseudo-frequency (field
 * weights and length norms summed; pairs kept in doc order) and each term's document frequency; the pairs are then
 * placed into CSR postings by term, and idf computed.
 */
function buildPostings(buf: Int32Array, ranges: Int32Array, nDocs: number, lay: SlotLayout, o: RankOptions, T: number, avg: number[]) {
  const { active, slots } = lay;
  const nActive = active.length;
  const incW = active.map((f) => o.weights[f]);
  const incB = active.map((f) => o.b[f]);
  const df = new Int32Array(T + 1);
  // (tool, term) pairs in tool order: at most one per analysed id
  let pairsMax = 0;
  for (let i = 0; i < nDocs; i++) {
    const base = i * slots * 2;
    for (let k = 0; k < nActive; k++) pairsMax += ranges[base + k * 2 + 1]! - ranges[base + k * 2]!;
  }
  const pairT = new Int32Array(pairsMax);
  const pairTf = new Float64Array(pairsMax);
  const docEnd = new Int32Array(nDocs);
  let np = 0;
  const acc = new Float64Array(T);
  for (let i = 0; i < nDocs; i++) {
    const base = i * slots * 2;
    const p0 = np;
    for (let k = 0; k < nActive; k++) {
      const s0 = ranges[base + k * 2]!;
      const s1 = ranges[base + k * 2 + 1]!;
      if (s1 === s0) continue;
      const bk = incB[k]!;
      const inc = incW[k]! / (1 - bk + bk * ((s1 - s0) / avg[k]!));
      for (let j = s0; j < s1; j++) {
        const t = buf[j]!;
        if (acc[t] === 0) pairT[np++] = t;
        acc[t] += inc;
      }
    }
    for (let x = p0; x < np; x++) {
      const t = pairT[x]!;
      pairTf[x] = acc[t]!;
      acc[t] = 0;
      df[t]!++;
    }
    docEnd[i] = np;
  }
  const postStart = new Int32Array(T + 1);
  for (let t = 0; t < T; t++) postStart[t + 1] = postStart[t]! + df[t]!;
  const postDocs = new Int32Array(postStart[T]!);
  const postTfs = new Float64Array(postStart[T]!);
  const cursor = postStart.slice(0, T);
  for (let i = 0, x = 0; i < nDocs; i++) {
    for (const e = docEnd[i]!; x < e; x++) {
      const c = cursor[pairT[x]!]!++;
      postDocs[c] = i;
      postTfs[c] = pairTf[x]!;
    }
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
  const shared: SharedIds = { perServer: new Map(), related: new Map(), paramDescs: new Map() };
  const serverKeys: string[] = [];
  for (let i = 0; i < docs.length; i++) {
    const base = i * lay.slots * 2;
    serverKeys.push(analyseDoc(tb, docs[i]!, o, lay, ranges, base, shared));
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
    fieldSlot: Object.fromEntries([...lay.active, ...lay.extra].map((f, k) => [f, k])),
    ...compactFactors(tb.buf, ranges, serverKeys, lay),
  };
}
