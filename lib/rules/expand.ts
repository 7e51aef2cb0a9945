/**
 * Static shell word expansion, done before path checks: `$PWD`, `$HOME`, `~+`, variables set
 * earlier in the command line, `$(echo literal)`, and brace expansion (`cat {.env,README.md}`,
 * `.{e,}nv`). What cannot be expanded statically stays dynamic (and so is never approved by a path
 * rule); deny checks also get a best guess in which unknown variables are empty (`r${EMPTY}m`).
 */
import os from "node:os";
import { analyzeShell, printed } from "./shell.ts";
import type { ShellWord } from "./words.ts";

export interface ExpandEnv {
  /** The directory the command runs in ($PWD, `~+`). */
  dir: string;
  /** Literal variables set earlier in the command line. */
  vars?: ReadonlyMap<string, string>;
}

/** What a literal command prints (`echo rm`, `printf 'rm -rf x'`), trailing newlines removed. */
export function literalOutput(src: string): string | undefined {
  if (src.length > 2000) return undefined;
  const a = analyzeShell(src);
  if (!a.ok || a.commands.length !== 1 || a.commands[0]!.assigns.length || a.commands[0]!.redirects.length) return undefined;
  return printed(a.commands[0]!.words)?.replace(/\n+$/, "");
}

/** `$(pwd)`, `$(pwd -P)`, `$(realpath .)`, `$(readlink -f .)`: the directory the command runs in. */
const DIR_PRINTERS = /^\s*(?:pwd(?:\s+-[LP])?|(?:realpath|readlink\s+-[fem])(?:\s+(?:\.|\.\/|"\."|'\.'))?)\s*$/;
function dirOutput(src: string, env: ExpandEnv): string | undefined {
  return src.length < 40 && DIR_PRINTERS.test(src) ? env.dir : undefined;
}
/** A substitution whose output is known without running anything that matters (`$(pwd)`): its value approves like a literal. */
function harmless(p: { t: string; src?: string }, env: ExpandEnv): boolean {
  return p.t === "subst" && dirOutput(p.src!, env) !== undefined;
}

function paramValue(name: string, env: ExpandEnv): string | undefined {
  const v = env.vars?.get(name);
  if (v !== undefined) return v;
  if (name === "PWD") return env.dir;
  if (name === "HOME") return os.homedir();
  return undefined;
}

/** The word's value when it is known statically, else undefined. `guess`: unknown variables and substitutions count as empty. */
export function staticValue(w: ShellWord, env: ExpandEnv, guess = false): string | undefined {
  if (!w.dynamic) return w.value;
  if (!w.parts) return guess ? "" : undefined;
  let out = "";
  for (const p of w.parts) {
    let v: string | undefined;
    if (p.t === "lit") v = p.v;
    else if (p.t === "param") v = paramValue(p.name, env);
    else if (p.t === "subst" && !p.proc) v = dirOutput(p.src, env) ?? literalOutput(p.src);
    if (v === undefined) {
      if (!guess) return undefined;
      v = "";
    }
    out += v;
  }
  return out;
}

/** Bash brace expansion of one word (`{a,b}c` → `ac bc`, nested and sequences `{1..3}`; ≤ 64 words). */
export function expandBraces(word: string): string[] {
  const out: string[] = [];
  const go = (w: string) => {
    if (out.length >= 64) return;
    const m = innermostBrace(w);
    if (!m) {
      out.push(w);
      return;
    }
    const pre = w.slice(0, m.start);
    const post = w.slice(m.end + 1);
    for (const alt of m.alts) go(pre + alt + post);
  };
  go(word);
  return out.filter((w) => w !== "");
}

function innermostBrace(w: string): { start: number; end: number; alts: string[] } | undefined {
  for (let end = w.indexOf("}"); end >= 0; end = w.indexOf("}", end + 1)) {
    const start = w.lastIndexOf("{", end);
    if (start < 0) continue;
    const body = w.slice(start + 1, end);
    if (body.includes(",")) return { start, end, alts: body.split(",") };
    const seq = /^(-?\d+)\.\.(-?\d+)$/.exec(body) ?? /^([a-zA-Z])\.\.([a-zA-Z])$/.exec(body);
    if (seq) {
      const num = /\d/.test(seq[1]!);
      const a = num ? Number(seq[1]) : seq[1]!.charCodeAt(0);
      const b = num ? Number(seq[2]) : seq[2]!.charCodeAt(0);
      const alts: string[] = [];
      for (let i = a; a <= b ? i <= b : i >= b; i += a <= b ? 1 : -1) {
        alts.push(num ? String(i) : String.fromCharCode(i));
        if (alts.length >= 64) break;
      }
      return { start, end, alts };
    }
  }
  return undefined;
}

/**
 * A word as the paths/arguments it becomes: statically known values substituted, `~+` as the
 * directory, braces expanded (a quoted word keeps its literal too). Unknown stays as it is (dynamic).
 */
export function expandArg(w: ShellWord, env: ExpandEnv): ShellWord[] {
  // the common word: literal, no `~+`, no braces — it is what it says
  if (!w.dynamic && !w.tilde && !(w.value.includes("{") && w.value.includes("}"))) return [w];
  let v = staticValue(w, env);
  if (v === undefined) return [w];
  // A value that comes from running a command (`$(echo x)`) is checked by deny rules but never
  // approves: the word stays dynamic beside its expansion.
  const ran = !!w.parts?.some((p) => p.t === "subst" && !harmless(p, env));
  if (w.tilde && (v === "~+" || v.startsWith("~+/"))) v = env.dir + v.slice(2);
  const base: ShellWord = { value: v, raw: w.raw, dynamic: false, quoted: w.quoted };
  const keep = ran ? [w] : [];
  if (!v.includes("{") || !v.includes("}")) return v === w.value && !w.dynamic ? [w] : [...keep, base];
  const alts = expandBraces(v).map((x) => ({ ...base, value: x }));
  return [...keep, ...(w.quoted ? [base, ...alts.filter((a) => a.value !== v)] : alts.length ? alts : [base])];
}
