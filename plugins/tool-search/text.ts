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

const WORD = /[\p{L}\p{N}]+/gu;

/** Split text (prose or identifiers) into lower-case words, camelCase and digit runs separated. */
export function words(text: string): string[] {
  const out: string[] = [];
  if (!text) return out;
  for (const m of text.matchAll(WORD)) {
    const w = m[0];
    // camelCase / PascalCase / ACRONYMWord / letter-digit boundaries
    const parts = w
      .replace(/([a-z])([A-Z])/g, "$1 $2")
      .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
      .replace(/([A-Za-z])(\d)/g, "$1 $2")
      .replace(/(\d)([A-Za-z])/g, "$1 $2")
      .split(" ");
    for (const p of parts) if (p) out.push(p.toLowerCase());
  }
  return out;
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
