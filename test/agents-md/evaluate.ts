/**
 * Scores the AGENTS.md compiler against the hand-labelled corpus in test/agents-md/corpus/ (shared by
 * test/agents-md/corpus.test.ts and `node bench/run.mjs agents-md`).
 *
 * Each `<id>.md` is a real instruction file; `<id>.json` holds its repository, path, commit and licence,
 * its split ("tune", "held-out" or "held-out-2", fixed before the compiler ran on it) and labels: the lines a careful
 * engineer would want enforced (`deny`, `ask`, `reminder`) with calls the compiled line must catch and
 * calls it must not, plus `advice` lines whose calls must pass. A call is "Bash: <command>",
 * "Edit: <path>", "Write: <path>" or "Read: <path>", paths relative to the file's directory.
 *
 * Measured per split:
 *  - recall: enforceable lines whose every must-catch call is caught by what that line compiled to
 *    (a deny rule for deny, an ask rule for ask, a reminder that fires for reminder);
 *  - precision: compiled lines that are labelled enforceable and catch none of their own must-not calls;
 *  - silent drops: enforceable lines neither compiled nor listed as advice with a reason;
 *  - over-blocking: must-not calls (of every label) that any compiled deny/ask rule of the file catches.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { matchesRule } from "../../lib/rules/match.ts";
import { compileAgentsMd, type Compiled } from "../../plugins/agents-md/compile.ts";
import { reminderFires } from "../../plugins/agents-md/remind.ts";

export const CORPUS = path.join(path.dirname(fileURLToPath(import.meta.url)), "corpus");
const ROOT = "/repo";

export interface Label {
  line: number;
  kind: "deny" | "ask" | "reminder" | "advice";
  text: string;
  catch?: string[];
  pass?: string[];
  /** Other lines that state the same instruction (a rule citing any of them counts for this label). */
  same?: number[];
  why?: string;
}
export interface CorpusFile {
  id: string;
  md: string;
  repo: string;
  path: string;
  commit: string;
  licence: string;
  /** "held-out-2": a second set of fresh files, labelled 2026-12-04 before the compiler ran on them, measured once. */
  split: "tune" | "held-out" | "held-out-2";
  labels: Label[];
}

export function loadCorpus(dir = CORPUS): CorpusFile[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => {
      const id = f.slice(0, -3);
      const meta = JSON.parse(fs.readFileSync(path.join(dir, `${id}.json`), "utf8"));
      return { id, md: fs.readFileSync(path.join(dir, f), "utf8"), ...meta };
    });
}

interface Call {
  toolName: string;
  input: Record<string, unknown>;
}
export function parseCall(s: string): Call {
  const m = /^(\w+):\s+(.*)$/.exec(s);
  if (!m) throw new Error(`bad call ${JSON.stringify(s)}`);
  const [, tool, arg] = m as unknown as [string, string, string];
  if (tool === "Bash") return { toolName: tool, input: { command: arg } };
  if (tool === "Write") return { toolName: tool, input: { file_path: path.join(ROOT, arg), content: "x" } };
  return { toolName: tool, input: { file_path: path.join(ROOT, arg) } };
}

const ruleCatches = (rule: string, behavior: "deny" | "ask", c: Call) => matchesRule(rule, c, { cwd: ROOT, rulesRoot: ROOT, behavior });

/** What the compiled lines do to a call: "deny", "ask", "remind" or nothing (every line when `lines` is undefined). */
function effects(out: Compiled, lines: number[] | undefined, c: Call): Set<string> {
  const got = new Set<string>();
  const at = (n: number) => lines === undefined || lines.includes(n);
  for (const r of out.rules) if ((at(r.line) || r.also?.some(at)) && ruleCatches(r.rule, r.behavior, c)) got.add(r.behavior);
  if (lines !== undefined) for (const r of out.reminders) if (at(r.line) && reminderFires(r, c.toolName, c.input, ROOT)) got.add("remind");
  return got;
}

export interface Score {
  files: number;
  lines: number;
  enforceable: number;
  recalled: number;
  compiledLines: number;
  correctLines: number;
  silent: number;
  mustNot: number;
  overBlocked: number;
  misses: string[];
  wrong: string[];
  blocked: string[];
}

const WANT: Record<string, string> = { deny: "deny", ask: "ask", reminder: "remind" };

export function score(files: CorpusFile[]): Score {
  const s: Score = { files: files.length, lines: 0, enforceable: 0, recalled: 0, compiledLines: 0, correctLines: 0, silent: 0, mustNot: 0, overBlocked: 0, misses: [], wrong: [], blocked: [] };
  for (const f of files) {
    const out = compileAgentsMd(f.md, path.join(ROOT, "AGENTS.md"), ROOT);
    s.lines += f.md.split("\n").length;
    const byLine = new Map(f.labels.flatMap((l) => [l.line, ...(l.same ?? [])].map((n) => [n, l] as const)));
    const compiled = new Set([...out.rules.flatMap((r) => [r.line, ...(r.also ?? [])]), ...out.reminders.map((r) => r.line)]);
    const listed = new Set(out.unenforced.map((u) => u.line));
    for (const l of f.labels) {
      for (const p of l.pass ?? []) {
        s.mustNot++;
        const hit = [...effects(out, undefined, parseCall(p))];
        if (hit.length) {
          s.overBlocked++;
          s.blocked.push(`${f.id}:${l.line} ${p} → ${hit.join(",")}`);
        }
      }
      if (l.kind === "advice") continue;
      s.enforceable++;
      const own = [l.line, ...(l.same ?? [])];
      if (!own.some((n) => compiled.has(n) || listed.has(n))) s.silent++;
      const missed = (l.catch ?? []).filter((c) => !effects(out, own, parseCall(c)).has(WANT[l.kind]!));
      if (!missed.length && l.catch?.length) s.recalled++;
      else s.misses.push(`${f.id}:${l.line} [${l.kind}] ${missed.join(" | ")} — ${l.text.slice(0, 80)}`);
    }
    for (const line of compiled) {
      s.compiledLines++;
      const l = byLine.get(line);
      const ownPassHit = l && (l.pass ?? []).some((p) => effects(out, [line], parseCall(p)).size);
      if (l && l.kind !== "advice" && !ownPassHit) s.correctLines++;
      else {
        const what = [...out.rules.filter((r) => r.line === line || r.also?.includes(line)).map((r) => `${r.behavior} ${r.rule}`), ...out.reminders.filter((r) => r.line === line).map((r) => `remind ${r.run.join(",")}`)];
        s.wrong.push(`${f.id}:${line} ${l ? `(${l.kind})` : "(unlabelled)"} ${what.join("; ")}`);
      }
    }
  }
  return s;
}

export const pct = (a: number, b: number) => (b ? (100 * a) / b : 100);

export function summary(s: Score): { recall: number; precision: number; silent: number; overBlock: number } {
  return { recall: pct(s.recalled, s.enforceable), precision: pct(s.correctLines, s.compiledLines), silent: pct(s.silent, s.enforceable), overBlock: pct(s.overBlocked, s.mustNot) };
}
