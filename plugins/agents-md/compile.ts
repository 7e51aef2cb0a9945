/**
 * AGENTS.md → enforceable rules. Pure text in, rules out (no I/O): `compileAgentsMd(text, file, scope)`.
 *
 * Teams write AGENTS.md for people and models ("Never run `git push --force`", "Don't edit files in
 * `generated/`"). An instruction the model may forget is a rule the host can enforce, so this compiler
 * turns the unambiguous ones into Claude Code permission rules (deny / ask) that the permissions plugin's
 * matcher checks — with every shell bypass it already sees through — and each keeps the file and line it
 * came from, so a denial cites the sentence a person wrote.
 *
 * What compiles (case-insensitive; a sentence is a line, or a part of one ended by `.`, `;` or `!`):
 *  - a prohibition (never, do not, don't, must not, may not, shall not, not allowed to, forbidden,
 *    prohibited) with code spans: a command verb (run, execute, use, call, invoke, type) makes each span a
 *    command → `Bash(<span> *)`; a tool name span (`WebFetch`, `mcp__…`) after use/call → that tool; an edit
 *    verb (edit, modify, change, touch, write, overwrite, update, delete, remove, rename, move) → `Edit(<span>)`;
 *    a read verb (read, open, cat, view, access, print) → `Read(<span>)`;
 *  - "ask before …", "confirm before …", "get approval before …", "requires approval": the same spans as
 *    an **ask** (explicit: a hook's allow never skips it);
 *  - "use `X` instead of `Y`", "use `X`, not `Y`", "prefer `X` over `Y`", "instead of `Y`, use `X`": deny
 *    `Y` as a command, with "use X instead" in the reason;
 *  - "after editing/changing `P`, run `C`" / "run `C` after changing `P`": a PostToolUse reminder on
 *    edits of `P` (any edit when no path span is given) — context for the model, not a denial;
 *  - a fenced block tagged `toolhost` (or `rules`) holds exact rules, one per line: `deny <rule>` /
 *    `ask <rule>` in Claude Code's grammar. `allow` is refused: a file in the repository may tighten
 *    permissions, never loosen them (the same stance Claude Code takes with checked-in settings).
 *
 * Everything else stays advice. Sentences that look like rules (a prohibition or an ask with a code span)
 * but do not compile are returned as `unenforced` with the reason, so authors can see what is enforced.
 */
import { KNOWN_TOOLS, parseRule } from "../../lib/rules/match.ts";

export type Behavior = "deny" | "ask";

export interface CompiledRule {
  behavior: Behavior;
  /** The rule in Claude Code's grammar (`Bash(git push --force *)`, `Edit(generated/**)`, `WebFetch`). */
  rule: string;
  file: string;
  /** 1-based line of the sentence. */
  line: number;
  /** The sentence as written (trimmed, markdown bullets removed). */
  text: string;
  /** The directory this AGENTS.md governs: path rules are anchored here; Bash rules apply to commands run below it. */
  scope: string;
  /** Extra guidance for the model ("use pnpm instead"). */
  hint?: string;
}

export interface Reminder {
  file: string;
  line: number;
  text: string;
  scope: string;
  /** Path patterns (Edit-rule grammar) whose edits trigger the reminder; empty = any edit below scope. */
  paths: string[];
  /** The commands to run. */
  run: string[];
}

export interface Unenforced {
  file: string;
  line: number;
  text: string;
  why: string;
}

export interface Compiled {
  rules: CompiledRule[];
  reminders: Reminder[];
  unenforced: Unenforced[];
  /** Problems worth a warning (a bad rule in an explicit block, an `allow` line). */
  problems: Unenforced[];
}

const PROHIBIT = /\b(never|do\s+not|don['’]t|dont|must\s+not|mustn['’]t|may\s+not|shall\s+not|should\s+not|shouldn['’]t|not\s+allowed\s+to|forbidden|prohibited|under\s+no\s+circumstances)\b/i;
const ASK = /\b(ask\s+(?:the\s+user\s+|me\s+|a\s+human\s+)?(?:first|before)|confirm\s+(?:with\s+\w+\s+)?before|check\s+with\s+\w+(?:\s+\w+)?\s+before|get\s+(?:explicit\s+)?(?:approval|permission|sign-off|confirmation)\s+before|requires?\s+(?:explicit\s+)?(?:approval|confirmation|permission)|only\s+(?:with|after)\s+(?:explicit\s+)?(?:approval|permission|asking))\b/i;
const CMD_VERBS = /\b(run|runs|running|execute|executing|exec|use|using|call|calling|invoke|invoking|type|typing)\b/gi;
const EDIT_VERBS = /\b(edit|editing|modify|modifying|change|changing|touch|touching|write|writing|overwrite|overwriting|update|updating|delete|deleting|remove|removing|rename|renaming|move|moving|commit\s+changes\s+to)\b/gi;
const READ_VERBS = /\b(read|reading|open|opening|cat|view|viewing|access|accessing|print|printing|display|displaying)\b/gi;
/** Tool names a sentence may ban outright: Claude Code's (the permissions plugin's list), plus the exec-session tools and the legacy `Task`. */
const TOOL_NAMES = new Set([...KNOWN_TOOLS, "Task", "exec_command", "write_stdin"]);

/** Code spans of a sentence with their offsets. */
function spans(s: string): Array<{ text: string; at: number; raw: number }> {
  const out: Array<{ text: string; at: number; raw: number }> = [];
  for (const m of s.matchAll(/`([^`]+)`/g)) if (m[1]!.trim()) out.push({ text: m[1]!.trim(), at: m.index!, raw: m[0].length });
  return out;
}

/** The kind of the last verb before `at` in the sentence ("cmd", "edit", "read"), if any. */
function verbBefore(s: string, at: number): "cmd" | "edit" | "read" | undefined {
  let best: { at: number; kind: "cmd" | "edit" | "read" } | undefined;
  for (const [re, kind] of [
    [CMD_VERBS, "cmd"],
    [EDIT_VERBS, "edit"],
    [READ_VERBS, "read"],
  ] as const) {
    re.lastIndex = 0;
    for (const m of s.matchAll(re)) if (m.index! < at && (!best || m.index! > best.at)) best = { at: m.index!, kind };
  }
  return best?.kind;
}

const isToolName = (t: string) => TOOL_NAMES.has(t) || /^mcp__[A-Za-z0-9_-]+(__[A-Za-z0-9_*-]+)?$/.test(t);
/** A span that can be a shell command: starts with a program name. */
const looksLikeCommand = (t: string) => /^[A-Za-z0-9_.\/~-][^\n]*$/.test(t) && !/^[.~]?\/?[^\s]*\/$/.test(t);
/** A span that can be a path pattern: one word, no shell punctuation. */
const looksLikePath = (t: string) => /^[^\s|;&<>`$()]+$/.test(t);

function commandRule(span: string): string {
  const c = span.replace(/\s+/g, " ").trim();
  return c.includes("*") ? `Bash(${c})` : `Bash(${c} *)`;
}

function valid(rule: string): string | undefined {
  try {
    parseRule(rule);
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/**
 * Split text at boundaries outside code spans. `boundary(s, i)` returns the separator's length at i (0 for
 * none); `keep` keeps the separator at the end of the piece (sentence punctuation) instead of dropping it.
 */
function splitOutsideCode(s: string, boundary: (s: string, i: number) => number, keep: boolean): string[] {
  const out: string[] = [];
  let start = 0;
  let inCode = false;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === "`") {
      inCode = !inCode;
      continue;
    }
    if (inCode) continue;
    const n = boundary(s, i);
    if (!n) continue;
    out.push(s.slice(start, keep ? i + n : i));
    start = i + n;
    i += n - 1;
  }
  out.push(s.slice(start));
  return out.map((x) => x.trim()).filter(Boolean);
}

/** Sentences: at `;` `!` `?`, and at `.` before a space or the end of the line. */
function sentences(line: string): string[] {
  return splitOutsideCode(line, (t, i) => (";!?".includes(t[i]!) || (t[i] === "." && (i + 1 === t.length || /\s/.test(t[i + 1]!))) ? 1 : 0), true);
}

const PREFER: Array<{ re: RegExp; want: number; avoid: number }> = [
  { re: /\buse\s+`([^`]+)`\s*,?\s*(?:instead\s+of|rather\s+than|not)\s+`([^`]+)`/i, want: 1, avoid: 2 },
  { re: /\bprefer\s+`([^`]+)`\s+(?:over|to)\s+`([^`]+)`/i, want: 1, avoid: 2 },
  { re: /\binstead\s+of\s+`([^`]+)`\s*,?\s*use\s+`([^`]+)`/i, want: 2, avoid: 1 },
  { re: /^`([^`]+)`\s*,\s*not\s+`([^`]+)`/i, want: 1, avoid: 2 },
];

const REMIND = [
  /\bafter\s+(?:editing|changing|modifying|touching|updating)\b(.*?)\brun\b(.*)$/i,
  /\brun\b(.*?)\bafter\s+(?:editing|changing|modifying|touching|updating|any\s+change|every\s+change|changes)\b(.*)$/i,
];

export function compileAgentsMd(text: string, file: string, scope: string): Compiled {
  const out: Compiled = { rules: [], reminders: [], unenforced: [], problems: [] };
  const seen = new Set<string>();
  const add = (r: CompiledRule) => {
    const key = `${r.behavior}\0${r.rule}\0${r.scope}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.rules.push(r);
  };
  const lines = text.split(/\r?\n/);
  let fence: { tag: string; marker: string; line: number } | undefined;
  let leadIn: { text: string; line: number } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const lineNo = i + 1;
    const fm = /^\s*(```+|~~~+)\s*([\w-]*)/.exec(raw);
    if (fm) {
      if (!fence) fence = { tag: fm[2]!.toLowerCase(), marker: fm[1]!, line: lineNo };
      else if (raw.trim().startsWith(fence.marker)) fence = undefined;
      continue;
    }
    if (fence) {
      if (fence.tag !== "toolhost" && fence.tag !== "rules") continue;
      const t = raw.trim();
      if (!t || t.startsWith("#")) continue;
      const m = /^(deny|ask|allow)\s+(.+)$/i.exec(t);
      if (!m) {
        out.problems.push({ file, line: lineNo, text: t, why: `a rule line is "deny <rule>" or "ask <rule>" (Claude Code grammar, e.g. deny Bash(git push --force *))` });
        continue;
      }
      const behavior = m[1]!.toLowerCase();
      if (behavior === "allow") {
        out.problems.push({ file, line: lineNo, text: t, why: `allow rules are refused in AGENTS.md: a file in the repository may only tighten permissions; put allow rules in .claude/settings.local.json or toolhost config` });
        continue;
      }
      const bad = valid(m[2]!.trim());
      if (bad) out.problems.push({ file, line: lineNo, text: t, why: bad });
      else add({ behavior: behavior as Behavior, rule: m[2]!.trim(), file, line: lineNo, text: t, scope });
      continue;
    }
    if (raw.length > MAX_LINE) {
      if (PROHIBIT.test(raw) || ASK.test(raw)) out.unenforced.push({ file, line: lineNo, text: raw.slice(0, 200), why: `line longer than ${MAX_LINE} characters` });
      continue;
    }
    const bullet = /^\s*(?:[-*+]|\d+[.)])\s+/.test(raw);
    const line = raw.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, "").replace(/^\s*>\s*/, "").trim();
    // "Never run these commands:" followed by a list: each item that starts with a code span is governed by
    // the lead-in, as if the sentence were written out ("Never run these commands `rm -rf /`").
    if (leadIn) {
      if (bullet && line.startsWith("`")) {
        const first = /^`[^`]+`/.exec(line)![0];
        compileSentence(`${leadIn.text} ${first}`, lineNo, file, scope, out, add);
        continue;
      }
      if (bullet || raw.trim() === "") {
        if (raw.trim() !== "") leadIn = undefined;
      } else leadIn = undefined;
    }
    if (!line.includes("`")) {
      if (line.endsWith(":")) {
        const plainLine = plain(line);
        if (ASK.test(plainLine) || GOVERNED.test(plainLine)) leadIn = { text: plainLine.replace(/:\s*$/, ""), line: lineNo };
      }
      continue;
    }
    for (const s of sentences(line)) compileSentence(s, lineNo, file, scope, out, add);
  }
  if (fence) out.problems.push({ file, line: fence.line, text: fence.marker + fence.tag, why: `this ${fence.marker} fence is never closed: every line after it was read as code, so no rule below it compiled` });
  return out;
}

/** Lines longer than this are data (a table, a minified blob), not instructions. */
const MAX_LINE = 4000;

/** Markdown emphasis (`**not**`, `_never_`) removed outside code spans, so it cannot hide a prohibition. */
function plain(s: string): string {
  return s
    .split(/(`[^`]*`)/)
    .map((part) => (part.startsWith("`") ? part : part.replace(/\*\*|__|(?<![\w*])[*_](?=\w)|(?<=\w)[*_](?![\w*])/g, "")))
    .join("");
}

function compileSentence(original: string, line: number, file: string, scope: string, out: Compiled, add: (r: CompiledRule) => void): void {
  const text = original;
  const s = plain(original);
  const sp = spans(s);
  if (!sp.length) return;

  for (const p of PREFER) {
    const m = p.re.exec(s);
    if (!m) continue;
    const want = m[p.want]!.trim();
    const avoid = m[p.avoid]!.trim();
    if (!looksLikeCommand(avoid) || isToolName(avoid)) {
      out.unenforced.push({ file, line, text, why: `"${avoid}" is not a command` });
      return;
    }
    const rule = commandRule(avoid);
    const bad = valid(rule);
    if (bad) out.unenforced.push({ file, line, text, why: bad });
    else add({ behavior: "deny", rule, file, line, text, scope, hint: `use \`${want}\` instead` });
    return;
  }

  for (const re of REMIND) {
    const m = re.exec(s);
    if (!m) continue;
    const [pathPart, runPart] = re === REMIND[0] ? [m[1]!, m[2]!] : [m[2]!, m[1]!];
    const run = spans(runPart).map((x) => x.text);
    const paths = spans(pathPart)
      .map((x) => x.text)
      .filter(looksLikePath);
    if (run.length) {
      out.reminders.push({ file, line, text, scope, paths, run });
      return;
    }
  }

  if (!ASK.test(s) && !PROHIBIT.test(s)) return;
  if (sp.length > MAX_SPANS) {
    out.unenforced.push({ file, line, text: text.slice(0, 200), why: `more than ${MAX_SPANS} code spans in one sentence` });
    return;
  }
  let compiled = 0;
  const why: string[] = [];
  for (const clause of clauses(s)) compiled += compileClause(clause, line, file, scope, text, add, why);
  if (!compiled && why.length) out.unenforced.push({ file, line, text, why: why.join("; ") });
}

/** Code spans per sentence beyond which a line is not compiled (a generated table, not an instruction). */
const MAX_SPANS = 24;
/** Words that turn a prohibition into advice about something else: "never forget to run", "don't commit without running". */
const NOT_A_BAN = /\b(without|until|unless|forget|forgetting|forgot|skip|skipping|hesitate|fail|neglect|worry|before|after|instead|except|only)\b/i;
/** Between the prohibition and its verb: a few filler words at most ("never ever directly run"). */
const FILLER = "(?:(?:ever|even|again|just|directly|manually|yourself|you|the|a|an|any|try\\s+to|attempt\\s+to|need\\s+to|have\\s+to)\\s+){0,3}";
const GOVERNED = new RegExp(`${PROHIBIT.source}\\s+${FILLER}(\\w+)`, "i");
/** After the last span: words that keep the rule whole; a preposition or condition narrows it to advice. */
const TRAILING_OK = /^(?:(?:by\s+hand|manually|directly|yourself|ever|again|at\s+all|anywhere|here|in\s+this\s+(?:repo|repository|project))\b|$)/i;
const TRAILING_NARROWS = /^(?:to|on|onto|against|in|into|from|for|with|at|outside|inside|when|while|if|unless|until|over|under|as|via|through)\b/i;

/**
 * Split a sentence into clauses: at "—", " - ", ":", and at commas or "but/yet/so/otherwise" that do not
 * continue a list of code spans ("never run `a`, `b` or `c`" stays one clause).
 */
const DASH = /\s+[-—–]\s+|—|–|:\s/y;
const CONJ = /\s+(?:but|yet|so|otherwise|though|although|whereas)\s+/iy;
const LIST_COMMA = /,\s*(?:(?:or|and)\s+)?`/y;
function clauses(s: string): string[] {
  // sticky regexes test at i without copying the rest of the string
  const at = (re: RegExp, i: number): number => {
    re.lastIndex = i;
    return re.exec(s)?.[0].length ?? 0;
  };
  return splitOutsideCode(s, (t, i) => at(DASH, i) || at(CONJ, i) || (t[i] === "," && !at(LIST_COMMA, i) ? 1 : 0), false);
}

/** One clause: the spans the prohibition (or ask) governs become rules. Returns how many compiled. */
function compileClause(c: string, line: number, file: string, scope: string, text: string, add: (r: CompiledRule) => void, why: string[]): number {
  const sp = spans(c);
  if (!sp.length) return 0;
  const asks = ASK.test(c);
  let behavior: Behavior;
  let from = 0;
  if (asks) {
    behavior = "ask";
  } else {
    const m = GOVERNED.exec(c);
    if (!m) {
      if (PROHIBIT.test(c)) why.push(`no run/edit/read/use verb right after the prohibition`);
      return 0;
    }
    if (NOT_A_BAN.test(c)) {
      why.push(`"${NOT_A_BAN.exec(c)![0]}" makes it a condition, not a ban`);
      return 0;
    }
    behavior = "deny";
    from = m.index;
  }
  const governed = sp.filter((x) => x.at > from);
  let n = 0;
  for (let i = 0; i < governed.length; i++) {
    const x = governed[i]!;
    // "Do not run `git push` to `main`": the words after a span narrow it; a bare rule would be too broad
    const end = i + 1 < governed.length ? governed[i + 1]!.at : c.length;
    const after = c.slice(x.at + x.raw, end).replace(/^\s*tool\b/i, "").replace(/^[\s.!?)"',]+/, "").trim();
    if (after && !TRAILING_OK.test(after) && TRAILING_NARROWS.test(after)) {
      why.push(`"${x.text}" is narrowed by "${after.slice(0, 40)}"; write the exact rule in a \`\`\`toolhost block`);
      i++; // the span after the narrowing word is its argument, not a command
      continue;
    }
    const kind = verbBefore(c, x.at);
    let rule: string | undefined;
    if (isToolName(x.text) && (kind === "cmd" || kind === undefined)) rule = x.text;
    else if (kind === "cmd" && looksLikeCommand(x.text) && !isToolName(x.text)) rule = commandRule(x.text);
    else if (kind === "edit" && looksLikePath(x.text)) rule = `Edit(${x.text})`;
    else if (kind === "read" && looksLikePath(x.text)) rule = `Read(${x.text})`;
    if (!rule) {
      why.push(kind ? `"${x.text}" does not fit "${kind}"` : `no run/edit/read verb before "${x.text}"`);
      continue;
    }
    const bad = valid(rule);
    if (bad) {
      why.push(bad);
      continue;
    }
    add({ behavior, rule, file, line, text, scope });
    n++;
  }
  return n;
}
