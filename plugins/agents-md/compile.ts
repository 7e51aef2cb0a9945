/**
 * AGENTS.md → enforceable rules. Pure text in, rules out (no I/O): `compileAgentsMd(text, file, scope)`.
 *
 * Teams write AGENTS.md for people and models ("Never run `git push --force`", "Don't edit files in
 * `generated/`"). An instruction the model may forget is a rule the host can enforce, so this compiler
 * turns the unambiguous ones into Claude Code permission rules (deny / ask) that the permissions plugin's
 * matcher checks — with every shell bypass it already sees through — and each keeps the file and line it
 * came from, so a denial cites the sentence a person wrote. docs/agents-md.md lists every phrasing with a
 * real example; the parts:
 *  - blocks.ts: markdown → items (wrapped lines joined, tables, headings, the fence under an item);
 *  - bans.ts: prohibitions and asks → rules (commands, flags in any position, paths, tools, plain words);
 *  - shapes.ts: alternatives, immutable paths, generated files, "(not `--release`)";
 *  - remind.ts: reminders scoped to the files, kinds of change, commits or commands they name;
 *  - advice.ts: why an instruction stays advice, and conflicts with what the same file tells the agent to do.
 * A fenced block tagged `toolhost` (or `rules`) holds exact rules, one per line: `deny <rule>` / `ask <rule>`
 * in Claude Code's grammar. `allow` is refused: a file in the repository may tighten permissions, never
 * loosen them (the same stance Claude Code takes with checked-in settings).
 */
import { classify, conflictOf, isInstruction, toldFence, type AdviceKind } from "./advice.ts";
import { compileBans, type BanCtx, type Behavior } from "./bans.ts";
import { lineOf, parseBlocks, type Fence, type Item } from "./blocks.ts";
import { isCommitTrigger, leadTrigger, parseReminder, type Reminder } from "./remind.ts";
import { alternatives, generated, immutable, notSpan } from "./shapes.ts";
import { globSource } from "../../lib/rules/paths.ts";
import { isDirectory, looksLikeCommand, looksLikePath, pathSpec, plain, sentences, spans, valid, type Span } from "./text.ts";
import { resolveConflicts } from "./conflicts.ts";
import type { Compiled, CompiledRule, State } from "./types.ts";
import { ASK, LABEL, NOT_ASK, PROGRAMS, PROHIBIT, UNLESS_ASKED } from "./words.ts";

export type { Behavior } from "./bans.ts";
export type { Compiled, CompiledRule, Unenforced } from "./types.ts";
export type { Reminder } from "./remind.ts";
export { MAX_LINE } from "./blocks.ts";

/** Code spans per sentence beyond which a line is not compiled (a generated table, not an instruction). */
const MAX_SPANS = 24;

function explicitBlock(f: Fence, st: State): void {
  const { file, scope, out } = st;
  for (const { no, text } of f.lines) {
    const t = text.trim();
    if (!t || t.startsWith("#")) continue;
    const m = /^(deny|ask|allow)\s+(.+)$/i.exec(t);
    if (!m) {
      out.problems.push({ file, line: no, text: t, why: `a rule line is "deny <rule>" or "ask <rule>" (Claude Code grammar, e.g. deny Bash(git push --force *))` });
      continue;
    }
    const behavior = m[1]!.toLowerCase();
    if (behavior === "allow") {
      out.problems.push({ file, line: no, text: t, why: `allow rules are refused in AGENTS.md: a file in the repository may only tighten permissions; put allow rules in .claude/settings.local.json or toolhost config` });
      continue;
    }
    const bad = valid(m[2]!.trim());
    if (bad) out.problems.push({ file, line: no, text: t, why: bad });
    else addRule(st, { behavior: behavior as Behavior, rule: m[2]!.trim(), file, line: no, text: t, scope }, false);
  }
}

function addRule(st: State, r: CompiledRule, prose: boolean, deletes?: string): void {
  const key = `${r.behavior}\0${r.rule}\0${r.scope}`;
  if (st.seen.has(key)) {
    const first = st.out.rules.find((x) => x.behavior === r.behavior && x.rule === r.rule && x.scope === r.scope);
    if (first && first.line !== r.line && !first.also?.includes(r.line)) (first.also ??= []).push(r.line);
    return;
  }
  st.seen.add(key);
  if (deletes) st.deletes.set(r, deletes);
  st.out.rules.push(r);
  if (prose) st.prose.add(r);
}


/** "**NO force pushes**: `git push --force`", "FORBIDDEN: `pip install`", "Ask first: adding dependencies", "**`afl-cmin`**: Do not use `@@`". */
function relabel(s: string): { s: string; program?: string } {
  // both shapes need a colon (most sentences have none)
  if (!s.includes(":")) return { s };
  const sl = s.charCodeAt(0) === 96 ? /^`([^`]+)`\s*:\s*(.+)$/.exec(s) : null;
  if (sl) return { s: sl[2]!, program: sl[1]! };
  const m = LABEL.exec(s);
  if (!m) return { s };
  const label = m[1]!.trim();
  const body = m[2]!.trim();
  if (/^(?:ask|requires)/i.test(label)) return { s: `Ask before ${body}` };
  if (/^(?:never|don['’]t|do\s+not)$/i.test(label)) return { s: `${label} ${body}` };
  const words = /^no\s+/i.test(label) ? `Never ${label.replace(/^no\s+/i, "")}; ` : "";
  return { s: `${words}${body.startsWith("`") ? "Never run " : "Never "}${body}` };
}

function compileSentence(raw: string, line: number, item: Item, st: State): void {
  const { file, scope, out } = st;
  const text = raw.trim();
  const rl = relabel(plain(text));
  // "never build with --release": a long flag in words is a flag
  const s = rl.s.includes("--") && PROHIBIT.test(rl.s) ? wrapFlags(rl.s) : rl.s;
  const sp = spans(s);
  if (sp.length > MAX_SPANS) {
    out.unenforced.push({ file, line, text: text.slice(0, 200), why: `more than ${MAX_SPANS} code spans in one sentence`, kind: "data" });
    return;
  }
  const keys = keywords(s);
  if (!keys.any && !sp.length) {
    // prose with no key word and no code span: at most guidance or style advice
    if (isInstruction(s, true)) out.unenforced.push({ file, line, text, ...classify(s, [], false) });
    return;
  }
  // every prohibition and ask word is a key word (so without one, neither can match): tested once per sentence
  const banLike = keys.ban && (PROHIBIT.test(s) || ASK.test(s));
  // what the sentence tells the agent to run or write is only read when a rule is checked for conflicts (resolveConflicts)
  if (sp.length) st.pending.push({ s, sp, line, banLike });
  let n = 0;
  let why: BanCtx["why"] = NO_WHY;
  // cheap gates first: most sentences are prose that none of the shapes can match
  const rem = keys.trigger && (sp.length || item.code?.length || REMIND_GATE.test(s)) ? parseReminder(s, item.code) : undefined;
  if (rem && "reminder" in rem) out.reminders.push({ file, line, text, scope, ...rem.reminder });
  else if (rem) out.unenforced.push({ file, line, text, why: rem.refused, kind: "every-edit" });
  else {
    // (no clause can ban, ask or say "without asking" when the whole sentence does not)
    const bans = keys.ban && (banLike || NOT_ASK.test(s));
    if (bans || keys.alt || keys.imm || keys.gen) {
      const ctx: BanCtx = {
        prev: st.prev,
        context: () => (item.plain ??= plain(item.text)),
        program: rl.program ?? st.program,
        why: (why = []),
        add: (behavior, rule, hint, deletes) => (addRule(st, { behavior, rule, file, line, text, scope, ...(hint ? { hint } : {}) }, true, deletes), n++),
      };
      if (!shaped(s, ctx, keys) && bans) compileBans(s, ctx);
    }
  }
  if (!rem && !n && (why.length || isInstruction(s, !keys.any))) out.unenforced.push({ file, line, text, ...classify(s, why, banLike) });
  if (sp.length) st.prev = sp.map((x) => x.text);
}

const NO_WHY: BanCtx["why"] = [];
/**
 * A reminder needs a command to run (a code span, the fence under the item) or an action in words that only
 * these words can introduce (remind.ts: "when writing to", "must …", "changes to `P` require", "without
 * running", "every PR needs", the verbs of an action in words): without one, parseReminder finds nothing.
 */
const REMIND_GATE = /\b(?:must|needs?|have\s+to|format|lint|read|include|fill|add|update|regenerate|sign|link|disclose|describe|writing|requires?|followed|accompanied|without)\b/i;

/** Long flags outside code spans, as spans. */
function wrapFlags(s: string): string {
  // (not after a program named in words: "never run git push --force" is that command, flag included)
  return s
    .split(/(`[^`]*`)/)
    .map((part, i) => (i % 2 ? part : part.replace(/(^|[\s(])(--[A-Za-z][\w-]*(?:=\S+)?)(?=[\s.,;:)]|$)/g, (all, pre: string, flag: string, at: number) => (part.slice(Math.max(0, at - 40), at).split(/\s+/).slice(-3).some((w) => PROGRAMS.has(w.toLowerCase())) ? all : `${pre}\`${flag}\``))))
    .join("");
}

/** One scan for the key words that gate each shape (most sentences are prose none of them can match). */
const KEYS = /\b(after|when|whenever|once|until|if|before|prior|end|never|not|no|cannot|must|may|shall|should|forbidden|prohibited|under|ask|asked|first|confirm|approval|permission|sign-off|unless|without|dont|keep|instead|rather|prefer|immutable|read-?only|readonly|untouched|unchanged|frozen|as[- ]is|generated|produced|requires?|only|avoid|pr|prs|pull)\b|n['’]t\b/gi;
// ("without": "do not submit a PR without running the tests"; "pr": "every PR needs a changeset")
const TRIGGER_KEYS = new Set(["after", "when", "whenever", "once", "until", "if", "before", "prior", "end", "without", "pr", "prs", "pull", "require", "requires"]);
const ALT_KEYS = new Set(["instead", "rather", "prefer", "not"]);
const IMM_KEYS = new Set(["immutable", "read-only", "readonly", "untouched", "unchanged", "frozen", "as-is", "as is", "keep"]);
const GEN_KEYS = new Set(["generated", "produced"]);

interface Keys {
  any: boolean;
  trigger: boolean;
  ban: boolean;
  alt: boolean;
  imm: boolean;
  gen: boolean;
}

function keywords(s: string): Keys {
  const k: Keys = { any: false, trigger: false, ban: false, alt: false, imm: false, gen: false };
  KEYS.lastIndex = 0;
  for (let m = KEYS.exec(s); m; m = KEYS.exec(s)) {
    const w = m[0].toLowerCase();
    k.any = true;
    if (TRIGGER_KEYS.has(w)) k.trigger = true;
    else if (GEN_KEYS.has(w)) k.gen = true;
    else if (IMM_KEYS.has(w)) k.imm = k.ban = true;
    else k.ban = true;
    if (ALT_KEYS.has(w)) k.alt = true;
  }
  if (k.trigger) k.ban = true;
  return k;
}

/** The shapes other than a plain ban (shapes.ts), each only tried when its key word is there. */
function shaped(s: string, ctx: BanCtx, k: Keys): boolean {
  if (k.alt && (alternatives(s, ctx) || notSpan(s, ctx))) return true;
  if (k.imm && immutable(s, ctx)) return true;
  return k.gen && generated(s, ctx);
}

/** A lead-in ("Never run these commands:", "these files are generated and must not be edited:") governing a list item. */
function leadItem(lead: string, item: Item, st: State): boolean {
  const first = /^`[^`]+`(?:\s*(?:,|or|and)\s*`[^`]+`)*/.exec(item.text);
  if (!first) return false;
  // an item that says it is the exception ("`events/` is hand-authored and should be edited directly")
  if (EDITABLE.test(plain(item.text.slice(first[0].length)))) {
    st.out.unenforced.push({ file: st.file, line: item.line, text: item.text, why: "the exception to the lead-in above it: this item says it may be edited", kind: "guidance" });
    return true;
  }
  compileSentence(`${lead} ${first[0]}`, item.line, { ...item, code: undefined }, st);
  const r = st.out.rules.at(-1);
  if (r && r.line === item.line) r.text = `${lead} ${first[0]}`;
  return true;
}

const BARE_BAN = /^\s*(?:never|do\s+not|don['’]t|must\s+not)\s*$/i;

/** A command listed under a "Before Every Commit" heading: a reminder before a commit. */
function whenItem(when: string, item: Item, st: State): boolean {
  const first = spans(item.text)[0];
  if (!first || first.at !== 0 || !looksLikeCommand(first.text)) return false;
  const before = st.out.reminders.length;
  compileSentence(`Run \`${first.text}\` ${when.toLowerCase()}`, item.line, { ...item, code: undefined }, st);
  const r = st.out.reminders[before];
  if (r) r.text = item.text;
  return st.out.reminders.length > before;
}

/** Words that make a path the exception to "generated, do not edit": it is written by hand, or may be edited. */
const EDITABLE = /\bhand-?(?:authored|written|maintained)\b|\b(?:may|can|should)\s+be\s+(?:edited|modified|changed)\b|\beditable\b|\bnot\s+(?:auto-?)?generated\b|(?<!\b(?:not|never|n['’]t)\s+)\bedited\s+directly\b/i;
/** "`P` — generated Cap'n Proto types, do not edit directly", "`P` — Shared types (deprecated, never modify)". */
const PATH_ITEM = /^`([^`]+)`\s*(?:—|–|-|:)\s+(.+)$/;
const GENERATED_DESC = /^\(?(?:auto-?|automatically\s+|machine-)?generated\b|\b(?:auto-?|automatically\s+)generated\b|\bgenerated\s+(?:by|from)\b/i;
// the verb has no object of its own ("do not edit directly", "never modify –"): what it bans is the item's path
const EDIT_BAN = /\b(?:never|do\s+not|don['’]t|must\s+not)\s+(?:(?:hand-?)?edit|modify|change|touch)\b(?=\s*(?:directly|manually|by\s+hand)?\s*(?:$|[.;,)–—-]))/i;

/** A list item that names a path and says, in its description, that the path is generated or must not be edited: an Edit denial of the path. */
function pathItem(item: Item, st: State): void {
  const m = PATH_ITEM.exec(item.text);
  if (!m) return;
  const p = m[1]!.trim();
  if (!looksLikePath(p) || !/[./*]/.test(p)) return;
  // (the first sentence of the description: a later one may be about other files)
  const desc = plain(sentences(m[2]!)[0]?.text ?? "");
  if (!GENERATED_DESC.test(desc) && !EDIT_BAN.test(desc)) return;
  if (/\b(?:parts?|portions?|sections?|some)\s+of\b|\bunless\b|\bexcept\b|\b(?:individual|certain|some|most)\s+\w+|\bmix\s+of\b/i.test(desc) || EDITABLE.test(plain(m[2]!))) return;
  addRule(st, { behavior: "deny", rule: `Edit(${pathSpec(p)})`, file: st.file, line: item.line, text: item.text, scope: st.scope, hint: GENERATED_DESC.test(desc) ? "it is generated: change its source and regenerate" : "it must not be edited" }, true);
}

const TREE_LINE = /^([\s│├└|`─—-]*)([\w.@][\w./@*-]*)\s*(?:#\s*(.*))?$/;
const COMMENT = /\s#\s+(.*)$/;

/**
 * Comments in a fence: a directory tree's "`uv.lock`  # Lockfile (auto-generated, do not edit manually)" is a
 * path item (the tree's single root, the project or this directory, is dropped from the path); a shell
 * line's "cargo build  # never build with --release" is a ban about the command on its line, flags in words
 * included.
 */
function fenceComments(f: Fence, st: State): void {
  if (f.tag && !/^(?:sh|bash|shell|console|zsh|text|txt|tree|plaintext)$/.test(f.tag)) return;
  const lines = f.lines.filter((l) => l.text.trim());
  if (!lines.some((l) => l.text.includes("#"))) return;
  const tree = lines.length >= 3 && lines.every((l) => TREE_LINE.test(l.text));
  if (tree) {
    const first = TREE_LINE.exec(lines[0]!.text)!;
    const root = !first[1] && first[2]!.endsWith("/") && lines.slice(1).every((l) => TREE_LINE.exec(l.text)![1]!.length > 0);
    const stack: Array<{ col: number; name: string }> = [];
    for (const [i, l] of lines.entries()) {
      if (i === 0 && root) continue;
      const m = TREE_LINE.exec(l.text)!;
      const col = m[1]!.length;
      while (stack.length && stack.at(-1)!.col >= col) stack.pop();
      const full = stack.map((x) => x.name).join("") + m[2]!;
      if (m[2]!.endsWith("/")) stack.push({ col, name: m[2]! });
      if (m[3]) pathItem({ line: l.no, text: `\`${full}\` — ${m[3].trim()}`, offs: [0], nums: [l.no], bullet: true, heading: false, table: false, data: false }, st);
    }
    return;
  }
  for (const l of lines) {
    const c = COMMENT.exec(l.text);
    if (!c || !(PROHIBIT.test(c[1]!) || ASK.test(c[1]!))) continue;
    const code = l.text.slice(0, c.index).trim();
    if (!looksLikeCommand(code)) continue;
    const w = code.split(/\s+/);
    const saved = st.program;
    st.program = w.length > 1 && /^[a-z][\w-]*$/.test(w[1]!) ? `${w[0]} ${w[1]}` : w[0];
    // flags in words are flags ("never build with --release")
    const text = c[1]!.replace(/(^|[\s(])(--?[A-Za-z][\w-]*)(?=[\s.,;)]|$)/g, "$1`$2`");
    const item: Item = { line: l.no, text, offs: [0], nums: [l.no], bullet: false, heading: false, table: false, data: false };
    for (const x of sentences(text)) if (PROHIBIT.test(x.text) || ASK.test(x.text)) compileSentence(x.text, l.no, item, st);
    st.program = saved;
  }
}

/** A lead-in whose action waits for the files the list under it names: "Update X when changing:", "Regenerate the docs after editing any of:". */
const REMIND_LEAD = /\b(?:update|regenerate|rebuild|re-?run|run|review|document|bump)\b.*\b(?:when|whenever|after|if\s+you)\s+(?:changing|editing|modifying|touching|you\s+(?:change|edit|modify|touch))\b[^:]*:$/i;
interface RemindLead {
  line: number;
  text: string;
  paths: string[];
}
/** The reminder of a lead-in, once the list under it has been read: after edits of the paths its items name (none: nothing to scope it to, it stays advice). */
function endLead(l: RemindLead, st: State): undefined {
  if (!l.paths.length) return undefined;
  const { out } = st;
  out.unenforced = out.unenforced.filter((u) => u.line !== l.line);
  out.reminders.push({ file: st.file, line: l.line, text: l.text, scope: st.scope, paths: [...new Set(l.paths)], run: [], on: "edit", action: plain(l.text).replace(/:\s*$/, "") });
  return undefined;
}

/** A definition-list entry ("`site/`: built output", "[x](x.md)"), a description rather than an instruction. */
const DEFINITION = /^(?:`[^`]+`(?:\s*(?:,|and|or)\s*`[^`]+`)*|\*\*[^*]+\*\*|\[[^\]]+\]\([^)]*\))\s*(?:[—–:-]|$)|^\[[^\]]+\]\([^)]*\)\s*$/;
/** Headings whose list items are instructions: rules, boundaries, do's and don'ts, requirements, checklists. */
const INSTRUCTION_HEADING = /\b(?:rules?|guidelines?|conventions?|boundar(?:y|ies)|restrictions?|constraints?|guardrails?|requirements?|polic(?:y|ies)|do['’]?s|don['’]?ts?|never|always|must|important|critical|safety|forbidden|prohibited|limitations?|permissions?|checklists?|instructions?|avoid|gotchas?|pitfalls?|best\s+practices|etiquette|what\s+not\s+to)\b|\bbefore\s+(?:you\s+)?(?:commit|committing|push|pushing|submitting|opening|finishing)\b/i;

const FORWARD = /\b(?:the\s+following|(?:listed\s+)?below)\b/i;

/** A lead-in's text with its own spans removed ("produced by `make gen`"), or undefined when it governs nothing. */
function leadIn(s: string): string | undefined {
  // plain() only removes characters (emphasis markers, a link's brackets and target): a lead-in that ends
  // with a colon after it ends with a colon, a marker or a link's ")" before it
  const end = s.trimEnd().at(-1);
  // "Never edit the following files." over a list: a lead-in that ends with a full stop looks forward in words
  const forward = end === "." && !s.includes("`") && FORWARD.test(s);
  if (end !== ":" && end !== "*" && end !== "_" && end !== ")" && !forward) return undefined;
  const p = plain(s).trim();
  if (!p.endsWith(":") && !(forward && p.endsWith("."))) return undefined;
  const body = p.replace(/[:.]\s*$/, "");
  if (!(PROHIBIT.test(body) || ASK.test(body) || UNLESS_ASKED.test(body) || /\b(?:generated|produced\s+by)\b/i.test(body))) return undefined;
  const words = body.replace(/`[^`]*`/g, "").replace(/\s+/g, " ").trim();
  return /\b(?:are|is)\s+(?:auto-?)?(?:generated|produced)\b/i.test(words) && !PROHIBIT.test(words) ? `${words} and must not be edited` : words;
}

export function compileAgentsMd(text: string, file: string, scope: string): Compiled {
  const out: Compiled = { rules: [], reminders: [], unenforced: [], problems: [] };
  const st: State = { file, scope, out, seen: new Set(), prose: new Set(), told: new Map(), toldEdits: new Map(), pending: [], deletes: new Map(), prev: [] };
  const { items, fences } = parseBlocks(text);
  for (const f of fences) {
    if (f.tag === "toolhost" || f.tag === "rules") explicitBlock(f, st);
    else toldFence(f.tag, f.lines, st.told);
    if (!f.closed) out.problems.push({ file, line: f.line, text: f.marker + f.tag, why: `this ${f.marker} fence is never closed: every line after it was read as code, so no rule below it compiled` });
  }
  for (const f of fences) if (f.tag !== "toolhost" && f.tag !== "rules") fenceComments(f, st);
  let lead: string | undefined;
  let remLead: RemindLead | undefined;
  // the heading or paragraph lead-in whose list items are instructions (the net: they are listed when they compile to nothing)
  let netHeading: string | undefined;
  let netLead: string | undefined;
  let headingLead: string | undefined;
  let headingWhen: string | undefined;
  // a paragraph that ends "Before opening a PR, all of these must pass:" says when the commands listed under it are run
  let listWhen: string | undefined;
  for (const item of items) {
    if (item.data) {
      if (PROHIBIT.test(item.text) || ASK.test(item.text)) out.unenforced.push({ file, line: item.line, text: item.text, why: `line longer than 4000 characters`, kind: "data" });
      continue;
    }
    if (remLead && (item.heading || !item.bullet)) remLead = endLead(remLead, st);
    if (remLead && item.bullet && item.text.includes("`") && !(item.text.trimEnd().endsWith(":") && REMIND_LEAD.test(plain(item.text).trim()))) for (const x of spans(item.text)) if (!/\s/.test(x.text) && looksLikePath(x.text) && /[/*]|\.[a-z]{1,5}$/i.test(x.text)) remLead.paths.push(pathSpec(x.text));
    if (item.heading) {
      netHeading = INSTRUCTION_HEADING.test(item.text) ? plain(item.text).trim() : undefined;
      netLead = undefined;
      st.prev = [];
      st.program = undefined;
      lead = undefined;
      const before = out.rules.length;
      compileSentence(item.text, item.line, item, st);
      headingLead = out.rules.length === before ? leadIn(`${item.text}:`) : undefined;
      headingWhen = out.rules.length === before && isCommitTrigger(plain(item.text)) ? plain(item.text).trim() : undefined;
      listWhen = undefined;
      continue;
    }
    if (!item.bullet) listWhen = undefined;
    const when = headingWhen ?? listWhen;
    if (when && item.bullet && item.text.startsWith("`") && whenItem(when, item, st)) continue;
    if (item.bullet && item.text.startsWith("`")) pathItem(item, st);
    const gov = lead ?? (item.bullet ? headingLead : undefined);
    if (gov && item.bullet && item.text.startsWith("`") && leadItem(gov, item, st)) continue;
    // "## Do Not" over "- Add new dependencies without running `pnpm update-references`": a bare ban governs each plain item
    if (gov && item.bullet && BARE_BAN.test(gov) && !PROHIBIT.test(item.text) && !item.text.startsWith("`")) {
      compileSentence(`${gov.trim()} ${item.text.charAt(0).toLowerCase()}${item.text.slice(1)}`, item.line, { ...item, code: undefined }, st);
      for (const r of st.out.rules) if (r.line === item.line) r.text = item.text;
      for (const r of st.out.reminders) if (r.line === item.line) r.text = item.text;
      for (const u of st.out.unenforced) if (u.line === item.line) u.text = item.text;
      continue;
    }
    if (!item.bullet) lead = undefined;
    const counts = out.rules.length + out.reminders.length + out.unenforced.length;
    const ss = sentences(item.text);
    const last = ss.at(-1);
    const next = last && leadIn(last.text);
    for (const x of ss) {
      if (x === last && next) out.unenforced.push({ file, line: lineOf(item, x.at), text: x.text, why: "a lead-in: each list item under it is compiled with it", kind: "guidance" });
      else compileSentence(x.text, lineOf(item, x.at), item, st);
    }
    // an item under a ban or ask lead-in reads as an instruction even when its words alone do not ("Ask first:" over "- Changes that affect demo, examples, or CI.")
    if (gov && item.bullet && counts === out.rules.length + out.reminders.length + out.unenforced.length) out.unenforced.push({ file, line: item.line, text: item.text, why: `under the lead-in "${gov.slice(0, 60)}": names no command, file or tool to enforce`, kind: "no-target" });
    // a list item under a heading of rules ("## Boundaries") or an instruction lead-in ("Follow these steps:") is an instruction even in bare words
    else if (item.bullet && (netLead ?? netHeading) && !DEFINITION.test(item.text) && counts === out.rules.length + out.reminders.length + out.unenforced.length) out.unenforced.push({ file, line: item.line, text: item.text, why: `an item under "${(netLead ?? netHeading)!.slice(0, 60)}": nothing a tool rule can check`, kind: "guidance" });
    if (!item.bullet) netLead = last && last.text.trimEnd().endsWith(":") && isInstruction(plain(last.text)) ? plain(last.text).trim() : undefined;
    if (next) lead = next;
    else if (!item.bullet) lead = undefined;
    if (!item.bullet && last && last.text.endsWith(":")) listWhen = leadTrigger(plain(last.text).trim());
    // "Update ARCHITECTURE.md when changing core components:" over a (sub-)list that names the files: a reminder after edits of them
    // (an action through a pronoun, "Run it when you change:", names nothing the reminder could say)
    if (last && last.text.trimEnd().endsWith(":") && REMIND_LEAD.test(plain(last.text).trim()) && !/\b(?:update|regenerate|rebuild|re-?run|run|review|document|bump)\s+(?:it|them|this|these|that|those)\b/i.test(last.text)) {
      if (remLead) remLead = endLead(remLead, st);
      remLead = { line: lineOf(item, last.at), text: last.text, paths: [] };
    }
    if (!item.bullet) st.prev = st.prev.slice();
  }
  if (remLead) endLead(remLead, st);
  resolveConflicts(st);
  return out;
}

