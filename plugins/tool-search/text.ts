/**
 * Text analysis for ToolSearch: split identifiers and prose into words, drop stop words, stem.
 * Identifiers split on `__`, `_`, `-`, `.`, `/`, camelCase and letter/digit boundaries, so
 * `mcp__github__create_pull_request`, `createPullRequest` and `browser_take_screenshot` all yield words.
 */
import { stemmer } from "stemmer";

/** Words that carry no search intent in tool queries or descriptions. */
export const STOP_WORDS = new Set(
  (
    "a an the and or but if then else of to in on at by for with from into onto over under about as is are was were be been being " +
    "it its this that these those there here i me my mine we our ours you your yours he she they them their his her " +
    "do does did doing done have has had having can could would should will shall may might must " +
    "not no so than too very just also only any some all each every both either neither other such same own " +
    "what which who whom whose when where why how " +
    "please need needs want wants like would let lets using use via tool tools help " +
    "s t d ll m re ve e g eg ie etc"
  ).split(/\s+/),
);

const stemCache = new Map<string, string>();

/** A light stemmer: plural and common verb endings only (keeps "screenshot"/"snapshot" distinct, unlike Porter's conflations). */
export function lightStem(w: string): string {
  if (w.length <= 3 || /\d/.test(w)) return w;
  if (w.endsWith("ies") && w.length > 4) return w.slice(0, -3) + "y";
  if (w.endsWith("sses")) return w.slice(0, -2);
  if (/(xes|ches|shes|zes)$/.test(w)) return w.slice(0, -2);
  if (w.endsWith("s") && !/(ss|us|is)$/.test(w)) return w.slice(0, -1);
  if (w.endsWith("ing") && w.length > 5) {
    const b = w.slice(0, -3);
    return /([^aeiou])\1$/.test(b) && !/(ll|ss|zz)$/.test(b) ? b.slice(0, -1) : b;
  }
  if (w.endsWith("ed") && w.length > 4) {
    const b = w.slice(0, -2);
    return /([^aeiou])\1$/.test(b) && !/(ll|ss|zz)$/.test(b) ? b.slice(0, -1) : b;
  }
  return w;
}

/** Porter stem with a cache (vocabularies are small; stemming dominates analysis time otherwise). */
export function stem(word: string): string {
  let s = stemCache.get(word);
  if (s === undefined) {
    s = word.length <= 3 || /\d/.test(word) ? word : stemmer(word);
    if (stemCache.size > 200_000) stemCache.clear();
    stemCache.set(word, s);
  }
  return s;
}

/** Word characters beyond ASCII: letters, digits and combining marks (a Devanagari vowel sign, the dot of "i̇") belong to their word. */
export const LETTER_OR_DIGIT = /[\p{L}\p{M}\p{N}]/u;

/** 0 separator, 1 lower-case/other letter, 2 upper-case, 3 digit. */
function classOf(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c >= 97 && c <= 122) return 1;
  if (c >= 65 && c <= 90) return 2;
  if (c >= 48 && c <= 57) return 3;
  if (c < 128) return 0;
  if (c >= 0xd800 && c <= 0xdfff) return 1;
  return LETTER_OR_DIGIT.test(text[i]!) ? 1 : 0;
}

/**
 * Split text (prose or identifiers) into lower-case words: separators are anything but letters and
 * digits; camelCase, ACRONYMWord and letter/digit boundaries split too. One pass over char codes
 * (this is the hot loop of index building).
 */
export function words(text: string): string[] {
  const out: string[] = [];
  forEachWord(text, (w) => out.push(w));
  return out;
}

/** `words` without the array: calls `fn` with each lower-case word. */
export function forEachWord(text: string, fn: (w: string) => void): void {
  forEachWordSpan(text, (str, s, e) => fn(str.slice(s, e).toLowerCase()));
}

const NON_ASCII = /[^\x00-\x7f]/;

/**
 * The tokenizer core: calls `fn(str, start, end)` for each word. `str` is the text itself when it is
 * ASCII (the word may have upper-case letters: fold ASCII case when reading it) or a lower-cased copy.
 * Lets a caller look words up without allocating a string each.
 */
export function forEachWordSpan(text: string, fn: (str: string, start: number, end: number) => void): void {
  if (!text) return;
  const n = text.length;
  let lower = text;
  if (NON_ASCII.test(text)) {
    lower = text.toLowerCase();
    if (lower.length !== n) {
      for (const w of wordsSlow(text)) fn(w, 0, w.length);
      return;
    }
  }
  let s = -1;
  let prev = 0;
  let prev2 = 0;
  for (let i = 0; i < n; i++) {
    const cls = classOf(text, i);
    if (cls === 0) {
      if (s >= 0) fn(lower, s, i);
      s = -1;
      prev = prev2 = 0;
      continue;
    }
    if (s < 0) s = i;
    else if ((cls === 3) !== (prev === 3) || (prev === 1 && cls === 2)) {
      fn(lower, s, i);
      s = i;
    } else if (prev === 2 && cls === 1 && prev2 === 2 && i - 1 > s) {
      fn(lower, s, i - 1);
      s = i - 1;
    }
    prev2 = prev;
    prev = cls;
  }
  if (s >= 0) fn(lower, s, n);
}

/**
 * word → value table probed with a span of a string (no substring allocated on a hit): open addressing
 * on an FNV-1a hash of the span's char codes.
 */
export class SpanTable {
  // Open addressing over typed arrays: per slot the key's full hash, its start in `pool` (the keys' char codes, one
  // after another) and length, and the value — a probe compares hashes first and reads contiguous char codes on a
  // hash match, instead of following a pointer to a string per probe (≈ 25% of the 10k-tool index build before).
  private hashes: Int32Array;
  private offs: Int32Array;
  private lens: Int32Array;
  private vals: Int32Array;
  private pool = new Uint16Array(1 << 16);
  private poolLen = 0;
  private mask: number;
  private count = 0;
  constructor(capacityPow2 = 1 << 14) {
    this.hashes = new Int32Array(capacityPow2);
    this.offs = new Int32Array(capacityPow2);
    this.lens = new Int32Array(capacityPow2).fill(-1);
    this.vals = new Int32Array(capacityPow2);
    this.mask = capacityPow2 - 1;
  }
  /** FNV-1a over char codes with ASCII upper-case folded to lower-case. */
  private static hash(str: string, s: number, e: number): number {
    let h = 0x811c9dc5;
    for (let i = s; i < e; i++) {
      const c = str.charCodeAt(i);
      h = Math.imul(h ^ (c >= 65 && c <= 90 ? c + 32 : c), 0x01000193);
    }
    return h >>> 0;
  }
  /** The value for str[s, e) (ASCII case-insensitive; keys are lower-case), or undefined. */
  get(str: string, s: number, e: number): number | undefined {
    return this.getHashed(str, s, e, SpanTable.hash(str, s, e));
  }
  /** `get` with the span's hash already computed (FNV-1a as `hash`, e.g. while a scanner read the span). */
  getHashed(str: string, s: number, e: number, hash: number): number | undefined {
    const len = e - s;
    const h = hash | 0;
    const { hashes, lens, offs, pool, mask } = this;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const l = lens[i]!;
      if (l < 0) return undefined;
      if (l === len && hashes[i] === h) {
        const o = offs[i]!;
        let j = 0;
        while (j < len) {
          const c = str.charCodeAt(s + j);
          if (pool[o + j] !== (c >= 65 && c <= 90 ? c + 32 : c)) break;
          j++;
        }
        if (j === len) return this.vals[i];
      }
    }
  }
  set(key: string, val: number): void {
    if ((this.count + 1) * 2 > this.lens.length) this.grow();
    const h = SpanTable.hash(key, 0, key.length) | 0;
    for (let i = h & this.mask; ; i = (i + 1) & this.mask) {
      const l = this.lens[i]!;
      if (l < 0) {
        if (this.poolLen + key.length > this.pool.length) {
          const np = new Uint16Array(Math.max(this.pool.length * 2, this.poolLen + key.length));
          np.set(this.pool.subarray(0, this.poolLen));
          this.pool = np;
        }
        for (let j = 0; j < key.length; j++) this.pool[this.poolLen + j] = key.charCodeAt(j);
        this.hashes[i] = h;
        this.offs[i] = this.poolLen;
        this.lens[i] = key.length;
        this.vals[i] = val;
        this.poolLen += key.length;
        this.count++;
        return;
      }
      if (l === key.length && this.hashes[i] === h && this.keyAt(i) === key) {
        this.vals[i] = val;
        return;
      }
    }
  }
  private keyAt(i: number): string {
    return String.fromCharCode(...this.pool.subarray(this.offs[i]!, this.offs[i]! + this.lens[i]!));
  }
  private grow(): void {
    const { hashes, offs, lens, vals } = this;
    const size = lens.length * 2;
    this.hashes = new Int32Array(size);
    this.offs = new Int32Array(size);
    this.lens = new Int32Array(size).fill(-1);
    this.vals = new Int32Array(size);
    this.mask = size - 1;
    for (let k = 0; k < lens.length; k++) {
      if (lens[k]! < 0) continue;
      let i = hashes[k]! & this.mask;
      while (this.lens[i]! >= 0) i = (i + 1) & this.mask;
      this.hashes[i] = hashes[k]!;
      this.offs[i] = offs[k]!;
      this.lens[i] = lens[k]!;
      this.vals[i] = vals[k]!;
    }
  }
}

/** Texts whose lower-casing changes length (rare Unicode): split per original word, then lower-case. */
function wordsSlow(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/[\p{L}\p{M}\p{N}]+/gu)) {
    const parts = m[0]
      .replace(/(\p{Ll})(\p{Lu})/gu, "$1 $2")
      .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, "$1 $2")
      .replace(/(\p{L})(\p{N})/gu, "$1 $2")
      .replace(/(\p{N})(\p{L})/gu, "$1 $2")
      .split(" ");
    for (const p of parts) if (p) out.push(lowerWord(p));
  }
  return out;
}

/**
 * Lower case as a search box means it: "İ" lower-cases to "i" plus a combining dot (U+0307), which no
 * one types, so that dot is dropped ("İstanbul" → "istanbul", the word the query "istanbul" finds).
 */
export function lowerWord(w: string): string {
  const l = w.toLowerCase();
  return l.length === w.length ? l : l.replace(/i\u0307/g, "i");
}

/** Words → index terms: stop words dropped, stemmed. */
export function terms(text: string, keepStop = false, stemFn: (w: string) => string = stem): string[] {
  const out: string[] = [];
  for (const w of words(text)) {
    if (!keepStop && STOP_WORDS.has(w)) continue;
    out.push(stemFn(w));
  }
  return out;
}
