/**
 * Bash rule patterns: `*` anywhere (spaces included), a trailing ` *` with a word boundary that also
 * matches the bare command, legacy `:*`, and the grammar form deny/ask rules use against respelling
 * (grammars/programs.ts).
 */
import { canonOf, formMatches, ruleForm, type Canon, type RuleForm } from "./grammars/programs.ts";

export interface BashPattern {
  /** Anchored regex over a segment's text. */
  re: RegExp;
  /** No `*`: an exact command (may approve segments a prefix rule never may). */
  exact: boolean;
  /**
   * Grammar form for deny/ask: the rule read through its program's grammar (`rm -rf *` → head [rm],
   * options {r, f}, operands `*`), matched against the command read the same way — any order,
   * clustering, long/short spelling, value attached or not, git's global options skipped.
   */
  flagForm?: RuleForm;
}

/** `Bash(spec)`: `*` matches anything (spaces too); a trailing ` *` or legacy `:*` also matches the bare command. */
export function compileBashPattern(spec: string, caseInsensitive = false): BashPattern {
  let s = spec.trim().replace(/\s+/g, " ");
  if (s.endsWith(":*")) s = `${s.slice(0, -2)} *`;
  const re = globToRegex(s, caseInsensitive);
  const exact = !s.includes("*");
  return { re, exact, flagForm: caseInsensitive ? undefined : ruleForm(s, (g) => globToRegex(g)) };
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

/** Deny/ask: the command's canonical form (program grammar) satisfies the rule's form. */
export function flagFormMatches(ff: RuleForm, words: readonly string[]): boolean {
  return formMatches(ff, canonCached(words));
}

const canonCache = new WeakMap<readonly string[], Canon | undefined>();
/** Canonical form of a segment's words, memoised per words array (segments are cached and shared). */
export function canonCached(words: readonly string[]): Canon | undefined {
  if (canonCache.has(words)) return canonCache.get(words);
  const c = canonOf(words);
  canonCache.set(words, c);
  return c;
}

