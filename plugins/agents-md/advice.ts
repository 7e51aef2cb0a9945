/**
 * Nothing dropped silently: every sentence that reads like an instruction and compiled to nothing gets a
 * kind and a reason (`toolhost agents` lists them; `--strict` fails on "unclassified"). And precision:
 * a compiled rule that would block a command the same file tells the agent to run is a conflict — listed,
 * not enforced.
 */
import { parseRule, ruleHit, callFacts, type CallFacts, type ParsedRule } from "../../lib/rules/match.ts";
import { looksLikeCode, looksLikeCommand, spans } from "./text.ts";
import { ASK, CODE_WORDS, PROHIBIT, SOFT } from "./words.ts";

export type AdviceKind = "style" | "preference" | "condition" | "other-subject" | "no-target" | "narrowed" | "permission" | "guidance" | "every-edit" | "conflict" | "data" | "unclassified";

export const IMPERATIVE = /^(?:please\s+)?(?:run|use|add|keep|write|follow|check|verify|install|build|test|update|create|remove|delete|edit|read|include|set|wrap|place|put|call|mark|review|look|see|stay|work|raise|return|define|explain|describe|introduce|prioritize|order|minimize|reuse|treat|implement|expose|validate|regenerate|replace|try|get|give|make|let|do|document|import|pin|link|hide|structure|nest|name|start|stop|prefer|avoid|commit|push|open|format|lint|ensure|guard|apply|benchmark|measure|reference|copy|rename|launch|wait|quit|switch|upgrade|pass|preserve|fix|consider|favor|favour|tag|label|squash|rebase|merge|invoke|execute|declare|annotate|mirror|audit|prove|supplement|leave)\b/i;
const MODAL = /\b(?:never|don['’]t|do\s+not|must|should|shall|always|avoid|prefer|ask|forbidden|prohibited|ensure|make\s+sure|required|requires?|needs?\s+to|have\s+to|remember|important|critical)\b/i;
/** "When creating or moving files, update …", "After a schema change, regenerate …": a leading condition, then an imperative. */
const WHEN_THEN = /^(?:when|whenever|after|before|if|once|while)\b[^,;]{1,80},\s*(?:please\s+|always\s+|also\s+|then\s+)?/i;

/*
 * The net under the compiler: shapes of an instruction in English that carry no word of MODAL and start
 * with no verb of IMPERATIVE. Designed from grammar (modal and negative auxiliaries, the bare imperative
 * with its leading adverbs, normative statements about files, a trigger clause with a command) rather than
 * from sentences: a sentence it catches that compiles to nothing is listed as advice with its reason, so it
 * can only add lines to `toolhost agents`, never a rule.
 */
/** Negative and modal forms MODAL misses: contractions, "may not", "not allowed / permitted", "refrain". */
const NEGATIVE = /\b(?:dont|mustn['’]t|shouldn['’]t|cannot|can['’]t|won['’]t|may\s+not|not\s+(?:be\s+)?(?:allowed|permitted|supported\s+to)|disallowed|banned|off-limits|refrain|under\s+no\s+circumstances)\b/i;
/** Statements that bind the reader without a modal: generated or read-only files, "unless asked", a preferred alternative. */
const NORMATIVE = /\b(?:auto-?generated|(?:is|are)\s+(?:automatically\s+|machine-)?generated|generated\s+(?:by|from|with)|read-?only|immutable|do-?not-?edit|unless\s+(?:explicitly\s+|specifically\s+)?(?:asked|requested|instructed|told)|(?:instead\s+of|rather\s+than)\s+`|only\s+(?:ever\s+)?(?:use|run|call|edit|modify|touch|commit|push|install|add)|(?:use|run)\s+only)\b/i;
/** A bare imperative: a verb in its base form first, after leading adverbs ("Also", "Then", "Just", "First,"). */
const LEAD_ADVERBS = /^(?:(?:please|also|then|just|simply|first|finally|instead|now|only|additionally|afterwards|next)\b,?\s+)+/i;
const NET_VERB = /^(?:re-?run|rerun|generate|compile|deploy|publish|release|sync|pull(?!\s+requests?\b)|fetch|reset|clean|bump|sign|lock|restart|refresh|rebuild|retry|revert|stage|stash|submit|send|post|share|notify|report|confirm|tell|request|obtain|seek|contact|escalate|restrict|limit|disable|enable|skip|bypass|ignore|note|double-check|clear|drop|purge|wipe|kill|touch|modify|change|alter|overwrite|scaffold|configure|set\s+up|mock|stub|store|save|upload|download|clone|fork|cherry-pick|amend|force|regenerate|typecheck|type-check|rely|stick|refer|consult|mention|describe|write|keep|add|use|run|install|update|check|verify|test|build|lint|format|create|delete|remove|edit|read|open|close|commit|push|merge|rebase|squash|open|leave|never|avoid)\b/i;
/** A sentence that starts with a trigger clause ("Before committing: `make lint`"). */
const TRIGGER_LEAD = /^(?:before|after|when|whenever|once|prior\s+to|at\s+the\s+end\s+of|on\s+every)\b/i;
/** "No force pushes", "No new dependencies": a ban as a noun phrase. */
const NO_NOUN = /^no\s+(?!one\b|longer\b|need\b|matter\b|more\b|other\b|such\b)[a-z][\w-]*/i;
/** "`make fmt` — run it after edits", "`dist/`: do not edit": a clause after a dash or a colon that is an imperative. */
const CLAUSE_IMPERATIVE = /(?:\s[—–-]\s|:\s|\(\s*)(?:please\s+|always\s+|also\s+|then\s+|only\s+)?(?:run|use|edit|update|regenerate|keep|add|call|invoke|execute|install|commit|push|check|verify|never|avoid)\b/i;

// (one scan each: the modal and negative words and the normative statements together, a verb first from either list)
const WORDS = new RegExp(`${MODAL.source}|${NEGATIVE.source}|${NORMATIVE.source}`, "i");
const VERB_FIRST = new RegExp(`${IMPERATIVE.source}|${NET_VERB.source}`, "i");
const RUN_SPAN = /\b(?:run|use|execute|invoke)\s+`/i;

/** Whether a sentence reads like an instruction (as opposed to description). */
/**
 * `noKeys`: the caller's key-word scan (compile.ts KEYS) found none of its words, which covers every word of
 * WORDS but these: the rest of WORDS cannot match, so only these are scanned for.
 */
const WORDS_NO_KEYS = /\b(?:always|ensure|make\s+sure|required|needs?\s+to|have\s+to|remember|important|critical|disallowed|banned|off-limits|refrain)\b/i;
export function isInstruction(s: string, noKeys = false): boolean {
  if ((noKeys ? WORDS_NO_KEYS : WORDS).test(s) || (s.includes("`") && RUN_SPAN.test(s))) return true;
  // after a short "Label: " lead, or the whole sentence; after leading adverbs ("Also", "Then", "First,")
  const t = s.trim();
  const unlabelled = s.includes(":") ? s.replace(/^[^:]{0,40}:\s+/, "").trim() : t;
  const bare = unlabelled.replace(LEAD_ADVERBS, "");
  if (VERB_FIRST.test(bare) || NO_NOUN.test(bare) || (unlabelled !== t && VERB_FIRST.test(t))) return true;
  // "When creating or moving files, update …": a leading condition, then an imperative
  const w = WHEN_THEN.exec(bare);
  if (w && VERB_FIRST.test(bare.slice(w[0].length))) return true;
  if ((t.includes(" - ") || t.includes(" — ") || t.includes(" – ") || t.includes(": ") || t.includes("(")) && CLAUSE_IMPERATIVE.test(t)) return true;
  return t.includes("`") && (TRIGGER_LEAD.test(t) || TRIGGER_LEAD.test(unlabelled));
}

/** The kind and reason for an instruction that compiled to nothing, given what the compiler said about it. */
export function classify(s: string, said: Array<{ kind: string; why: string }>, banLike = PROHIBIT.test(s) || ASK.test(s)): { kind: AdviceKind; why: string } {
  const known = said.find((w) => w.kind !== "unclassified");
  if (known) return { kind: known.kind as AdviceKind, why: said.map((w) => w.why).join("; ") };
  const sp = spans(s).map((x) => x.text);
  const soft = SOFT.exec(s);
  if (soft) return { kind: "preference", why: `"${soft[0]}" makes it a preference, not a rule` };
  if ((sp.length && sp.every((t) => looksLikeCode(t) || !looksLikeCommand(t)) && CODE_WORDS.test(s)) || (!sp.length && CODE_WORDS.test(s) && !banLike)) return { kind: "style", why: "about how code is written, not a tool call" };
  if (said.length) return { kind: "unclassified", why: said.map((w) => w.why).join("; ") };
  if (banLike) return { kind: "no-target", why: "names no command, file or tool to enforce" };
  return { kind: "guidance", why: "a how-to or a requirement on the result: nothing a tool rule can check" };
}

/** Commands the file tells the agent to run: spans outside bans and asks, and lines of shell fences. */
export function toldCommands(sentence: string, told: Map<string, number>, line: number, banLike = PROHIBIT.test(sentence) || ASK.test(sentence)): void {
  if (!sentence.includes("`")) return;
  if (banLike) {
    // an exception inside a ban is something the agent is told it may do
    const ex = /\b(?:except|exception|other\s+than|apart\s+from|but\s+(?:you\s+)?(?:may|can))\b(.*)$/i.exec(sentence);
    if (!ex) return;
    sentence = ex[1]!;
  }
  // the avoided side of an alternative ("use `a` instead of `b`") is not something the agent is told to run
  const alt = /\b(?:instead\s+of|rather\s+than|over|not)\s+`/i.exec(sentence);
  if (alt) sentence = /^\s*instead\s+of\b/i.test(sentence) ? sentence.slice(sentence.search(/,\s*use\b/i) + 1) : sentence.slice(0, alt.index);
  for (const x of spans(sentence)) if (looksLikeCommand(x.text) && /\s/.test(x.text) && !told.has(x.text)) told.set(x.text, line);
}

export function toldFence(tag: string, lines: Array<{ no: number; text: string }>, told: Map<string, number>): void {
  if (tag && !/^(?:sh|bash|shell|console|zsh|fish|nu|text|txt)$/.test(tag)) return;
  for (const l of lines) {
    const t = l.text.replace(/^\s*\$\s+/, "").trim();
    if (t && !t.startsWith("#") && looksLikeCommand(t) && !told.has(t)) told.set(t, l.no);
  }
}

const PLACEHOLDER = /<[^<>\s]+>|\{[^{}\s]+\}/g;

/** The first told command a Bash rule would catch (same program only, so this stays cheap). */
export function conflictOf(rule: string, told: Map<string, number>, cwd: string, facts: Map<string, CallFacts>, words = new Map<string, string[]>()): { command: string; line: number } | undefined {
  if (!rule.startsWith("Bash(")) return undefined;
  let parsed: ParsedRule;
  try {
    parsed = parseRule(rule);
  } catch {
    return undefined;
  }
  const prog = rule.slice(5).split(/[\s)]/)[0]!;
  for (const [command, line] of told) {
    let w = words.get(command);
    if (!w) words.set(command, (w = command.split(/\s+/)));
    if (prog !== "*" && !w.includes(prog)) continue;
    let f = facts.get(command);
    // ("`USE_SYSTEM_BUN=1 bun test <file>`": a placeholder is an argument, not a redirection)
    if (!f) facts.set(command, (f = callFacts("Bash", { command: command.replace(PLACEHOLDER, "x") }, cwd)));
    if (ruleHit(parsed, f, "deny", cwd)) return { command, line };
  }
  return undefined;
}
