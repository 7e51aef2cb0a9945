/**
 * Bash rule patterns: `*` anywhere (spaces included), a trailing ` *` with a word boundary that also
 * matches the bare command, legacy `:*`, and the flag-set form deny/ask rules use against reordering.
 */
import { LONG_FLAGS } from "./words.ts";

export interface BashPattern {
  /** Anchored regex over a segment's text. */
  re: RegExp;
  /** No `*`: an exact command (may approve segments a prefix rule never may). */
  exact: boolean;
  /** Flag-set form for deny/ask (`rm -rf *` → head ["rm"], flags {r,f}, rest pattern). */
  flagForm?: { head: string[]; flags: Set<string>; rest?: RegExp };
}

/** `Bash(spec)`: `*` matches anything (spaces too); a trailing ` *` or legacy `:*` also matches the bare command. */
export function compileBashPattern(spec: string, caseInsensitive = false): BashPattern {
  let s = spec.trim().replace(/\s+/g, " ");
  if (s.endsWith(":*")) s = `${s.slice(0, -2)} *`;
  const re = globToRegex(s, caseInsensitive);
  const exact = !s.includes("*");
  return { re, exact, flagForm: flagFormOf(s, caseInsensitive) };
}

export function globToRegex(s: string, ci = false): RegExp {
  let body = "";
  let tail = "";
  let src = s;
  if (src.endsWith(" *")) {
    src = src.slice(0, -2);
    tail = "(?: .*)?";
  }
  for (const ch of src) body += ch === "*" ? ".*" : ch.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`^${body}${tail}$`, ci ? "si" : "s");
}

function flagFormOf(s: string, ci: boolean): BashPattern["flagForm"] {
  const ws = s.split(" ");
  const head: string[] = [];
  let k = 0;
  while (k < ws.length && !ws[k]!.startsWith("-") && !ws[k]!.includes("*")) head.push(ws[k++]!);
  const flags = new Set<string>();
  while (k < ws.length && /^-[A-Za-z]+$|^--[a-z][a-z-]*$/.test(ws[k]!)) {
    const f = ws[k++]!;
    const syn = LONG_FLAGS[head.join(" ")] ?? LONG_FLAGS[head[0] ?? ""] ?? {};
    if (f.startsWith("--")) flags.add(syn[f] ?? f);
    else for (const c of f.slice(1)) flags.add(syn[c] ?? c);
  }
  if (!head.length || !flags.size) return undefined;
  const restText = ws.slice(k).join(" ");
  return { head, flags, rest: restText && restText !== "*" ? globToRegex(restText, ci) : undefined };
}

/** Deny/ask flag-set match: same head words, a superset of the rule's flags (in any order/grouping), the rest matching. */
export function flagFormMatches(ff: NonNullable<BashPattern["flagForm"]>, words: string[]): boolean {
  if (words.length < ff.head.length) return false;
  for (let i = 0; i < ff.head.length; i++) if ((i === 0 ? base(words[i]!) : words[i]) !== ff.head[i]) return false;
  const syn = LONG_FLAGS[ff.head.join(" ")] ?? LONG_FLAGS[ff.head[0]!] ?? {};
  const have = new Set<string>();
  const operands: string[] = [];
  let end = false;
  for (const w of words.slice(ff.head.length)) {
    if (!end && w === "--") end = true;
    else if (!end && /^-[A-Za-z]+$/.test(w)) for (const c of w.slice(1)) have.add(syn[c] ?? c);
    else if (!end && w.startsWith("--")) have.add(syn[w.replace(/=.*$/, "")] ?? w.replace(/=.*$/, ""));
    else operands.push(w);
  }
  for (const f of ff.flags) if (!have.has(f)) return false;
  return ff.rest ? ff.rest.test(operands.join(" ")) : true;
}


function base(cmd: string): string {
  const i = cmd.lastIndexOf("/");
  return i >= 0 ? cmd.slice(i + 1) : cmd;
}
