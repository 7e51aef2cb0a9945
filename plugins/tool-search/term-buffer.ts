/**
 * Text → term ids for the ToolSearch index builder: one pass over a text's characters finds the words (the same
 * boundaries as text.ts `forEachWordSpan`), probes a word → term-id table with the span (no substring for a word
 * already seen; ASCII case folded while hashing) and appends ids to one growing buffer. Texts shared by many tools are
 * analysed once and copied within the buffer.
 */
import { stem, lightStem, terms, forEachWordSpan, SpanTable, LETTER_OR_DIGIT, lowerWord } from "./text.ts";
import type { RankOptions } from "./options.ts";

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

/** ASCII character classes as `forEachWordSpan` reads them: 0 separator, 1 lower-case, 2 upper-case, 3 digit. */
const ASCII_CLASS = (() => {
  const t = new Uint8Array(128);
  for (let c = 97; c <= 122; c++) t[c] = 1;
  for (let c = 65; c <= 90; c++) t[c] = 2;
  for (let c = 48; c <= 57; c++) t[c] = 3;
  return t;
})();

/** Other UTF-16 code units: 1 letter/digit/mark (surrogates count as letters, as in text.ts), 0 separator; 2 = not looked up yet. */
const OTHER_CLASS = new Uint8Array(65536).fill(2);
function otherClass(text: string, i: number, c: number): number {
  let k = OTHER_CLASS[c]!;
  if (k === 2) OTHER_CLASS[c] = k = (c >= 0xd800 && c <= 0xdfff) || LETTER_OR_DIGIT.test(text[i]!) ? 1 : 0;
  return k;
}

/** A trie node's value: a term id, NO_TERM (the word is a stop word or not one term), or NOT_A_WORD (a prefix only). */
const NO_TERM = -1;
const NOT_A_WORD = -2;
/** The trie's walk state for a word that left it (a letter not in the trie, a digit, a non-ASCII character). */
const OFF = -1;

/** Raw text → term ids in a growing buffer, with a word → id cache (each distinct word is analysed once). */
export class TermBuffer {
  readonly termId = new Map<string, number>();
  readonly terms: string[] = [];
  buf = new Int32Array(1 << 16);
  len = 0;
  /**
   * Words of ASCII letters (case folded) → term id: a trie walked one character at a time while the scanner reads the
   * word, so a known word costs one array read per character and no hashing, comparing or substring. Node 0 is the
   * root; `kids[node * 26 + letter]` is a child (0 = none) and `vals[node]` its value. Other words (digits,
   * non-ASCII) go through the span-keyed hash table.
   */
  private kids = new Int32Array(26 * 4096);
  private vals = new Int32Array(4096).fill(NOT_A_WORD);
  private nodes = 1;
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

  /** Append an index term (already analysed: a stem) as is. */
  pushTerm(t: string): void {
    this.push(this.idOfTerm(t));
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
    const id = t.length === 1 ? this.idOfTerm(t[0]!) : NO_TERM;
    this.wordId.set(w, id);
    return id;
  }

  /** The word str[s, e) ended with the trie walk at `node` (OFF: it left the trie) → its term id appended. */
  private emit(str: string, s: number, e: number, node: number): void {
    let id = node > 0 ? this.vals[node]! : NOT_A_WORD;
    if (id === NOT_A_WORD) id = this.unknown(str, s, e);
    if (id >= 0) this.push(id);
  }

  /** A word the trie does not hold: a new word of ASCII letters is analysed and added; any other goes by the hash table. */
  private unknown(str: string, s: number, e: number): number {
    for (let i = s; i < e; i++) {
      const c = str.charCodeAt(i) | 32;
      if (c < 97 || c > 122) return this.wordId.get(str, s, e) ?? this.firstSeen(str, s, e);
    }
    const w = str.slice(s, e).toLowerCase();
    const t = this.an(w);
    const id = t.length === 1 ? this.idOfTerm(t[0]!) : NO_TERM;
    let node = 0;
    for (let i = 0; i < w.length; i++) {
      const k = node * 26 + w.charCodeAt(i) - 97;
      let next = this.kids[k]!;
      if (next === 0) {
        next = this.newNode();
        this.kids[k] = next;
      }
      node = next;
    }
    this.vals[node] = id;
    return id;
  }

  private newNode(): number {
    if (this.nodes === this.vals.length) {
      const kids = new Int32Array(this.kids.length * 2);
      kids.set(this.kids);
      this.kids = kids;
      const vals = new Int32Array(this.vals.length * 2).fill(NOT_A_WORD);
      vals.set(this.vals);
      this.vals = vals;
    }
    return this.nodes++;
  }

  /**
   * `forEachWordSpan` + `add` in one loop over text[from, to): the same word boundaries, with each word of ASCII
   * letters walked down the trie while it is scanned (no callback, no second pass over the word). ASCII text is read
   * as is; at the first other character the text is lower-cased once (as `forEachWordSpan` does) and words are read
   * from that copy. Returns false when lower-casing changes the text's length (rare Unicode): the caller then drops
   * what was appended and takes the general path.
   */
  private scan(text: string, from: number, to: number): boolean {
    let lower: string | undefined;
    let s = -1;
    let prev = 0;
    let prev2 = 0;
    let node = 0;
    let nodePrev = 0;
    // (emit may grow the trie: `kids` is read again after each word)
    let kids = this.kids;
    for (let i = from; i < to; i++) {
      const c = text.charCodeAt(i);
      let cls: number;
      if (c < 128) cls = ASCII_CLASS[c]!;
      else {
        if (lower === undefined) {
          lower = text.toLowerCase();
          if (lower.length !== text.length) return false;
        }
        cls = otherClass(text, i, c);
      }
      if (cls === 0) {
        if (s >= 0) this.emit(lower ?? text, s, i, node), (kids = this.kids);
        s = -1;
        prev = prev2 = 0;
        continue;
      }
      if (s < 0) (s = i), (node = 0);
      else if ((cls === 3) !== (prev === 3) || (prev === 1 && cls === 2)) {
        this.emit(lower ?? text, s, i, node);
        kids = this.kids;
        s = i;
        node = 0;
      } else if (prev === 2 && cls === 1 && prev2 === 2 && i - 1 > s) {
        // ACRONYMWord: the previous capital (ASCII, class 2) starts the next word
        this.emit(lower ?? text, s, i - 1, nodePrev);
        kids = this.kids;
        s = i - 1;
        node = kids[text.charCodeAt(i - 1) - 65]! || OFF;
      }
      nodePrev = node;
      // one step down the trie: ASCII letters only (a digit or another character leaves it)
      if (node !== OFF) node = c < 128 && cls !== 3 ? kids[node * 26 + (c | 32) - 97]! || OFF : OFF;
      prev2 = prev;
      prev = cls;
      // the rest of a run of ASCII lower-case letters (most characters): no boundary can fall inside it
      if (cls === 1 && c < 128) {
        const i0 = i;
        let d: number;
        while (i + 1 < to && (d = text.charCodeAt(i + 1) - 97) >= 0 && d < 26) {
          if (node !== OFF) node = kids[node * 26 + d]! || OFF;
          i++;
        }
        if (i > i0) prev2 = 1;
      }
    }
    if (s >= 0) this.emit(lower ?? text, s, to, node);
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

  /** Where each cached text's ids already are in this buffer: [start, end) of span k (no copy per text). */
  private readonly spans: number[] = [];

  /**
   * Append the ids of the text cached under `key` (span k of `cache`), or analyse `text` once and remember where
   * its ids went: a repeat is a copy within the buffer, with no array per cached text.
   */
  copyOrAnalyse(cache: Map<string, number>, key: string, text: string | (() => string)): void {
    const k = cache.get(key);
    if (k === undefined) {
      const r0 = this.len;
      this.analyse(typeof text === "string" ? text : text());
      cache.set(key, this.spans.length >> 1);
      this.spans.push(r0, this.len);
      return;
    }
    const s0 = this.spans[k * 2]!;
    const n = this.spans[k * 2 + 1]! - s0;
    if (this.len + n > this.buf.length) {
      let size = this.buf.length * 2;
      while (size < this.len + n) size *= 2;
      const nb = new Int32Array(size);
      nb.set(this.buf.subarray(0, this.len));
      this.buf = nb;
    }
    const buf = this.buf;
    if (n < 16) for (let j = 0; j < n; j++) buf[this.len + j] = buf[s0 + j]!;
    else buf.copyWithin(this.len, s0, s0 + n);
    this.len += n;
  }
}

/** The index terms of text[from, to) as the builder reads them (tests check they equal `terms()`). */
export function indexTerms(text: string, o: RankOptions, from = 0, to = text.length): string[] {
  const tb = new TermBuffer(o);
  tb.analyse(text, from, to);
  return Array.from(tb.buf.subarray(0, tb.len), (id) => tb.terms[id]!);
}
