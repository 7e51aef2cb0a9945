/**
 * A necessary condition for the Bash rules of one list, compiled once per list: one regex that is the union
 * of every Bash rule's pattern (per flag set), and the program heads of their grammar forms. When no text
 * of a segment matches the union and no segment's program is among those heads, no Bash rule of the list
 * can hit it, and the per-rule loops — which pick the first rule in order and say what it matched — are
 * skipped; otherwise they run unchanged. Decisions are the same either way; a typical call that no rule
 * covers pays a few regex tests instead of (rules × segments × texts).
 */
import path from "node:path";
import type { Segment } from "./bash.ts";
import { pathMatcher, type CallFacts } from "./match.ts";
import { canonCached } from "./pattern.ts";
import type { ParsedRule } from "./rule.ts";

interface BashIndex {
  /** The list the index was built from, and its length then (a list grown in place is indexed again). */
  size: number;
  unions: RegExp[];
  /** `git push`, `rm`: heads of the rules' grammar forms (any program may hit when a form has none). */
  heads: Set<string>;
  /** Their program names (`git`, `rm`): a cheap first test before the command's canonical form. */
  programs: Set<string>;
  any: boolean;
}

const cache = new WeakMap<readonly { rule: ParsedRule }[], BashIndex>();

function indexOf(list: readonly { rule: ParsedRule }[]): BashIndex {
  const hit = cache.get(list);
  if (hit && hit.size === list.length) return hit;
  const byFlags = new Map<string, string[]>();
  const heads = new Set<string>();
  const programs = new Set<string>();
  let any = false;
  for (const { rule } of list) {
    if (rule.kind !== "bash" || !rule.bash) continue;
    any = true;
    const re = rule.bash.re;
    byFlags.set(re.flags, [...(byFlags.get(re.flags) ?? []), re.source]);
    if (rule.bash.flagForm) {
      heads.add(rule.bash.flagForm.head.join(" "));
      programs.add(rule.bash.flagForm.head[0]!);
    }
  }
  const unions = [...byFlags].map(([flags, srcs]) => new RegExp(srcs.map((s) => `(?:${s})`).join("|"), flags));
  const ix = { size: list.length, unions, heads, programs, any };
  cache.set(list, ix);
  return ix;
}

function textHits(ix: BashIndex, t: string): boolean {
  for (const u of ix.unions) if (u.test(t)) return true;
  return false;
}

function headHits(ix: BashIndex, words: readonly string[]): boolean {
  const w0 = words[0];
  if (!ix.heads.size || w0 === undefined || !ix.programs.has(w0.slice(w0.lastIndexOf("/") + 1))) return false;
  const c = canonCached(words);
  return !!c && ix.heads.has(c.head.join(" "));
}

/** May some Bash rule of `list` hit one of `segs` as a deny/ask rule does (any deny text, or the grammar form)? */
export function bashMayHit(list: readonly { rule: ParsedRule }[], segs: readonly Segment[]): boolean {
  const ix = indexOf(list);
  if (!ix.any) return false;
  for (const s of segs) {
    for (const t of s.denyTexts) if (textHits(ix, t)) return true;
    if (headHits(ix, s.words)) return true;
  }
  return false;
}

/** May some Bash rule of `list` hit a word list that follows an unknown program (suspects) in `segs`? */
export function suspectMayHit(list: readonly { rule: ParsedRule }[], segs: readonly Segment[]): boolean {
  const ix = indexOf(list);
  if (!ix.any) return false;
  for (const s of segs) for (const t of s.suspects) if (textHits(ix, t) || headHits(ix, t.split(" "))) return true;
  return false;
}

/** May some Bash rule of `list` approve this segment (its text or its source text matches a pattern)? */
export function allowMayHit(list: readonly { rule: ParsedRule }[], s: Segment): boolean {
  const ix = indexOf(list);
  return ix.any && (textHits(ix, s.text) || textHits(ix, s.rawText));
}

/**
 * May some path rule of `list` hit a path a Bash command reads or writes, as deny/ask rules test them
 * (the path as written or where it leads)? One case-insensitive union of the rules' matchers for this
 * working directory: a superset of what each rule matches, case-folded or not.
 */
export function bashPathMayHit(list: readonly { rule: ParsedRule; rulesRoot: string }[], f: CallFacts, behavior: "deny" | "ask"): boolean {
  const paths: string[] = [];
  for (const m of [f.segReads, f.segWrites]) for (const ps of m?.values() ?? []) for (const p of ps) paths.push(posix(p.abs), posix(p.real));
  // a path rule hits a Bash command only through a path it reads or writes
  if (!paths.length) return false;
  let byCwd = pathUnions.get(list);
  if (!byCwd || byCwd.size !== list.length) pathUnions.set(list, (byCwd = { size: list.length, m: new Map() }));
  const key = `${behavior}\0${f.cwd}`;
  let u = byCwd.m.get(key);
  if (u === undefined) {
    u = pathUnion(list, f.cwd, behavior);
    if (byCwd.m.size > 16) byCwd.m.clear();
    byCwd.m.set(key, u);
  }
  // null: no union could be built (the per-rule loop decides); false: no path rule at all
  if (u === null) return true;
  return !!u && paths.some((p) => u.test(p));
}

function pathUnion(list: readonly { rule: ParsedRule; rulesRoot: string }[], cwd: string, behavior: "deny" | "ask"): RegExp | false | null {
  const srcs: string[] = [];
  try {
    for (const e of list) {
      if (e.rule.kind !== "path") continue;
      const src = pathMatcher(e.rule, cwd, e.rulesRoot, behavior).source;
      if (src === undefined) return null;
      srcs.push(src);
    }
    return srcs.length ? new RegExp(srcs.map((x) => `(?:${x})`).join("|"), "i") : false;
  } catch {
    return null;
  }
}
const posix = (p: string) => (path.sep === "/" ? p : p.split(path.sep).join("/"));
const pathUnions = new WeakMap<readonly unknown[], { size: number; m: Map<string, RegExp | false | null> }>();
