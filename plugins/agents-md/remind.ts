/**
 * Reminders: "after changing Go code, run `go fmt ./...`", "run `make tidy` after any `go.mod` changes",
 * "when writing to `schema.json`, also update the docs", "run `make style` before you finish", "after
 * running `afl-cmin`, run `sanitize.sh`". A reminder is context for the model at the right moment, scoped
 * to the files and kinds of change the sentence names — never after every edit (such a sentence is
 * refused and listed as advice). `reminderFires` decides, purely, whether a call triggers one.
 */
import path from "node:path";
import { matchesRule } from "../../lib/rules/match.ts";
import { isInside } from "../../lib/fs-path.ts";
import { EDIT_TOOLS } from "../../lib/tool-names.ts";
import { IMPERATIVE } from "./advice.ts";
import { commandRule, looksLikeCode, looksLikeCommand, pathSpec, spans, type Span } from "./text.ts";
import { KINDS, PROHIBIT, SOFT } from "./words.ts";

export interface Reminder {
  file: string;
  line: number;
  text: string;
  scope: string;
  /** Path patterns (Edit-rule grammar) whose edits trigger the reminder (on "edit"). */
  paths: string[];
  /** The commands to run (may be empty when the action is words: "also update the changelog"). */
  run: string[];
  /** When it fires: after an edit of `paths` (default), before a `git commit` ("before committing / finishing") or the push / pull request `before` names, or after one of `after` ran. */
  on?: "edit" | "commit" | "command";
  /** Bash rules of the commands that trigger an "on: command" reminder. */
  after?: string[];
  /** Bash rules of the commands an "on: commit" reminder comes before (default `git commit`): `git push` for "before pushing", `gh pr create` for "before opening a PR". */
  before?: string[];
  /** What to do, as written ("run `make fix-repo`", "also update the docs"). */
  action?: string;
}

export type ReminderParse = { reminder: Omit<Reminder, "file" | "line" | "text" | "scope"> } | { refused: string } | undefined;

const LEAD = /^(?:otherwise|also|then|and|finally|additionally)\s*,?\s*/i;
const TRIGGER_WORD = /\b(after|when|whenever|once|if|before|prior\s+to|at\s+the\s+end\s+of)\b/i;
const RUN_SPLIT = /,?\s*(?:then\s+|also\s+|always\s+|please\s+)?\b(?:run|re-?run|execute|invoke|call|regenerate|recompile|use|update)\b/i;
const CHANGE = /\b(?:chang|edit|modif|touch|updat|writ|add)\w*\b|\bchanges\b/i;
const PR_NOUN = String.raw`(?:a\s+|the\s+|your\s+|any\s+|new\s+)?(?:prs?|pull\s+requests?)\b`;
const PR_ACT = String.raw`(?:open\w*|creat\w*|submit\w*|mak\w*|send\w*|rais\w*|propos\w*|fil\w*|push\w*)\s+${PR_NOUN}`;
const COMMIT = new RegExp(
  String.raw`\b(?:before|prior\s+to)\s+(?:you\s+)?(?:(?:every|each|any|a)\s+)?(?:commit|committing|finaliz\w*|finish\w*|marking\s+(?:work|the\s+task|it)\s+(?:as\s+)?(?:complete|ready|done)|declaring\s+(?:\w+\s+){0,2}(?:done|complete|finished|ready)|submitting|submission|push|pushing|${PR_ACT}|you\s+(?:are\s+)?(?:done|finish))|\bat\s+the\s+end\s+of\s+(?:a|the|your|each)\s+(?:task|change|session)\b|\bbefore\s+(?:you\s+)?(?:are\s+)?done\b|\b(?:when|whenever|while|if|once)\s+(?:you\s+)?(?:ever\s+|first\s+)?${PR_ACT}`,
  "i",
);
const PR_TRIGGER = new RegExp(`${PR_ACT}|\\b(?:prs?|pull\\s+requests?)\\b`, "i");
/** The commands a commit-like trigger comes before: a push, a pull request, or (default) the commit. */
function beforeRules(trigger: string): string[] | undefined {
  const pr = PR_TRIGGER.test(trigger);
  const push = /\bpush(?:ing)?\b/i.test(trigger) && !PUSH_PR.test(trigger);
  const submit = /\bsubmi(?:tting|ssion)\b/i.test(trigger) && !pr;
  if (!pr && !push && !submit) return undefined;
  return [...(push || submit ? ["Bash(git push *)"] : []), ...(pr || submit ? ["Bash(gh pr create *)"] : [])];
}
const PUSH_PR = new RegExp(String.raw`\bpush\w*\s+${PR_NOUN}`, "i");
/**
 * An action in words a commit-like trigger may carry: one that leaves something to do to the change ("Format
 * your code before pushing", "Read CONTRIBUTING.md before making a pull request"), or any imperative after
 * "must" ("you MUST read the template"). "check / ensure / run the relevant tests" stay guidance (nothing to
 * name), as do bans and preferences.
 */
const WORDS_VERB = /^(?:format|lint|read|include|fill|add|update|regenerate|sign|link|disclose|describe)\b/i;
function wordsAction(action: string): boolean {
  if (PROHIBIT.test(action) || SOFT.test(action)) return false;
  const must = /^(?:you\s+)?(?:must|need\s+to|have\s+to)\s+/i.exec(action);
  const a = action.slice(must ? must[0].length : 0).replace(/^(?:also|then|please|always)\s+/i, "");
  return must ? IMPERATIVE.test(a) : WORDS_VERB.test(a);
}
/** "Before Every Commit", "Before committing": a heading that says when the commands listed under it are run. */
export const isCommitTrigger = (s: string) => !s.includes("`") && COMMIT.test(s);
/** "Before opening a PR, **all of these must pass**:" over a list of commands: the trigger words, if the lead-in starts with one. */
export function leadTrigger(s: string): string | undefined {
  if (s.includes("`")) return undefined;
  const m = COMMIT.exec(s);
  return m && m.index === 0 ? m[0] : undefined;
}
const AFTER_RUN = /\bafter\s+running\s+`([^`]+)`/i;
const NEGATED = /\boutside\s+(?:of\s+)?|\bexcept\b|\bother\s+than\b|\bunless\b/i;
const SCRIPT = /^[\w./-]+\.(?:sh|py|nu|js|mjs|ts|rb|pl|bash|ps1)(?:\s.*)?$/;

/** The commands in the action part: command spans not introduced by a preposition (`in `codex-rs``), not file names. */
function commandsIn(part: string, sp: Span[]): string[] {
  return sp
    .filter((x) => !/\b(?:in|from|under|to|into|of|for)\s*(?:the\s+)?$/i.test(part.slice(Math.max(0, x.at - 12), x.at)))
    .map((x) => x.text)
    .filter((t) => (looksLikeCommand(t) || SCRIPT.test(t)) && !looksLikeCode(t));
}

/** Paths and kinds a trigger clause names. */
function triggerPaths(trigger: string, sentence = trigger): string[] {
  const out: string[] = [];
  for (const x of spans(trigger)) if (/[./*]/.test(x.text) && !/\s/.test(x.text) && !looksLikeCode(x.text)) out.push(pathSpec(x.text));
  // the files named are the trigger; a kind word next to them ("deps in `pyproject.toml`") only says what they are
  if (!out.length) for (const k of KINDS) if (k.re.test(trigger)) out.push(...k.paths);
  // "When adding a page, add its path (without `.mdx` extension)": a page is a file of the extension the sentence names
  if (!out.length && /\bpages?\b/i.test(trigger)) for (const ext of sentence.match(/\.mdx?\b/g) ?? []) out.push(`**/*${ext}`);
  return [...new Set(out)];
}

/** Splits "Run `x` after …" / "After …, run `x`" into its trigger and action. */
function split(s: string): { trigger: string; action: string; lead?: boolean } | undefined {
  const t = s.replace(LEAD, "");
  // (the words inside code spans are no trigger and no verb: "with `npm run format`")
  const bare = t.includes("`") ? t.replace(/`[^`]*`/g, (m) => `\`${"x".repeat(m.length - 2)}\``) : t;
  const tw = TRIGGER_WORD.exec(bare);
  if (!tw) return undefined;
  if (tw.index === 0) {
    const m = RUN_SPLIT.exec(bare.slice(tw[0].length));
    // "After …, run `x`"; "Before committing: `make lint`" (a label-colon trigger over its commands)
    const colon = bare.indexOf(": ");
    const cut = m ? tw[0].length + m.index : t.includes(",") ? t.indexOf(",") : colon > 0 && bare.slice(colon + 2).trimStart().startsWith("`") ? colon + 1 : -1;
    if (cut <= 0) return undefined;
    return { trigger: t.slice(0, cut), action: t.slice(cut).replace(/^,\s*/, ""), lead: true };
  }
  // "…, so run these and commit the result whenever you touch `templates/`": the action is the clause that runs
  const ran = /^(?:always\s+)?(?:re-?run|run|execute|invoke|call|regenerate|recompile|update)\b/i.test(t) ? 0 : lastRunClause(bare.slice(0, tw.index));
  // "…, as these changes require …": the reason is not part of the trigger
  let trigger = t.slice(tw.index).replace(/,?\s+(?:as|because|since|so\s+that)\b.*$/i, "");
  // "Rebase from `main` before committing (`git fetch origin && git rebase origin/main`)": the commands in parentheses after the trigger are how the imperative is done
  const paren = trigger.includes("(") ? PAREN_COMMANDS.exec(trigger) : null;
  const how = paren && IMPERATIVE_OR_REBASE.test(t) && spans(paren[2]!).some((x) => looksLikeCommand(x.text) && /\s/.test(x.text));
  if (ran < 0 && !how && !(COMMIT.test(t.slice(tw.index)) && wordsAction(t.slice(0, tw.index)))) return undefined;
  let action = t.slice(Math.max(0, ran), tw.index);
  if (how) {
    trigger = paren![1]!;
    action = `${action} ${paren![2]}`;
  }
  return { trigger, action };
}

const PAREN_COMMANDS = /^([^(]*?)\s*\(\s*((?:`[^`]+`(?:\s*(?:,|or|and|then|&&)\s*)?)+)\s*\)\s*[.!]?\s*$/;
// (an imperative that a command does: "Rebase", "Format", "Regenerate", not "Note" or a description)
const IMPERATIVE_OR_REBASE = /^(?:always\s+)?(?:rebase|sync|format|lint|regenerate|rebuild|build|test|update|fetch|pull|check|verify|typecheck|generate|compile|run)\b/i;
/** Where the last clause that starts with a run verb begins ("…, so run these and commit …"), or -1. */
const RUN_CLAUSE = /(?:[,;—–]\s*|\b(?:so|then|and)\s+)(?:always\s+|also\s+|please\s+)?(?=(?:re-?run|run|execute|invoke|regenerate|recompile)\b)/gi;
function lastRunClause(before: string): number {
  let at = -1;
  RUN_CLAUSE.lastIndex = 0;
  for (let m = RUN_CLAUSE.exec(before); m; m = RUN_CLAUSE.exec(before)) at = m.index + m[0].length;
  return at;
}

/**
 * A reminder sentence, if it is one. `code` is the fenced block under the item (its commands are the
 * action of "… recompile:" sentences).
 */
export function parseReminder(s: string, code: string[] | undefined): ReminderParse {
  const sp: { trigger: string; action: string; lead?: boolean; req?: boolean } | undefined = requires(s) ?? onlyAfter(s) ?? split(s) ?? without(s) ?? everyPr(s);
  if (!sp) return undefined;
  const action = sp.action.trim();
  let run = commandsIn(sp.action, spans(sp.action));
  if (!run.length && code?.length && /:\s*$|\b(?:recompile|regenerate|run)\b/i.test(s)) run = code.map((l) => l.replace(/^\s*\$\s*/, "").trim()).filter((l) => l && !l.startsWith("#")).slice(0, 3);
  const seed = /^\s*(?:also\s+)?\S/.test(action) && /\bwhen\s+writing\s+to\b/i.test(sp.trigger);
  const commitLike = COMMIT.test(sp.trigger);
  // an action in words: before a commit, push or PR; or after a change of the files the trigger names ("When adding a page, add its path to …")
  // an action in words: before a commit, push or PR, or after a change of the files a leading trigger names
  // ("When adding a page, add its path …"; in "Update docs when X changes (at minimum `P`)" the path is the action's)
  const words = !run.length && wordsAction(action) && (commitLike || sp.lead === true || triggerPaths(sp.trigger.replace(/\([^)]*\)/g, "")).some((p) => !p.startsWith("**/")));
  if (!run.length && !seed && !sp.req && !words) return undefined;
  const ar = AFTER_RUN.exec(sp.trigger);
  if (ar && (looksLikeCommand(ar[1]!) || SCRIPT.test(ar[1]!))) {
    const rule = commandRule(ar[1]!);
    return rule ? { reminder: { paths: [], run, on: "command", after: [rule], action } } : undefined;
  }
  if (commitLike) {
    const before = beforeRules(sp.trigger);
    return { reminder: { paths: [], run, on: "commit", action, ...(before ? { before } : {}) } };
  }
  if (!CHANGE.test(sp.trigger)) return undefined;
  if (NEGATED.test(sp.trigger)) return { refused: `the change it names ("${sp.trigger.slice(0, 60)}") has an exception a path pattern cannot express` };
  const paths = triggerPaths(sp.trigger, s);
  if (!paths.length) return { refused: `names no file or kind of file ("${sp.trigger.slice(0, 60)}"): a reminder after every edit is refused` };
  return { reminder: { paths, run, on: "edit", action } };
}

const COMMIT_RULE = "Bash(git commit *)";

/** "DO NOT submit a PR without running the full test suite": a reminder before the action, to do what "without" names. */
const WITHOUT = /^(?:never|do\s+not|don['’]t)\s+(.+?)\s+without\s+(?:first\s+)?((?!asking|being|approval|permission)[a-z]+ing\b.*)$/i;
function without(s: string): { trigger: string; action: string; req: true } | undefined {
  const m = WITHOUT.exec(s.trim().replace(/[.!]+$/, ""));
  if (!m) return undefined;
  // "Do not add new dependencies without running `pnpm update-references`": after the change, unless it is a commit, push or PR
  const trigger = COMMIT.test(`before ${m[1]}`) ? `before ${m[1]}` : `after ${m[1]}`;
  return { trigger, req: true, action: m[2]!.replace(/^(\w+?)(?:ing)\b/i, (_, v: string) => (/^(?:runn|gett|sett|putt)$/i.test(v) ? v.slice(0, -1) : /^(?:updat|writ|mak|us|includ|describ|regenerat)$/i.test(v) ? `${v}e` : v)) };
}

/** "Every PR modifying production code needs a changeset": a reminder before opening a pull request. */
// (what a PR carries: a changeset, a changelog entry, a sign-off; "require test coverage" is a requirement on the work)
const EVERY_PR = /^(?:[^:]{0,20}:\s*)?(?:every|each|all|any)\s+(?:prs?|pull\s+requests?)\b[^.;]*?\b(?:needs?|requires?|must\s+(?:have|include|contain))\s+((?:an?\s+|the\s+)?(?:changesets?|changelog\s+entry|changelog|release\s+notes?|sign-?off|dco)\b.*)$/i;
/** "updates to client-side deps in `pyproject.toml` require parallel changes in `client/pyproject.toml`": after the change, the action in words. */
const REQUIRES = /^(?:[^:]{0,30}:\s*)?(?:any\s+|all\s+)?(?:updates?|changes?|edits?|modifications?)\s+(?:to|in|of)\s+(.+?)\s+(?:requires?|needs?|must\s+be\s+(?:followed|accompanied)\s+by)\s+(.+)$/i;
function requires(s: string): { trigger: string; action: string; req: true } | undefined {
  const m = REQUIRES.exec(s.trim().replace(/[.!]+$/, ""));
  return m && spans(m[1]!).length ? { trigger: `after changing ${m[1]}`, action: `make ${m[2]}`, req: true } : undefined;
}

/**
 * "**ONLY** push up changes after running `bun bd test <file>`", "Only commit once `make check` passes", "Don't
 * push until `make lint` is clean": the act (a commit, a push, a pull request) waits for the commands named
 * after it, so they are a reminder before the act.
 */
const ONLY_AFTER = /^(?:(?:you\s+(?:should|must|may)\s+)?only\s+(commit|push|open|create|submit|send)\w*\b(?:\s+(?!after\b|once\b|until\b|before\b)[\w-]+){0,4}?\s+(?:only\s+)?(?:after|once|until)|(?:never|do\s+not|don['’]t)\s+(commit|push|open|create|submit|send)\w*\b(?:\s+(?!until\b)[\w-]+){0,4}?\s+until)\s+(.*`.+)$/i;
function onlyAfter(s: string): { trigger: string; action: string } | undefined {
  const m = s.includes("`") ? ONLY_AFTER.exec(s.trim()) : null;
  // (the commands must be named after the trigger word; "never push until asked" is an ask, not a reminder)
  if (!m) return undefined;
  const act = (m[1] ?? m[2])!.toLowerCase();
  const what = act === "commit" ? "committing" : act === "push" ? "pushing" : "opening a pull request";
  // (the commands are the action: "after running `x`" → "run `x`")
  return { trigger: `before ${what}`, action: m[3]!.replace(/^(?:running|you(?:['’]ve|\s+have)\s+run)\b/i, "run") };
}

function everyPr(s: string): { trigger: string; action: string } | undefined {
  const m = EVERY_PR.exec(s.trim());
  return m ? { trigger: "before opening a pull request", action: `add ${m[1]!.replace(/[.!]+$/, "")}` } : undefined;
}

/** Whether a call (tool name, input, cwd) triggers the reminder. Pure; shared by the plugin and the benchmark. */
export function reminderFires(r: Reminder, tool: string, input: Record<string, unknown>, cwd: string): boolean {
  const on = r.on ?? "edit";
  if (on === "edit") {
    if (!EDIT_TOOLS.has(tool)) return false;
    const file = [input.file_path, input.notebook_path].find((x): x is string => typeof x === "string");
    if (!file) return false;
    const abs = path.resolve(cwd, file);
    if (!isInside(abs, r.scope)) return false;
    return r.paths.some((p) => matchesRule(`Edit(${p})`, { toolName: "Edit", input: { file_path: abs } }, { cwd, rulesRoot: r.scope }));
  }
  if (tool !== "Bash" || typeof input.command !== "string") return false;
  const rules = on === "commit" ? (r.before ?? [COMMIT_RULE]) : (r.after ?? []);
  return rules.some((rule) => matchesRule(rule, { toolName: "Bash", input }, { cwd, rulesRoot: r.scope, behavior: "deny" }));
}

/** The text the model sees. */
export function reminderText(r: Reminder, where: string): string {
  const what = r.run.length ? `run ${r.run.map((c) => `\`${c}\``).join(" and ")}` : (r.action ?? r.text);
  const when = r.on === "commit" ? (r.before ? `before ${r.before.map((b) => (b.startsWith("Bash(gh pr") ? "opening a pull request" : "pushing")).join(" / ")}` : "before committing / finishing") : r.on === "command" ? "after this command" : "after this change";
  return `${where} asks: ${what} ${when} (${JSON.stringify(r.text)})`;
}
