/**
 * Bans and asks of one sentence → Claude Code rules. What a sentence governs is the code spans (or plain
 * words) after its prohibition, and what they become depends on the verb before them: a command verb makes
 * a `Bash(...)` rule, an edit verb an `Edit(...)`, a read verb a `Read(...)`, a tool name that tool; a flag
 * (`--release`, `@@`) becomes a rule on the flag in any position of its command. "unless asked", "ask
 * first", "requires approval" make it an ask. Conditions the host cannot see ("when comparing", "if a
 * modular file exists"), preferences, code constructs and other subjects ("It must never push") stay
 * advice, with the reason pushed to `why`.
 */
import { clauses as clausesOf, commandRule, isFlag, isToolName, looksLikeCode, looksLikeCommand, looksLikePath, pathSpec, spans, valid, type Span } from "./text.ts";
import { ASK, ONLY_IF_ASKED, CMD_VERBS, COMMIT_VERBS, CODE_WORDS, CONDITION, EDIT_KINDS, EDIT_VERBS, NOT_A_BAN, NOT_ASK, OTHER_SUBJECT, PHRASES, PROGRAMS, PROHIBIT, READ_VERBS, SOFT, UNLESS_ASKED } from "./words.ts";

export type Behavior = "deny" | "ask";
type Kind = "cmd" | "edit" | "read" | "commit";

export interface BanCtx {
  /** Spans of the previous sentence of the item (the referent of "them", "it is generated"). */
  prev: string[];
  /** The command a heading or label names ("**`afl-cmin`**: Do not use `@@`"). */
  program?: string;
  /** Adds a rule; the reason shown to the model may carry a hint. */
  add: (behavior: Behavior, rule: string, hint?: string, deletes?: string) => void;
  /** The whole item the sentence is in: where "the complete test suite" is named with its command. */
  context?: () => string;
  /** Why the sentence (or part of it) stays advice. */
  why: Array<{ kind: string; why: string }>;
}

const VERBS = [
  [CMD_VERBS, "cmd"],
  [EDIT_VERBS, "edit"],
  [READ_VERBS, "read"],
  [COMMIT_VERBS, "commit"],
] as const;

/** Every verb of a string, in order (on the same offset the earlier list first); the last string's is kept: one clause is asked about once per span. */
let verbsOf = { s: "", all: [] as Array<{ at: number; kind: Kind; verb: string }> };
function verbs(s: string): Array<{ at: number; kind: Kind; verb: string }> {
  if (verbsOf.s === s) return verbsOf.all;
  const all: Array<{ at: number; kind: Kind; verb: string }> = [];
  for (const [re, kind] of VERBS) {
    re.lastIndex = 0;
    for (let m = re.exec(s); m; m = re.exec(s)) all.push({ at: m.index, kind, verb: m[0].toLowerCase() });
  }
  // (stable: within one offset the lists keep their order)
  all.sort((a, b) => a.at - b.at);
  verbsOf = { s, all };
  return all;
}

/**
 * The kind of the last verb before `at` (and from `from` on: a verb before the prohibition is not the banned
 * one), if any (the later verb wins; on a tie the earlier list).
 */
function verbBefore(s: string, at: number, from = 0): { kind: Kind; verb: string } | undefined {
  const all = verbs(s);
  let best: { at: number; kind: Kind; verb: string } | undefined;
  for (const v of all) {
    if (v.at >= at) break;
    if (v.at >= from && (!best || v.at > best.at)) best = v;
  }
  return best && { kind: best.kind, verb: best.verb };
}

const TRAILING_OK = /^(?:(?:by\s+hand|manually|directly|yourself|ever|again|at\s+all|anywhere|here|locally|in\s+this\s+(?:repo|repository|project|codebase)|in\s+any\s+(?:case|circumstances?|way|form)|under\s+any\s+circumstances|files?|folders?|directory|directories|commands?|tool|program|script)\b|$)/i;
const TRAILING_NARROWS = /^(?:to|on|onto|against|into|in|from|for|with|at|outside|inside|when|while|if|unless|until|over|as|via|through)\b/i;
/** Only list separators between two spans ("`rm -rf` or `cp -r`"): words after the last one narrow them all. */
const LIST_GAP = /^[\s,/]*(?:(?:or|and|nor)\b[\s,/]*)?$/i;
/** Quoted words ("check if they fail on main") are a name for the act, not a condition on it. */
const QUOTED = /"[^"]*"|“[^”]*”/g;
const PASSIVE = /\b(?:be|get|being)\s+(edited|modified|changed|touched|overwritten|deleted|removed|hand-edited|updated|run|executed|invoked|read|opened)\b/i;
// (an object: "where it's defined", "it is slow" are no referents)
const PRONOUN = /\b(them|these|those|it(?!['’]s|\s+(?:is|was|has|will|can|should|must|does)\b)|this\s+file|these\s+files|that\s+file|those\s+files)\b/i;
const ALWAYS_TRUE = /\bwhen\s+(?:developing|working(?:\s+here|\s+in\s+this\s+(?:repo|repository))?)\b|\bin\s+this\s+(?:repo|repository|project)\b/gi;
const USE_ONLY = /^(?:use|using)$/;

/** The rule for one governed span, or the reason it is none. */
export function spanRule(x: string, kind: Kind | undefined, verb: string | undefined, clause: string, program: string | undefined): { rule?: string; why?: string } {
  if (isFlag(x)) {
    if (x === "@latest") return { rule: "Bash(*@latest*)" };
    const prog = program && looksLikeCommand(program) ? program.replace(/\s+\*$/, "") : undefined;
    // a dash flag matches in any position of its command (the matcher reorders flags); a plain argument needs the wildcard before it
    if (!prog) return { rule: `Bash(* ${x} *)` };
    return { rule: x.startsWith("-") ? `Bash(${prog} ${x} *)` : `Bash(${prog} * ${x} *)` };
  }
  if (isToolName(x) && (kind === "cmd" || kind === undefined)) return { rule: x };
  if (kind === undefined) return { why: `no run/edit/read verb before "${x}"` };
  if (kind === "cmd") {
    if (!looksLikeCommand(x)) return { why: `"${x}" is code, not a command` };
    const first = x.split(/\s+/)[0]!;
    if (verb && USE_ONLY.test(verb) && !PROGRAMS.has(first) && (!/\s/.test(x) || CODE_WORDS.test(clause))) return { why: `"${x}" is a name in code, not a command` };
    const rule = commandRule(x);
    return rule ? { rule } : { why: `"${x}" is only a placeholder` };
  }
  if (!looksLikePath(x) || !/[./*]/.test(x)) return { why: `"${x}" is not a path` };
  // "Never commit `.env` files": staging it is the call to catch (`git add -f .env` too: the matcher reorders flags)
  if (kind === "commit") return { rule: `Bash(git add ${pathSpec(x).replace(/\/\*\*$/, "/*")})` };
  return { rule: `${kind === "edit" ? "Edit" : "Read"}(${pathSpec(x)})` };
}

const AGENT = /^(?:(?:and|but|so|then|also|please|just|always|still|otherwise|instead|here|locally|you|we|agents?|the\s+agent|ai\s+agents?|claude|codex|you\s+\w+|\W+)\s*)*$/i;
const AUXILIARY = /\b(?:is|are|was|were|be|been|has|have|had|will|would|can|could|should|must|may|might|does|did)\b/i;
/** A ban and its verb, with nothing else: "Never commit", "Do not edit or delete". */
const BAN_VERB = /^(?:never|do\s+not|don['’]t|must\s+not)\s+(?:ever\s+)?[a-z-]+(?:\s+(?:or|and)\s+[a-z-]+)?(?=\s)/i;
const SKIP_HOOKS = /^\S+(?:\s+not)?\s+(?:ever\s+)?(?:skip|bypass|disable|circumvent)\w*\s+(?:the\s+|any\s+|git\s+)?(?:pre-?commit\s+|pre-?push\s+|commit\s+|git\s+)(?:hooks?|checks?)\b/i;
const SKIP_FLAG = /^\S+(?:\s+not)?\s+(?:skip|bypass|disable)\b[^`(]*\(\s*`(--?[A-Za-z][\w-]*)`\s*\)/i;
const RIGHT_AFTER = /^(?:never|do\s+not|don['’]t|must\s+not|should\s+not)\s*(?:ever\s+)?$/i;
const THIRD_PERSON = /^(?:never|not)\s+(?:(?:even|always|really)\s+)?[a-z]+[^s\W]s\b/i;
const MODAL_BAN = /^(?:must|should|may|shall|can|cannot|can['’]t|mustn['’]t|shouldn['’]t)\b/i;

/** "It must never push", "Integration tests … cannot be run": the ban is about something other than the agent. */
function otherSubject(clause: string, from: number): boolean {
  if (OTHER_SUBJECT.test(clause.trim())) return true;
  // "A passing typecheck never proves `dist` is fresh": a verb in the third person has a subject that is not the agent
  if (THIRD_PERSON.test(clause.slice(from)) && clause.slice(0, from).trim() && !AGENT.test(clause.slice(0, from).trim())) return true;
  const pre = clause.slice(0, from).trim();
  if (!pre || AGENT.test(pre) || /`/.test(pre)) return false;
  if (PASSIVE.test(clause.slice(from))) return !(PRONOUN.test(pre) || /\bfiles?\b/i.test(pre));
  return MODAL_BAN.test(clause.slice(from)) || /\b(?:should|must|may|can|will)\s*$/i.test(pre);
}

/** Why a governed clause is advice rather than a rule, if it is. */
export function adviceReason(clause: string, from: number, behavior: Behavior, leadingCondition: boolean): { kind: string; why: string } | undefined {
  // ("DO NOT try to bypass it": a firm ban, unlike "try not to")
  const after = UNLESS_ASKED.drop(clause.slice(from)).replace(ALWAYS_TRUE, "").replace(QUOTED, '""').replace(/^(\S+(?:\s+not)?)\s+(?:ever\s+)?try\s+to\s+/i, "$1 ");
  if (otherSubject(clause, from)) return { kind: "other-subject", why: `about "${clause.trim().split(/\s+/).slice(0, 2).join(" ")}", not the agent's own tool calls` };
  const nb = NOT_A_BAN.exec(after);
  if (nb) return { kind: "condition", why: `"${nb[0]}" makes it a reminder to do something, not a ban` };
  if (leadingCondition) return { kind: "condition", why: `holds only under the condition that starts the sentence` };
  const cond = CONDITION.exec(after);
  if (cond && !(behavior === "ask" && /^(?:before|after)$/i.test(cond[0]))) return { kind: "condition", why: `"${cond[0]}" makes it a condition, not a ban` };
  const soft = SOFT.exec(after);
  if (soft) return { kind: "preference", why: `"${soft[0]}" makes it a preference, not a rule` };
  return undefined;
}

const SINGULAR = /\b(?:it|this\s+file|that\s+file)\b/i;

/**
 * What a pronoun stands for: the previous sentence's spans. "that file" is its last span of the kind the verb
 * needs; "them" / "these files" are all its spans, and only when every one is of that kind — a sentence that
 * names a source, a command and an output leaves "them" ambiguous, and an ambiguous target stays advice.
 */
function referents(ctx: BanCtx, kind: Kind | undefined, clause: string): string[] {
  const fits = (t: string) => (kind === "cmd" ? looksLikeCommand(t) : kind ? looksLikePath(t) && /[./*]/.test(t) : false);
  const p = PRONOUN.exec(clause);
  if (p && SINGULAR.test(p[0])) {
    const last = ctx.prev.findLast(fits);
    if (last) return [last];
  } else if (ctx.prev.length && ctx.prev.every(fits)) return ctx.prev;
  if (ctx.prev.length) ctx.why.push({ kind: "no-target", why: `a pronoun whose referent is ambiguous (${ctx.prev.slice(0, 3).map((x) => `"${x}"`).join(", ")}): name the files or commands in the sentence` });
  return [];
}

/** Compiles the code spans a clause governs; returns how many rules it added. */
function compileClause(clause: string, behavior: Behavior, from: number, ctx: BanCtx): number {
  const sp = spans(clause);
  const passive = PASSIVE.exec(clause.slice(from));
  let governed: Array<{ x: string; kind?: Kind; verb?: string; at: number; raw: number }>;
  if (passive) {
    const kind: Kind = /run|executed|invoked/i.test(passive[1]!) ? "cmd" : /read|opened/i.test(passive[1]!) ? "read" : "edit";
    const before = sp.filter((x) => x.at < from).map((x) => x.text);
    const own = before.length ? before : sp.map((x) => x.text);
    governed = (own.length ? own : referents(ctx, kind, clause)).map((x) => ({ x, kind, verb: passive[1]!, at: -1, raw: 0 }));
  } else {
    // "Running `terraform apply` requires approval": a postfix ask governs the spans before it
    const after = sp.filter((x) => x.at > from);
    const own = after.length || behavior === "deny" ? after : sp;
    // "Never `git push` without …": a command span right after the prohibition is run
    governed = own.map((x) => ({ x: x.text, ...(verbBefore(clause, x.at, x.at > from ? from : 0) ?? (RIGHT_AFTER.test(clause.slice(from, x.at)) && PROGRAMS.has(x.text.split(/\s+/)[0]!) ? { kind: "cmd" as Kind, verb: "run" } : {})), at: x.at, raw: x.raw }));
    if (!governed.length && PRONOUN.test(clause.slice(from))) {
      const v = verbBefore(clause, clause.length);
      governed = referents(ctx, v?.kind, clause).map((x) => ({ x, kind: v?.kind, verb: v?.verb, at: -1, raw: 0 }));
    }
  }
  let n = 0;
  for (let i = 0; i < governed.length; i++) {
    const g = governed[i]!;
    if (g.at >= 0) {
      // the words after the last span of the list this one starts ("`rm -rf` or `cp -r` in package.json scripts")
      let j = i;
      while (j + 1 < governed.length && governed[j + 1]!.at >= 0 && LIST_GAP.test(clause.slice(governed[j]!.at + governed[j]!.raw, governed[j + 1]!.at))) j++;
      const last = governed[j]!;
      const end = j + 1 < governed.length && governed[j + 1]!.at >= 0 ? governed[j + 1]!.at : clause.length;
      const after = UNLESS_ASKED.drop(clause.slice(last.at + last.raw, end)).replace(/^\s*tool\b/i, "").replace(/^[\s.!?)"',]+/, "").trim();
      if (after && !TRAILING_OK.test(after) && TRAILING_NARROWS.test(after)) {
        ctx.why.push({ kind: "narrowed", why: `"${governed.slice(i, j + 1).map((x) => x.x).join('", "')}" ${j > i ? "are" : "is"} narrowed by "${after.slice(0, 40)}"; write the exact rule in a \`\`\`toolhost block` });
        i = j + 1;
        continue;
      }
    }
    const program = ctx.program ?? lastCommandBefore(sp, g.at);
    const r = spanRule(g.x, g.kind, g.verb, clause, program);
    const bad = r.rule && valid(r.rule);
    if (!r.rule || bad) {
      ctx.why.push({ kind: bad ? "unclassified" : looksLikeCode(g.x) ? "style" : "no-target", why: bad || r.why! });
      continue;
    }
    ctx.add(behavior, r.rule, undefined, g.kind === "edit" && g.verb && /^(?:delet|remov)/.test(g.verb) ? g.x : undefined);
    n++;
  }
  return n;
}

function lastCommandBefore(sp: Span[], at: number): string | undefined {
  for (let i = sp.length - 1; i >= 0; i--) if (sp[i]!.at < at && looksLikeCommand(sp[i]!.text)) return sp[i]!.text;
  return undefined;
}

/** Program names that are also English words: named in words, they are programs only after a command verb. */
const AMBIGUOUS = new Set(["make", "go", "just", "find", "bundle", "black", "rake", "gem", "swift", "apt", "cat", "touch", "helm"]);
const STOP = /^(?:in|on|to|from|for|with|without|unless|when|while|if|as|because|since|directly|manually|locally|here|anywhere|at|or|and|but|nor|the|a|an|any|it|them|—|-)$/i;
/** "never run git push --force", "NEVER pip": a known program named in words, with its arguments. */
// (a word of gov, cut as plainCommands cuts it, that is a program: without one it finds nothing)
const PROGRAM_WORD = new RegExp(`(?<![^\\s,.;:!?()])(?:${[...PROGRAMS].map((p) => p.replace(/[.+-]/g, "\\$&")).join("|")})(?![^\\s,.;:!?()])`, "i");
function plainCommands(gov: string): string[] {
  const out: string[] = [];
  if (!PROGRAM_WORD.test(gov)) return out;
  // "never change Volta, Yarn, or package manager versions": a program named as the object of a verb that is not a command verb
  const v = verbBefore(gov, gov.length);
  if (v && v.kind !== "cmd") return out;
  const words = gov.replace(/[,.;:!?()]/g, " , ").split(/\s+/).filter(Boolean);
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!.toLowerCase();
    if (!PROGRAMS.has(w)) continue;
    const prevWord = (words[i - 1] ?? "").toLowerCase();
    // "changes you did not make", "NEVER make unearned assumptions": a program that is also an English word needs a command verb
    if (AMBIGUOUS.has(w) ? !/^(?:run|use|execute|invoke|call|type|with|via)$/.test(prevWord) : i > 0 && !/^(?:run|use|execute|invoke|call|type|never|not|no|,|ever|with|via)$/.test(prevWord) && !PROHIBIT.test(prevWord)) continue;
    const args = [w];
    for (let j = i + 1; j < words.length && args.length < 5; j++) {
      const a = words[j]!;
      if (a === "," || STOP.test(a) || !/^[\w@./=-]+$/.test(a) || (!a.startsWith("-") && /^[A-Z]/.test(a))) break;
      args.push(a);
    }
    out.push(args.join(" "));
  }
  return out;
}

/** Actions named in words ("create a PR", "update dependencies", "push to `develop`"). */
// (a word every phrase needs: most governed words name none of them)
const PHRASE_GATE = /draft|\bprs?\b|pull|issue|comment|release|github|push|amend|squash|rebase|reset|stash|worktree|branch|dep|packag|\bci\b|new\s+files?/i;
const NEAR = 8;
function wordsBefore(s: string, at: number): number {
  let n = 0;
  for (let i = 0, inWord = false; i < at; i++) {
    const space = s.charCodeAt(i) <= 32;
    if (!space && !inWord) n++;
    inWord = !space;
  }
  return n;
}
function phrases(gov: string, behavior: Behavior, ctx: BanCtx): number {
  let n = 0;
  if (!PHRASE_GATE.test(gov)) return n;
  for (const p of PHRASES) {
    const m = p.re.exec(gov);
    if (!m) continue;
    // the action is the ban's object, near it: "never force-push, amend, or squash", not a word later in the sentence
    if (wordsBefore(gov, m.index) > NEAR) continue;
    for (const r of p.rules) ctx.add(behavior, r.replace("$1", m[1] ?? m[2] ?? ""));
    n++;
  }
  return n;
}

/** Plain words a ban governs: actions ("create a PR"), programs ("pip"), kinds of file ("snapshot files"), path words (".env", "public/"). */
function compileWords(gov: string, behavior: Behavior, ctx: BanCtx): number {
  let n = phrases(gov, behavior, ctx);
  for (const c of plainCommands(gov)) {
    const rule = commandRule(c);
    if (rule && !valid(rule)) (ctx.add(behavior, rule), n++);
  }
  const v = verbBefore(gov, gov.length);
  if (v?.kind === "edit") for (const k of EDIT_KINDS) if (k.re.test(gov)) for (const p of k.paths) (ctx.add(behavior, `Edit(${p})`), n++);
  if (v && v.kind !== "cmd") {
    for (const m of gov.matchAll(/(?:^|\s)((?:\.?[\w-]+\/)+|\.[\w.-]+|[\w-]+\.(?:env|pem|key|lock|json|ya?ml|toml))(?=[\s,.;:!?)]|$)/g)) {
      const p = m[1]!.replace(/[.]$/, "");
      if (p.length < 2 || !/[./]/.test(p)) continue;
      ctx.add(behavior, v.kind === "commit" ? `Bash(git add ${pathSpec(p).replace(/\/\*\*$/, "/*")})` : `${v.kind === "edit" ? "Edit" : "Read"}(${pathSpec(p)})`);
      n++;
    }
  }
  return n;
}

/**
 * One sentence (emphasis already removed): its bans and asks, clause by clause for code spans and over the
 * governed words for plain-word bans. Returns the number of rules added.
 */
export function compileBans(s: string, ctx: BanCtx): number {
  const parts = clausesOf(s);
  const unlessAsked = UNLESS_ASKED.test(s) || liftedByItem(s, ctx);
  const leading = /^(?:if|when|whenever|while|for|during|once)\b/i.test(s.trim());
  let n = 0;
  let first = true;
  // "Never commit API keys, tokens, …, or `.env` files": the list after a ban's verb is cut at its commas; each
  // later piece that has no verb of its own is still governed by it
  let carry: string | undefined;
  for (let clause of parts) {
    const isFirst = first;
    first = false;
    if (carry && !PROHIBIT.test(clause) && !ASK.test(clause) && !verbBefore(clause, clause.length) && !AUXILIARY.test(clause)) clause = `${carry} ${clause.replace(/^(?:or|and|nor)\s+/i, "")}`;
    else carry = undefined;
    // ("never run it without asking" asks; "can be run without asking" grants)
    const na = NOT_ASK.exec(clause);
    if (na && !(/^without/i.test(na[0]) && PROHIBIT.test(clause.slice(0, na.index)))) {
      ctx.why.push({ kind: "permission", why: "says what may be done without asking: nothing to enforce" });
      continue;
    }
    const a = ASK.exec(clause);
    const m = PROHIBIT.exec(clause);
    if (!a && !m) continue;
    if (!carry) {
      const lead = BAN_VERB.exec(clause.slice((a ?? m)!.index));
      carry = lead ? clause.slice((a ?? m)!.index, (a ?? m)!.index + lead[0].length) : undefined;
    }
    const behavior: Behavior = a || unlessAsked ? "ask" : "deny";
    const from = a ? a.index : m!.index;
    // "Never skip pre-commit hooks (`--no-verify`)": the flag in parentheses is how it is skipped
    const skip = SKIP_FLAG.exec(clause.slice(from));
    if (skip && isFlag(skip[1]!)) {
      ctx.add(behavior, spanRule(skip[1]!, "cmd", "run", clause, ctx.program).rule!);
      n++;
      continue;
    }
    // "Never bypass the pre-commit hook": the hooks are skipped with --no-verify
    if (SKIP_HOOKS.test(clause.slice(from))) {
      ctx.add(behavior, "Bash(* --no-verify *)", "fix what the hook reports instead");
      n++;
      continue;
    }
    const reason = adviceReason(clause, from, behavior, leading && !isFirst);
    if (reason) {
      ctx.why.push(reason);
      continue;
    }
    const sp = spans(clause);
    let k = sp.length || PASSIVE.test(clause) || PRONOUN.test(clause.slice(from)) ? compileClause(clause, behavior, from, ctx) : 0;
    // "Never update dependencies, `package.json`, …": an action in words before the spans the clause also names
    if (k && sp[0] && sp[0].at > from) k += phrases(clause.slice(from, sp[0].at), behavior, ctx);
    if (!k) k = compileWords(s.slice(s.indexOf(clause) + from), behavior, ctx);
    const context = !k && ctx.context?.();
    if (context) k = referent(clause.slice(from), context, behavior, ctx);
    if (!k && !spans(clause).length && !ctx.why.length) ctx.why.push({ kind: "no-target", why: "names no command, file or tool to enforce" });
    n += k;
  }
  return n;
}


/** Whether another sentence of the item says the banned verb may be done when the user asks ("Only amend if the user explicitly says so"). */
function liftedByItem(s: string, ctx: BanCtx): boolean {
  const item = ctx.context?.();
  if (!item || item.length === s.length || !/\bonly\b/i.test(item)) return false;
  ONLY_IF_ASKED.lastIndex = 0;
  for (let m = ONLY_IF_ASKED.exec(item); m; m = ONLY_IF_ASKED.exec(item)) if (new RegExp(`\\b${m[1]!.slice(0, 5)}`, "i").test(s)) return true;
  return false;
}

const WHOLE = /\b(?:complete|full|entire|whole)\b/i;

/**
 * "do ask the user before running the complete test suite": the thing is named in words that the same item
 * gives a command for ("run the complete test suite with `cargo test` (or `just test` …)"). "complete/full/
 * entire/whole" means exactly that command, not every narrower run of it.
 */
function referent(gov: string, context: string, behavior: Behavior, ctx: BanCtx): number {
  const noun = /\b(?:running|run|use|using|build|building)\s+(?:the\s+)?((?:[a-z-]+\s+){0,2}(?:suite|tests?|build|benchmarks?|migrations?|deploy(?:ment)?))\b/i.exec(gov);
  if (!noun) return 0;
  const key = noun[1]!.toLowerCase().split(/\s+/).at(-1)!;
  const exact = WHOLE.test(noun[1]!);
  const re = new RegExp(`\\b${key}\\b[^.;\`]{0,30}((?:\`[^\`]+\`[^.;\`]{0,30}){1,3})`, "gi");
  let n = 0;
  for (const m of context.matchAll(re)) {
    if (WHOLE.test(m[0]) !== exact && !WHOLE.test(context.slice(Math.max(0, m.index! - 30), m.index!))) continue;
    for (const x of spans(m[1]!)) {
      if (!looksLikeCommand(x.text) || !PROGRAMS.has(x.text.split(/\s+/)[0]!)) continue;
      const rule = exact ? `Bash(${x.text})` : commandRule(x.text);
      if (rule && !valid(rule)) (ctx.add(behavior, rule), n++);
    }
    if (n) break;
  }
  return n;
}
