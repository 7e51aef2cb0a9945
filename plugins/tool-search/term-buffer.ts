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
export class TermBuffer {
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
