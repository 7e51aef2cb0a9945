/**
 * Text helpers of the AGENTS.md compiler: code spans, markdown emphasis, sentences and clauses (all
 * outside code spans), and the shapes a span may have (a command, a path, a flag, a tool name, code).
 */
import { KNOWN_TOOLS, parseRule } from "../../lib/rules/match.ts";
import { PROGRAMS } from "./words.ts";

export interface Span {
  text: string;
  /** Offset of the opening backtick in the sentence. */
  at: number;
  /** Length with the backticks. */
  raw: number;
}

/** Code spans of a sentence with their offsets (what /`([^`]+)`/g finds, by indexOf: this runs several times per sentence). */
export function spans(s: string): Span[] {
  const out: Span[] = [];
  let o = s.indexOf("`");
  while (o >= 0) {
    const c = s.indexOf("`", o + 1);
    if (c < 0) break;
    // an empty pair (``) is no span: the regex retried from its second backtick
    if (c === o + 1) {
      o = c;
      continue;
    }
    const t = s.slice(o + 1, c).trim();
    if (t) out.push({ text: t, at: o, raw: c - o + 1 });
    o = s.indexOf("`", c + 1);
  }
  return out;
}

const LINK = /\[([^\]]*)\]\([^)]*\)/g;
const EMPHASIS = /\*\*|__|(?<![\w*])[*_](?=\w)|(?<=\w)[*_](?![\w*])/g;
const MARKUP = /[*_[]/;
function unmark(part: string): string {
  let p = part.includes("[") ? part.replace(LINK, "$1") : part;
  if (p.includes("*") || p.includes("_")) p = p.replace(EMPHASIS, "");
  return p;
}

/** Markdown emphasis (`**not**`, `_never_`) and links removed outside code spans, so they cannot hide a prohibition. */
export function plain(s: string): string {
  if (!MARKUP.test(s)) return s;
  // the pieces between backtick pairs (as split(/(`[^`]*`)/) cuts them), each cleaned on its own
  let out = "";
  let a = 0;
  for (let o = s.indexOf("`"); o >= 0; o = s.indexOf("`", a)) {
    const c = s.indexOf("`", o + 1);
    if (c < 0) break;
    out += unmark(s.slice(a, o)) + s.slice(o, c + 1);
    a = c + 1;
  }
  // (a piece that starts with an unpaired backtick was kept as is)
  return out + (s.charCodeAt(a) === 96 ? s.slice(a) : unmark(s.slice(a)));
}

/**
 * Split text at the matches of `boundary` (a global regex) outside code spans (an unclosed backtick runs
 * to the end); `keep` keeps the separator at the end of the piece (sentence punctuation) instead of
 * dropping it. Each piece comes with its offset.
 */
const SPLITTERS = new Map<RegExp, RegExp>();
function splitOutsideCode(s: string, boundary: RegExp, keep: boolean): Array<{ text: string; at: number }> {
  const out: Array<{ text: string; at: number }> = [];
  const push = (from: number, to: number) => {
    const raw = s.slice(from, to);
    const t = raw.trim();
    if (t) out.push({ text: t, at: from + raw.length - raw.trimStart().length });
  };
  let re = SPLITTERS.get(boundary);
  if (!re) SPLITTERS.set(boundary, (re = new RegExp(`\`[^\`]*(?:\`|$)|${boundary.source}`, boundary.flags.includes("i") ? "gi" : "g")));
  let start = 0;
  // (an exec loop, not matchAll, which copies the regex on every call; no match is empty)
  re.lastIndex = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    if (m[0].charCodeAt(0) === 96) continue;
    push(start, keep ? m.index + m[0].length : m.index);
    start = m.index + m[0].length;
  }
  push(start, s.length);
  return out;
}

// ("**Never amend commits.** Always …": the emphasis closes after the full stop)
const SENTENCE_END = /[;!?]|\.[*_]*(?=\s|$)/;

/** Sentences: at `;` `!` `?`, and at `.` before a space or the end of the text; each with its offset. */
export function sentences(text: string): Array<{ text: string; at: number }> {
  return splitOutsideCode(text, SENTENCE_END, true);
}

/** Clause boundaries: "—", " - ", ": ", "->", "but/yet/so/otherwise…", and commas that do not continue a list of code spans. */
const CLAUSE_END = /\s+[-—–]\s+|—|–|:\s|\s+->\s+|\s*→\s*|\s+(?:but|yet|so|otherwise|though|although|whereas|however)\s+|,(?!\s*(?:(?:or|and)\s+)?`)/i;

/** A clause that ends on its verb ("Do not create", "Do not create, modify"): its object is in the next clause. */
const DANGLING_VERB = /\b(?:create|add|edit|modify|change|touch|write|overwrite|update|delete|remove|rename|move|run|execute|use|read|open|suggest|commit|install)\s*$/i;
const NEXT_VERB = /^(?:(?:or|and)\s+)?[a-z][\w-]*\b/i;

/**
 * Clauses of a sentence ("never run `a`, `b` or `c`" stays one clause; so does a list of verbs cut at its
 * commas, "Do not create, modify, or suggest `x`").
 */
export function clauses(s: string): string[] {
  const parts = splitOutsideCode(s, CLAUSE_END, false);
  for (let i = 0; i + 1 < parts.length; i++) {
    const a = parts[i]!;
    const b = parts[i + 1]!;
    if (!a.text.includes("`") && DANGLING_VERB.test(a.text) && NEXT_VERB.test(b.text) && s[a.at + a.text.length] === ",") {
      parts.splice(i, 2, { text: s.slice(a.at, b.at + b.text.length), at: a.at });
      i--;
    }
  }
  return parts.map((c) => c.text);
}

const TOOL_NAMES = new Set([...KNOWN_TOOLS, "Task", "exec_command", "write_stdin"]);
export const isToolName = (t: string) => TOOL_NAMES.has(t) || /^mcp__[A-Za-z0-9_-]+(__[A-Za-z0-9_*-]+)?$/.test(t);
/** A flag or argument on its own: `--release`, `-f`, `@@`, `@latest`. */
export const isFlag = (t: string) => /^(?:--?[A-Za-z][\w-]*(?:=\S*)?|@@|@latest)$/.test(t);
/** Code, not a shell command: calls, attributes, paths into modules, keywords with colons, capitalised names. */
export const looksLikeCode = (t: string) => /[()[\]{}]|::|^[.#@!?](?!\.?\/)|:$|^[A-Z]|^\w+\s*=|^(?:except|def|class|let|const|var|fn|pub|impl|import|from|return|if|for|while|async|await|match)\b/.test(t) && !/^[\w.-]+\s+\*?\s*\|/.test(t);
/** A span that can be a shell command: starts with a lowercase program name. */
const ENV_PREFIX = /^(?:[A-Z_][A-Z0-9_]*=\S*\s+)+(?=[a-z0-9_.\/~])/;
export function looksLikeCommand(t: string): boolean {
  // ("`USE_SYSTEM_BUN=1 bun test <file>`": environment assignments before a command are no code)
  if (t.charCodeAt(0) <= 90 && ENV_PREFIX.test(t)) t = t.replace(ENV_PREFIX, "");
  if (looksLikeCode(t) || isFlag(t)) return false;
  const first = t.split(/\s+/)[0]!;
  if (!/^(?:[A-Z_][A-Z0-9_]*=\S*\s+)*[a-z0-9_.\/~][\w.\/+~-]*$/.test(first) && !/^[A-Z_][A-Z0-9_]*=/.test(first)) return false;
  // a file name alone (`go.mod`, `src/x.ts`) is a path, not a command
  if (!/\s/.test(t) && (/\.[a-z0-9]{1,5}$/i.test(t) || t.endsWith("/")) && !PROGRAMS.has(t)) return false;
  return true;
}
/** Placeholders in a path (`integrations/<name>/api-ref/`, `{pkg}`) are wildcards. */
const PLACEHOLDER = /<[\w.-]+>|\{[\w.-]+\}/g;
/** A span that can be a path pattern: one word, no shell punctuation. */
export const looksLikePath = (t: string) => {
  const p = t.includes("<") || t.includes("{") ? t.replace(PLACEHOLDER, "x") : t;
  return /^[^\s|;&<>`$()]+$/.test(p) && !isFlag(p) && !looksLikeCode(p.replace(/^\./, "x"));
};
/** A path-looking span that names a directory (`docs/ja`, `public/`) rather than a file. */
export const isDirectory = (t: string) => t.endsWith("/") || (t.includes("/") && !/\.[A-Za-z0-9]{1,6}$/.test(t) && !t.includes("*"));
/** An Edit/Read specifier for a path span: directories cover everything below them. */
export function pathSpec(t: string): string {
  const p = t.replace(/^\.\//, "").replace(PLACEHOLDER, "*");
  if (isDirectory(p)) return `${p.replace(/\/+$/, "")}/**`;
  return p;
}

/** A command span as a Bash rule: placeholders (`<file>`, `...`) become wildcards; a bare command takes any arguments. */
export function commandRule(span: string): string {
  let c = span.replace(/\s+/g, " ").trim();
  c = c.replace(/<[^<>]+>|\{[^{}]+\}|\.\.\.|…/g, "*").replace(/(?:\s*\*)+$/, " *").replace(/\s+/g, " ").trim();
  if (c === "*") return "";
  return c.includes("*") ? `Bash(${c})` : `Bash(${c} *)`;
}

export function valid(rule: string): string | undefined {
  try {
    parseRule(rule);
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}
