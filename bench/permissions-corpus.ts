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
import { corpusReport, shortCall as short } from "../test/permissions/cases/report.ts";

const AREA: Record<string, string> = {
  "critical-paths": "critical paths", symlinks: "symlinks", case: "case", "path-tricks": "read boundary / expansion",
  "readonly-exec": "read-only model", benign: "read-only model", "flag-order": "program grammars", "git-exec": "program grammars",
  wrappers: "wrappers / literal shell", quoting: "literal shell", compound: "compound", "bare-rules": "bare rules", "mcp-names": "MCP names", modes: "modes",
};

export default async function main(args: string[] = []) {
  const md = args.includes("--markdown");
  const cases = loadCases();
  const cc = ccRecordings();
  const t0 = performance.now();
  const th = await runCorpus(cases);
  const ms = performance.now() - t0;
  console.log(`adversarial corpus: ${cases.length} cases, toolhost ${th.size} decided in ${(ms / 1000).toFixed(1)} s; Claude Code ${cc.version} recorded ${cc.recordedAt ?? ""}`);
  const r = corpusReport(cases, th, cc.cases, md);
  console.log(r.summary.join("\n"));
  console.log(`\ntoolhost stricter where Claude Code allows: ${r.stricterCount}`);
  if (md) console.log("");
  console.log(r.stricter.join("\n"));
  if (args.includes("--write-known-gaps")) writeGaps(cases, th);
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
