/**
 * The corpus against Claude Code as tables, from decided cases: per category (cases, toolhost = intended, Claude Code
 * = intended, and toolhost against Claude Code — agree / stricter / looser, allow < ask < deny; "n/a" where Claude
 * Code gave no decision), then every case where toolhost asks or denies and Claude Code allows (the ones a user could
 * find annoying), with whether the corpus intends it and why. `markdown` gives the README's tables (README.md,
 * "Against Claude Code: the adversarial corpus"); adversarial-corpus.test.ts checks the README still shows them.
 * Printed by `node bench/run.mjs permissions-corpus [--markdown]`.
 */
import type { CaseResult, CcRecord, CorpusCase } from "./runner.ts";

const RANK: Record<string, number> = { allow: 0, ask: 1, deny: 2 };

export interface CorpusReport {
  /** The per-category table (with a total row). */
  summary: string[];
  /** How many cases toolhost asks for or denies where Claude Code allows. */
  stricterCount: number;
  /** The table of those cases. */
  stricter: string[];
}

function row(cells: (string | number)[], md: boolean): string {
  return md ? `| ${cells.join(" | ")} |` : cells.map((c, i) => String(c).padEnd(i === 0 ? 16 : 9)).join(" ");
}

export const shortCall = (c: CorpusCase) =>
  String(c.input.command ?? c.input.file_path ?? (c.input.pattern !== undefined ? `${c.input.pattern} in ${c.input.path ?? "."}` : c.tool)).replace(/\n/g, "\\n");

export function corpusReport(cases: CorpusCase[], th: Map<string, CaseResult>, cc: Record<string, CcRecord>, md: boolean): CorpusReport {
  const cats = [...new Set(cases.map((c) => c.category))];
  const head = ["category", "cases", "toolhost = intended", "Claude Code = intended", "agree", "stricter", "looser", "n/a"];
  const summary = [row(head, md)];
  if (md) summary.push(row(head.map(() => "---"), md));
  for (const cat of [...cats, "total"]) {
    const list = cat === "total" ? cases : cases.filter((c) => c.category === cat);
    const s = { n: list.length, thOk: 0, ccOk: 0, agree: 0, stricter: 0, looser: 0, na: 0 };
    for (const c of list) {
      const t = th.get(c.id)!.decision;
      const k = cc[c.id]?.decision ?? "none";
      if (t === c.intended) s.thOk++;
      if (k === c.intended) s.ccOk++;
      if (!(k in RANK)) s.na++;
      else if (t === k) s.agree++;
      else if (RANK[t]! > RANK[k]!) s.stricter++;
      else s.looser++;
    }
    summary.push(row([md && cat === "total" ? "**total**" : cat, s.n, s.thOk, s.ccOk, s.agree, s.stricter, s.looser, s.na], md));
  }
  const list = cases.filter((c) => cc[c.id]?.decision === "allow" && th.get(c.id)!.decision !== "allow");
  const stricter = md ? ["| case | mode | call | toolhost | intended | verdict |", "| --- | --- | --- | --- | --- | --- |"] : [];
  for (const c of list) {
    const t = th.get(c.id)!;
    const verdict = c.intended === "allow" ? "too strict: to relax" : `intended (${c.why ?? c.note ?? (c.source.startsWith("http") ? c.source : "Claude Code misses it")})`;
    const call = `${c.tool === "Bash" ? "" : c.tool + " "}\`${shortCall(c).replace(/\|/g, "\\|").slice(0, 70)}\``;
    if (md) stricter.push(`| ${c.id} | ${c.mode} | ${call} | ${t.decision} | ${c.intended} | ${verdict} |`);
    else stricter.push(`  ${c.id.padEnd(8)} ${c.mode.padEnd(17)} ${shortCall(c).slice(0, 50).padEnd(50)} toolhost ${t.decision}, intended ${c.intended}: ${verdict}`);
  }
  return { summary, stricterCount: list.length, stricter };
}
