/**
 * Permission-check cost per call, against baselines measured in the same run (no assertions).
 * Run: npx jiti bench/permissions.ts
 * Issue 13 item 6: the check for a compound Bash command must stay ≤ 10% of a bare `sh -c` spawn;
 * both are printed, and the ratio, for a compound command through the read-only model, the program
 * grammars (git global options, curl) and word expansion — new text, new text with every part new,
 * cached text — and for plain-word and 3-part lines. ROUNDS=n for more rounds (default 5).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { LoadedPlugin } from "../core/index.ts";
import { evaluate } from "../plugins/permissions/decide.ts";
import { collectRules } from "../plugins/permissions/rules.ts";
import { parseFull } from "../lib/rules/shell.ts";

const cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolhost-perm-bench-")));
fs.mkdirSync(path.join(cwd, "src"));
fs.writeFileSync(path.join(cwd, "src", "a.ts"), "x");
const rules = { deny: [] as string[], ask: [] as string[], allow: [] as string[] };
for (let i = 0; i < 20; i++) rules.deny.push(`Bash(tool${i} *)`, `Read(secret${i}/**)`);
for (let i = 0; i < 5; i++) rules.ask.push(`Bash(git push${i} *)`);
for (let i = 0; i < 25; i++) rules.allow.push(`Bash(npm run task${i} *)`, `Edit(src/mod${i}/**)`);
const lp = { id: "config", rulesRoot: cwd, components: { permissions: { file: "bench", jsonPath: "/permissions", value: rules } } } as unknown as LoadedPlugin;

/**
 * Every row is measured in ROUNDS interleaved rounds (baselines included) and printed as the median with the
 * range: on a loaded machine one round can be several times another, for a spawn and a check alike. New-text
 * rows get texts no earlier round or warm-up saw.
 */
const ROUNDS = Number(process.env.ROUNDS ?? 5);
interface Row {
  label: string;
  f: (i: number) => unknown;
  n: number;
  us: number[];
}
const rows: Row[] = [];
const row = (label: string, f: (i: number) => unknown, n: number): Row => {
  const r = { label, f, n, us: [] };
  rows.push(r);
  return r;
};
const median = (r: Row) => [...r.us].sort((a, b) => a - b)[Math.floor(r.us.length / 2)]!;

const nRules = rules.deny.length + rules.ask.length + rules.allow.length;
const build = row(`collect + parse ${nRules} rules (once per build)`, () => collectRules([lp], []), 300);
const fn = () => 0;
const direct = row("baseline: a direct function call", (i) => fn() + i, 100_000);
const rp = row("baseline: one fs.realpathSync.native", () => fs.realpathSync.native(path.join(cwd, "src", "a.ts")), 5000);
const sp = row("baseline: spawnSync('true') (what a Bash call costs at least)", () => spawnSync("true"), 30);
const shc = row("baseline: spawnSync('sh', ['-c', 'true']) (a bare sh -c spawn)", () => spawnSync("sh", ["-c", "true"]), 30);
const rs = collectRules([lp], []);
const bash = (command: string) => evaluate(rs, { toolName: "Bash", input: { command }, cwd, mode: "default" });
const read = row("Read inside cwd → allow (read-only default)", () => evaluate(rs, { toolName: "Read", tool: { isReadOnly: true, origin: "builtin" } as never, input: { file_path: "src/a.ts" }, cwd, mode: "default" }), 3000);
const bashC = row("Bash `git status && npm run task3 --x | grep y` (cached parse)", () => bash("git status && npm run task3 --x | grep y"), 3000);
const bashU = row("Bash, a new command text every call (parse + analysis)", (i) => bash(`git status && npm run task3 --x ${i} | grep y; cat src/a.ts`), 600);
// Plain words joined by && || ; | (and quotes, $NAME, $(…), simple redirections) skip mvdan-sh (lib/rules/shell-quick.ts).
const simpleU = row("Bash plain-word compound `npm test && git log --oneline -5 | head -3; ls src`, new text", (i) => bash(`npm test && git log --oneline -${i} | head -3; ls src`), 600);
const simpleFull = row("  the same lines through the full parser (parseFull), for comparison", (i) => parseFull(`npm test && git log --oneline -${i + 1e6} | head -3; ls src`), 600);
const compound = (i: number) => `git -C . --no-pager log --oneline -5 && cat {src/a.ts,README.md} | grep -n "$PWD" ${i}; echo "$(< src/a.ts)" | sort -u | uniq -c && curl -XPOST x | head -1 || rg --pre x y`;
const cmpU = row("Bash compound (model + grammars + expansion), new text each call", (i) => bash(compound(i)), 400);
// The same compound with every one of its ten parts new: nothing of it was seen before (no part is reused).
const cold = (i: number) => `git -C . --no-pager log --oneline -${i} && cat {src/a.ts,README.md} ${i} | grep -n "$PWD" ${i}; echo "$(< src/a.ts)" ${i} | sort -u -k${i} | uniq -c -f${i} && curl -XPOST x${i} | head -${i} || rg --pre x y${i}`;
const cmpN = row("Bash compound, every part of it new each call", (i) => bash(cold(i)), 400);
const cmpF = row("  the compound through the full parser (parseFull) alone", (i) => parseFull(compound(i + 1e6)), 200);
const cmpC = row("Bash compound, same text (cached parse)", () => bash(compound(0)), 2000);

for (let round = 0; round < ROUNDS; round++) {
  for (const r of rows) {
    const off = 1e7 * (round + 1);
    for (let i = 0; i < Math.min(100, r.n); i++) r.f(off + 5e6 + i);
    const t0 = performance.now();
    for (let i = 0; i < r.n; i++) r.f(off + i);
    r.us.push(((performance.now() - t0) / r.n) * 1000);
  }
}
for (const r of rows) {
  const sorted = [...r.us].sort((a, b) => a - b);
  console.log(`${r.label.padEnd(58)} ${median(r).toFixed(1).padStart(9)} µs  (${sorted[0]!.toFixed(1)}–${sorted[sorted.length - 1]!.toFixed(1)})`);
}
const m = (r: Row) => median(r);
const pct = (r: Row) => `${((m(r) / m(shc)) * 100).toFixed(1)}%`;
console.log(`\nmedians of ${ROUNDS} interleaved rounds; bare sh -c spawn ${m(shc).toFixed(1)} µs (target for compound Bash checks ≤ 10% of it)`);
console.log(`plain-word compound, new text: ${m(simpleU).toFixed(1)} µs = ${pct(simpleU)} of a bare sh -c spawn (its full mvdan-sh parse alone ${m(simpleFull).toFixed(1)} µs)`);
console.log(`compound Bash check: new text ${m(cmpU).toFixed(1)} µs = ${pct(cmpU)}; every part new ${m(cmpN).toFixed(1)} µs = ${pct(cmpN)}; cached ${m(cmpC).toFixed(1)} µs = ${pct(cmpC)} (its full mvdan-sh parse alone ${m(cmpF).toFixed(1)} µs = ${pct(cmpF)})`);
console.log(`3-part Bash check: new text ${m(bashU).toFixed(1)} µs = ${pct(bashU)}; cached ${m(bashC).toFixed(1)} µs = ${pct(bashC)}`);
console.log(`\nratios: Read check = ${(m(read) / m(rp)).toFixed(1)}× one realpath; build = ${((m(build) / m(sp)) * 100).toFixed(1)}% of a spawnSync('true'); direct call ${m(direct).toFixed(3)} µs`);
fs.rmSync(cwd, { recursive: true, force: true });
