/**
 * Sentence shapes other than "never <verb> <target>": alternatives ("use `bun <file>` instead of
 * `node <file>` or `ts-node <file>`", "yarn, not npm"), immutable paths ("keep `schema/` immutable",
 * "`x.lock` is read-only"), and generated files ("`x.d.ts` is auto-generated", "(they are generated)").
 * Each returns true when the sentence was handled (compiled, or found to be style advice).
 */
import { commandRule, isFlag, looksLikeCode, looksLikeCommand, looksLikePath, pathSpec, spans, valid } from "./text.ts";
import { adviceReason, spanRule, type BanCtx } from "./bans.ts";
import { CODE_WORDS, PHRASES, PROGRAMS, SOFT } from "./words.ts";

const SPANS = "((?:`[^`]+`(?:\\s*,\\s*|\\s+or\\s+|\\s*,\\s*or\\s+|\\s+and\\s+)?)+)";
const ALTERNATIVES: Array<{ re: RegExp; want: number; avoid: number; soft?: boolean }> = [
  { re: new RegExp(`\\b(?:use|run)\\s+(\`[^\`]+\`)[^.;]*?\\s*,?\\s*(?:instead\\s+of|rather\\s+than|not)\\s+${SPANS}`, "i"), want: 1, avoid: 2 },
  { re: new RegExp(`\\bprefer\\s+(\`[^\`]+\`)\\s+(?:over|to)\\s+${SPANS}`, "i"), want: 1, avoid: 2, soft: true },
  { re: new RegExp(`\\binstead\\s+of\\s+${SPANS}\\s*,?\\s*use\\s+(\`[^\`]+\`)`, "i"), want: 2, avoid: 1 },
  { re: new RegExp(`^(\`[^\`]+\`)\\s*,\\s*not\\s+${SPANS}`, "i"), want: 1, avoid: 2 },
];
const SPAN_NOT_WORDS = /\b(?:use|run)\s+`([^`]+)`\s*,?\s*(?:not|instead\s+of|rather\s+than)\s+([a-z][\w-]*(?:\s*(?:,\s*or|,|or|and)\s*[a-z][\w-]*)*)\s*[.;!]?\s*$/i;
/** "instead of amending", "rather than force-pushing or rebasing": a git action in words. */
// (a gerund or a participle: "instead of amending", "keep your branch rebased instead of merged")
const INSTEAD_ACT = /\b(?:instead\s+of|rather\s+than)\s+((?:force[- ]?)?[a-z]+(?:ing|ed)(?:\s*(?:,|\bor\b|\band\b)\s*(?:force[- ]?)?[a-z]+(?:ing|ed))*)\b/i;
const MERGE = { re: /^merging$/i, rules: ["Bash(git merge *)"] };
const PLAIN_ALT = /^(?:only\s+)?(?:use\s+)?([a-z][\w-]*)\s*(?:,|;)?\s*(?:not|never|instead\s+of|rather\s+than)\s+([a-z][\w-]*)\b/i;

const program = (t: string) => t.replace(/^`|`$/g, "").trim().split(/\s+/)[0]!.toLowerCase();

/** "use `X` instead of `Y`": denies Y (each alternative) when both name programs, with "use X instead" as the hint. */
export function alternatives(s: string, ctx: BanCtx): boolean {
  for (const p of ALTERNATIVES) {
    const m = p.re.exec(s);
    if (!m) continue;
    const want = m[p.want]!.replace(/`/g, "").trim();
    const avoid = spans(m[p.avoid]!).map((x) => x.text);
    const commands = avoid.filter((a) => looksLikeCommand(a) && !looksLikeCode(a));
    const programs = PROGRAMS.has(program(want)) || commands.some((a) => PROGRAMS.has(program(a)));
    if (!commands.length || commands.length < avoid.length || !programs || (p.soft && !commands.every((a) => PROGRAMS.has(program(a)))) || CODE_WORDS.test(s)) {
      ctx.why.push({ kind: "style", why: `a preference between ${avoid.map((a) => `"${a}"`).join(", ")} and "${want}" in code, not a tool call` });
      return true;
    }
    for (const a of commands) {
      const rule = commandRule(a);
      if (rule && !valid(rule)) ctx.add("deny", rule, `use \`${want}\` instead`);
    }
    return true;
  }
  // "Use `pnpm`, not npm or yarn": the avoided programs in plain words
  const wm = SPAN_NOT_WORDS.exec(s);
  if (wm) {
    const want = wm[1]!.trim();
    const avoid = wm[2]!.split(/\s*(?:,\s*or|,|\bor\b|\band\b)\s*/i).map((w) => w.trim().toLowerCase()).filter(Boolean);
    if (PROGRAMS.has(program(want)) && avoid.length && avoid.every((a) => PROGRAMS.has(a))) {
      for (const a of avoid) ctx.add("deny", `Bash(${a} *)`, `use \`${want}\` instead`);
      return true;
    }
  }
  // "Always create new commits instead of amending": the git action after "instead of" is banned
  const ia = INSTEAD_ACT.exec(s);
  if (ia && !SOFT.test(s)) {
    let n = 0;
    // (a participle is the act: "merged" → "merging"; a merge only counts in this frame, where what it merges is the branch being kept)
    for (const g of ia[1]!.split(/\s*(?:,|\bor\b|\band\b)\s*/i).filter(Boolean).map((w) => w.replace(/ed$/i, "ing")))
      for (const p of [...PHRASES, MERGE]) if (p.rules.every((r) => r.startsWith("Bash(git ")) && p.re.test(g)) for (const r of p.rules) (ctx.add("deny", r, `${s.slice(0, ia.index).trim().replace(/^always\s+/i, "").replace(/^./, (c) => c.toLowerCase())} instead`), n++);
    if (n) return true;
  }
  const pm = PLAIN_ALT.exec(s.trim());
  if (pm && PROGRAMS.has(pm[1]!.toLowerCase()) && PROGRAMS.has(pm[2]!.toLowerCase())) {
    ctx.add("deny", `Bash(${pm[2]!.toLowerCase()} *)`, `use ${pm[1]} instead`);
    return true;
  }
  return false;
}

const IMMUTABLE = /\b(?:keep|treat|leave)\s+((?:`[^`]+`(?:\s*(?:,|and|or)\s*)?)+)\s+(?:as\s+)?(?:immutable|read-only|readonly|untouched|unchanged|frozen|as[- ]is)\b|((?:`[^`]+`(?:\s*(?:,|and|or)\s*)?)+)\s+(?:is|are)\s+(?:immutable|read-only|readonly|frozen)\b/i;

/** "keep `P` immutable", "`P` is read-only": Edit denials. */
export function immutable(s: string, ctx: BanCtx): boolean {
  const m = IMMUTABLE.exec(s);
  if (!m) return false;
  const paths = spans(m[1] ?? m[2]!).map((x) => x.text).filter((t) => looksLikePath(t) && /[./*]/.test(t));
  for (const p of paths) ctx.add("deny", `Edit(${pathSpec(p)})`, "it is immutable");
  return paths.length > 0;
}

const GENERATED = /\b(?:is|are)\s+(?:auto-?|automatically\s+|machine-)?generated\b|\b(?:is|are)\s+(?:produced|generated)\s+by\b/i;
const SOURCE_OF = /\b(?:from|by|with|using|via|out\s+of)\s+(?:the\s+|its\s+|their\s+)?$/i;
const PARTIAL = /\b(?:parts?|portions?|sections?|some|many|several)\s+of\b|\b(?:individual|certain|some|most|many|several)\s+\w+|\bmix\s+of\b|\bwhen\b|\bif\b|\bunless\b/i;

/** "`x.d.ts` is auto-generated", "any file under `fixtures/*\/` is GENERATED", "(they are generated)": Edit denials. */
export function generated(s: string, ctx: BanCtx): boolean {
  const m = GENERATED.exec(s);
  if (!m) return false;
  const before = s.slice(0, m.index);
  if (PARTIAL.test(before)) {
    ctx.why.push({ kind: "condition", why: "only part of the file is generated, or only under a condition" });
    return true;
  }
  let targets = spans(before)
    .map((x) => x.text)
    .filter((t) => looksLikePath(t) && /[./*]/.test(t));
  // a lead-in's list item comes after the words ("these files are generated and must not be edited `x`")
  // (what "generated from / by / with `x`" names is the source or the tool, not the output)
  if (!targets.length) targets = spans(s.slice(m.index)).filter((x) => !SOURCE_OF.test(s.slice(m.index, m.index + x.at))).map((x) => x.text).filter((t) => looksLikePath(t) && /[./*]/.test(t));
  if (!targets.length && /\b(?:it|they|these|those|this\s+file|these\s+files)\b/i.test(before)) targets = ctx.prev.filter((t) => looksLikePath(t) && /[./*]/.test(t));
  for (const t of targets) ctx.add("deny", `Edit(${pathSpec(t)})`, "it is generated: change its source and regenerate");
  return targets.length > 0;
}

const NOT_SPAN = /(?:,|\(|\bbut)\s*not\s+(`[^`]+`)/i;
/** "Use **tox** for testing (not pytest directly)", "Ensure pnpm is used (not npm/yarn)": programs in words. */
const NOT_WORDS = /(?:,|\()\s*not\s+([a-z][\w-]*(?:\s*(?:\/|,|\bor\b|\band\b)\s*[a-z][\w-]*)*)\s*(?:directly\s*)?(?:\)|$)/i;

/** "Use debug builds (not `--release`)", "pipe input via stdin, not `@@`": the span after "not" is banned (a flag or a program). */
export function notSpan(s: string, ctx: BanCtx): boolean {
  const m = NOT_SPAN.exec(s);
  if (!m) return notWords(s, ctx);
  const x = m[1]!.slice(1, -1).trim();
  const reason = adviceReason(s, m.index, "deny", false);
  if (reason) {
    ctx.why.push(reason);
    return true;
  }
  if (!isFlag(x) && !PROGRAMS.has(program(x))) return false;
  const r = spanRule(x, "cmd", "run", s, ctx.program);
  if (!r.rule || valid(r.rule)) return false;
  ctx.add("deny", r.rule);
  return true;
}

function notWords(s: string, ctx: BanCtx): boolean {
  const m = NOT_WORDS.exec(s.replace(/[:.]\s*$/, ""));
  if (!m) return false;
  const avoid = m[1]!.split(/\s*(?:\/|,|\bor\b|\band\b)\s*/i).map((w) => w.trim().toLowerCase()).filter(Boolean);
  // the program to use comes before ("Use tox", "pnpm is used"), and every avoided word is a program
  const want = s.slice(0, m.index).match(/[a-z][\w-]*/gi)?.find((w) => PROGRAMS.has(w.toLowerCase()));
  if (!want || !avoid.length || !avoid.every((a) => PROGRAMS.has(a)) || !/\b(?:use|used|using|run|only)\b/i.test(s.slice(0, m.index))) return false;
  for (const a of avoid) ctx.add("deny", `Bash(${a} *)`, `use ${want} instead`);
  return true;
}
