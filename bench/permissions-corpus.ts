/**
 * The adversarial permission corpus against Claude Code: `node bench/run.mjs permissions-corpus [--markdown]
 * [--write-known-gaps]`. Runs every case of test/permissions/cases/*.jsonl through toolhost's real host (as the
 * test does) and compares with the intended decision and with Claude Code 2.1.328's recorded one
 * (cc-recordings.json). Per category: cases, toolhost = intended, Claude Code = intended, and toolhost against
 * Claude Code — agrees / stricter / looser (allow < ask < deny; "n/a" where Claude Code gave no decision). Then
 * every case where toolhost asks or denies and Claude Code allows (the ones a user could find annoying), with
 * whether the corpus intends it.
 *
 * `--write-known-gaps` writes known-gaps.json from today's failures, keeping existing reasons (for the first list;
 * after that the list only shrinks, see adversarial-corpus.test.ts).
 */
import fs from "node:fs";
import path from "node:path";
import { ccRecordings, corpusDir, knownGaps, loadCases, runCorpus, type CaseResult, type CorpusCase } from "../test/permissions/cases/runner.ts";

const RANK: Record<string, number> = { allow: 0, ask: 1, deny: 2 };
const AREA: Record<string, string> = {
  "critical-paths": "critical paths", symlinks: "symlinks", case: "case", "path-tricks": "read boundary / expansion",
  "readonly-exec": "read-only model", benign: "read-only model", "flag-order": "program grammars", "git-exec": "program grammars",
  wrappers: "wrappers / literal shell", quoting: "literal shell", compound: "compound", "bare-rules": "bare rules", "mcp-names": "MCP names", modes: "modes",
};

function row(cells: (string | number)[], md: boolean): string {
  return md ? `| ${cells.join(" | ")} |` : cells.map((c, i) => String(c).padEnd(i === 0 ? 16 : 9)).join(" ");
}

const short = (c: CorpusCase) => String(c.input.command ?? c.input.file_path ?? (c.input.pattern !== undefined ? `${c.input.pattern} in ${c.input.path ?? "."}` : c.tool)).replace(/\n/g, "\\n");

export default async function main(args: string[] = []) {
  const md = args.includes("--markdown");
  const cases = loadCases();
  const cc = ccRecordings();
  const t0 = performance.now();
  const th = await runCorpus(cases);
  const ms = performance.now() - t0;
  const cats = [...new Set(cases.map((c) => c.category))];
  const head = ["category", "cases", "toolhost = intended", "Claude Code = intended", "agree", "stricter", "looser", "n/a"];
  console.log(`adversarial corpus: ${cases.length} cases, toolhost ${th.size} decided in ${(ms / 1000).toFixed(1)} s; Claude Code ${cc.version} recorded ${cc.recordedAt ?? ""}`);
  console.log(row(head, md));
  if (md) console.log(row(head.map(() => "---"), md));
  const tot = { n: 0, thOk: 0, ccOk: 0, agree: 0, stricter: 0, looser: 0, na: 0 };
  for (const cat of [...cats, "total"]) {
    const list = cat === "total" ? cases : cases.filter((c) => c.category === cat);
    const s = { n: list.length, thOk: 0, ccOk: 0, agree: 0, stricter: 0, looser: 0, na: 0 };
    for (const c of list) {
      const t = th.get(c.id)!.decision;
      const k = cc.cases[c.id]?.decision ?? "none";
      if (t === c.intended) s.thOk++;
      if (k === c.intended) s.ccOk++;
      if (!(k in RANK)) s.na++;
      else if (t === k) s.agree++;
      else if (RANK[t] > RANK[k]) s.stricter++;
      else s.looser++;
    }
    if (cat === "total") Object.assign(tot, s);
    const f = (x: number) => `${x}`;
    console.log(row([md && cat === "total" ? "**total**" : cat, s.n, f(s.thOk), f(s.ccOk), s.agree, s.stricter, s.looser, s.na], md));
  }
  annoying(cases, th, cc.cases, md);
  if (args.includes("--write-known-gaps")) writeGaps(cases, th);
}

/** toolhost asks or denies where Claude Code allows. */
function annoying(cases: CorpusCase[], th: Map<string, CaseResult>, cc: Record<string, { decision: string }>, md: boolean) {
  const list = cases.filter((c) => cc[c.id]?.decision === "allow" && th.get(c.id)!.decision !== "allow");
  console.log(`\ntoolhost stricter where Claude Code allows: ${list.length}`);
  if (md) console.log("\n| case | mode | call | toolhost | intended | verdict |\n| --- | --- | --- | --- | --- | --- |");
  for (const c of list) {
    const t = th.get(c.id)!;
    const verdict = c.intended === "allow" ? "too strict: to relax" : `intended (${c.why ?? c.note ?? (c.source.startsWith("http") ? c.source : "Claude Code misses it")})`;
    const call = `${c.tool === "Bash" ? "" : c.tool + " "}\`${short(c).replace(/\|/g, "\\|").slice(0, 70)}\``;
    if (md) console.log(`| ${c.id} | ${c.mode} | ${call} | ${t.decision} | ${c.intended} | ${verdict} |`);
    else console.log(`  ${c.id.padEnd(8)} ${c.mode.padEnd(17)} ${short(c).slice(0, 50).padEnd(50)} toolhost ${t.decision}, intended ${c.intended}: ${verdict}`);
  }
}

function writeGaps(cases: CorpusCase[], th: Map<string, CaseResult>) {
  const old = knownGaps();
  const out: Record<string, string> = {};
  for (const c of cases) {
    const t = th.get(c.id)!;
    if (t.decision === c.intended) continue;
    out[c.id] = old[c.id] ?? `${AREA[c.category] ?? c.category}${c.mode === "default" ? "" : ` [${c.mode}]`}: ${t.decision}${t.rule ? ` by "${t.rule}"` : ""}, intended ${c.intended} — ${short(c).slice(0, 60)}`;
  }
  fs.writeFileSync(path.join(corpusDir, "known-gaps.json"), JSON.stringify(out, null, 1) + "\n");
  console.log(`\nwrote known-gaps.json: ${Object.keys(out).length} cases`);
}
