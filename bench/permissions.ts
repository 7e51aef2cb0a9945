/**
 * Permission-check cost per call, against baselines measured in the same run (no assertions).
 * Run: npx jiti bench/permissions.ts
 * Issue 13 item 6: the check for a compound Bash command must stay ≤ 10% of a bare `sh -c` spawn;
 * both are printed, and the ratio, for a compound command through the read-only model, the program
 * grammars (git global options, curl) and word expansion.
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

function time(label: string, f: (i: number) => unknown, n: number): number {
  for (let i = 0; i < Math.min(200, n); i++) f(i);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) f(i);
  const us = ((performance.now() - t0) / n) * 1000;
  console.log(`${label.padEnd(58)} ${us.toFixed(1).padStart(9)} µs`);
  return us;
}

const nRules = rules.deny.length + rules.ask.length + rules.allow.length;
const build = time(`collect + parse ${nRules} rules (once per build)`, () => collectRules([lp], []), 300);
const fn = () => 0;
const direct = time("baseline: a direct function call", (i) => fn() + i, 100_000);
const rp = time("baseline: one fs.realpathSync.native", () => fs.realpathSync.native(path.join(cwd, "src", "a.ts")), 5000);
const sp = time("baseline: spawnSync('true') (what a Bash call costs at least)", () => spawnSync("true"), 50);
const shc = time("baseline: spawnSync('sh', ['-c', 'true']) (a bare sh -c spawn)", () => spawnSync("sh", ["-c", "true"]), 50);
const rs = collectRules([lp], []);
const read = time("Read inside cwd → allow (read-only default)", () => evaluate(rs, { toolName: "Read", tool: { isReadOnly: true, origin: "builtin" } as never, input: { file_path: "src/a.ts" }, cwd, mode: "default" }), 5000);
const bashC = time("Bash `git status && npm run task3 --x | grep y` (cached parse)", () => evaluate(rs, { toolName: "Bash", input: { command: "git status && npm run task3 --x | grep y" }, cwd, mode: "default" }), 5000);
const bashU = time("Bash, a new command text every call (parse + analysis)", (i) => evaluate(rs, { toolName: "Bash", input: { command: `git status && npm run task3 --x ${i} | grep y; cat src/a.ts` }, cwd, mode: "default" }), 2000);
// Plain words joined by && || ; | skip mvdan-sh (lib/rules/shell.ts parseSimple); the line above pays the parse.
const simpleU = time("Bash plain-word compound `npm test && git log --oneline -5 | head -3; ls src`, new text", (i) => evaluate(rs, { toolName: "Bash", input: { command: `npm test && git log --oneline -${i} | head -3; ls src` }, cwd, mode: "default" }), 2000);
const simpleFull = time("  the same lines through the full parser (parseFull), for comparison", (i) => parseFull(`npm test && git log --oneline -${i + 1e6} | head -3; ls src`), 2000);
const compound = (i: number) => `git -C . --no-pager log --oneline -5 && cat {src/a.ts,README.md} | grep -n "$PWD" ${i}; echo "$(< src/a.ts)" | sort -u | uniq -c && curl -XPOST x | head -1 || rg --pre x y`;
const cmpU = time("Bash compound (model + grammars + expansion), new text each call", (i) => evaluate(rs, { toolName: "Bash", input: { command: compound(i) }, cwd, mode: "default" }), 1000);
const cmpC = time("Bash compound, same text (cached parse)", () => evaluate(rs, { toolName: "Bash", input: { command: compound(0) }, cwd, mode: "default" }), 3000);
console.log(`\nplain-word compound (fast path): ${simpleU.toFixed(1)} µs new text = ${((simpleU / shc) * 100).toFixed(1)}% of a bare sh -c spawn; its full mvdan-sh parse alone ${simpleFull.toFixed(1)} µs`);
console.log(`compound Bash check: ${cmpU.toFixed(1)} µs new / ${cmpC.toFixed(1)} µs cached; bare sh -c spawn: ${shc.toFixed(1)} µs → ${((cmpU / shc) * 100).toFixed(1)}% (new) / ${((cmpC / shc) * 100).toFixed(1)}% (cached) of a spawn (target ≤ 10%)`);
console.log(`\nratios: Read check = ${(read / rp).toFixed(1)}× one realpath; Bash check (new text) = ${((bashU / sp) * 100).toFixed(1)}% of a bare spawn; cached = ${((bashC / sp) * 100).toFixed(1)}%; build = ${(build / sp * 100).toFixed(1)}% of a spawn; direct call ${direct.toFixed(3)} µs`);
fs.rmSync(cwd, { recursive: true, force: true });
