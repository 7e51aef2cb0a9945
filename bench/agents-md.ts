/**
 * AGENTS.md rules benchmark: `node bench/run.mjs agents-md`.
 *  0. the labelled corpus (test/agents-md/corpus/, real files), tuning and held-out splits separately:
 *     recall of enforceable lines, precision of compiled lines, silent drops, over-blocking of must-not
 *     calls (targets ≥ 70%, ≥ 90%, 0%, ≤ 2%), and compile time per 400 lines of real files (target ≤ 2 ms);
 * Ratios against baselines measured in the same run:
 *  1. compiling a realistic AGENTS.md (40 rule sentences among 400 lines of prose) — absolute µs, once per
 *     change of the file (cached by mtime);
 *  2. per-call cost of enforcing its rules: the whole pipeline (dry run, through permission decisions) for a
 *     compound Bash command and a Write, in a project with that AGENTS.md vs the same project without one.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createHost } from "../core/index.ts";
import { compileAgentsMd } from "../plugins/agents-md/compile.ts";
import { loadCorpus, score, summary } from "../test/agents-md/evaluate.ts";

const BULLET = /^(?:[-*+]|\d+[.)])\s+/;

// `--verbose` lists the misses of the tuning split only: the held-out split is measured blind (its misses are
// not read to write phrasings); `--held-out-misses` lists those too, for a deliberate post-mortem.
function corpusFigures(verbose: boolean, heldOutMisses: boolean): number {
  const all = loadCorpus();
  console.log("# AGENTS.md rules benchmark\n");
  console.log(`corpus: ${all.length} real files from ${new Set(all.map((f) => f.repo)).size} repositories (test/agents-md/corpus/)`);
  // held-out-2: a second set of fresh files (2026-12-04), labelled before the compiler ran on them, also measured blind
  for (const split of ["tune", "held-out", "held-out-2"] as const) {
    const files = all.filter((f) => f.split === split);
    const s = score(files);
    const m = summary(s);
    const f1 = (x: number) => `${x.toFixed(1)}%`;
    console.log(`  ${split.padEnd(10)} ${String(s.files).padStart(2)} files ${String(s.lines).padStart(5)} lines · recall ${f1(m.recall)} (${s.recalled}/${s.enforceable} enforceable lines; target ≥ 70%) · precision ${f1(m.precision)} (${s.correctLines}/${s.compiledLines} compiled lines; ≥ 90%) · silent drops ${f1(m.silent)} (${s.silent}; 0%) · over-blocking ${f1(m.overBlock)} (${s.overBlocked}/${s.mustNot} must-not calls; ≤ 2%)`);
    if (split === "tune" ? verbose : heldOutMisses) for (const x of [...s.misses.map((t) => `miss ${t}`), ...s.wrong.map((t) => `wrong ${t}`), ...s.blocked.map((t) => `blocked ${t}`)]) console.log(`      ${x}`);
  }
  const lines = all.reduce((n, f) => n + f.md.split("\n").length, 0);
  // the same-run baseline: a plain markdown line split of the same files (split, trim, one list-item test per line)
  let sink = 0;
  const split = () => {
    for (const f of all) for (const l of f.md.split(/\r?\n/)) if (BULLET.test(l.trim())) sink++;
  };
  const compile = () => {
    for (const f of all) sink += compileAgentsMd(f.md, "/repo/AGENTS.md", "/repo").rules.length;
  };
  for (let i = 0; i < 5; i++) (split(), compile());
  // alternating rounds, CPU time (process.cpuUsage), median: a loaded machine slows both alike
  const cpu = (fn: () => void, reps: number) => {
    const c0 = process.cpuUsage();
    for (let i = 0; i < reps; i++) fn();
    const c = process.cpuUsage(c0);
    return (c.user + c.system) / 1000 / reps;
  };
  const rounds: Array<[number, number]> = [];
  for (let r = 0; r < 7; r++) rounds.push([cpu(split, 20), cpu(compile, 5)]);
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const base = med(rounds.map((x) => x[0]));
  const comp = med(rounds.map((x) => x[1]));
  const per400 = comp * (400 / lines);
  console.log(`  compile time on real files (${lines} lines, CPU median of 7 rounds): ${per400.toFixed(2)} ms per 400 lines (target ≤ 2 ms: ${(per400 / 2).toFixed(2)}× the budget) · ${(comp / base).toFixed(0)}× a plain markdown line split of the same files (${((base * 400) / lines * 1000).toFixed(0)} µs per 400 lines); load average ${os.loadavg()[0]!.toFixed(1)}${sink < 0 ? "" : ""}`);
  return per400;
}

function agentsMd(): string {
  const lines = ["# Working in this repository", ""];
  const cmds = ["git push --force", "git reset --hard", "npm publish", "docker system prune", "terraform apply", "kubectl delete", "rm -rf", "curl", "wget", "make release"];
  for (let i = 0; i < 400; i++) {
    if (i % 10 === 0) {
      const k = i / 10;
      if (k < 10) lines.push(`- Never run \`${cmds[k]}\`.`);
      else if (k < 20) lines.push(`- Do not edit files in \`generated/part${k}/**\`.`);
      else if (k < 30) lines.push(`- Ask before running \`deploy-${k}\`.`);
      else lines.push(`- Don't read \`secrets/key${k}.pem\`.`);
    } else lines.push(`Prose line ${i}: explain the architecture, conventions and the reasons behind them in ordinary sentences.`);
  }
  return lines.join("\n");
}

async function perCall(host: Awaited<ReturnType<typeof createHost>>, n: number): Promise<number> {
  const calls: Array<[string, unknown]> = [
    ["Bash", { command: "cd src && npm test && git status | head -5" }],
    ["Write", { file_path: "src/new-file.ts", content: "export {}\n" }],
  ];
  for (let i = 0; i < 200; i++) for (const [t, inp] of calls) await host.execute(t, inp, { dryRun: true, yes: true });
  const t0 = performance.now();
  for (let i = 0; i < n; i++) for (const [t, inp] of calls) await host.execute(t, inp, { dryRun: true, yes: true });
  return ((performance.now() - t0) / (n * calls.length)) * 1000;
}

export default async function run(args: string[] = []): Promise<void> {
  const has = (flag: string) => args.includes(flag) || process.argv.includes(flag);
  const per400 = corpusFigures(has("--verbose"), has("--held-out-misses"));
  const md = agentsMd();
  compileAgentsMd(md, "/p/AGENTS.md", "/p");
  const reps = 200;
  const t0 = performance.now();
  let rules = 0;
  for (let i = 0; i < reps; i++) rules = compileAgentsMd(md, "/p/AGENTS.md", "/p").rules.length;
  const compileUs = ((performance.now() - t0) / reps) * 1000;

  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "th-bench-agents-")));
  const withDir = path.join(base, "with");
  const withoutDir = path.join(base, "without");
  for (const d of [withDir, withoutDir]) fs.mkdirSync(path.join(d, "src"), { recursive: true });
  fs.writeFileSync(path.join(withDir, "AGENTS.md"), md);
  const withHost = await createHost({ cwd: withDir });
  const withoutHost = await createHost({ cwd: withoutDir });
  try {
    const rounds: Array<[number, number]> = [];
    for (let r = 0; r < 5; r++) rounds.push([await perCall(withoutHost, 300), await perCall(withHost, 300)]);
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const a = med(rounds.map((x) => x[0]));
    const b = med(rounds.map((x) => x[1]));
    console.log(`compile (synthetic): ${md.split("\n").length} lines, ${rules} rules → ${compileUs.toFixed(0)} µs per compile (${(compileUs / 2000).toFixed(2)}× the 2 ms budget; cached by mtime between changes)`);
    console.log(`per call (dry run through permission decisions, compound Bash + Write, median of 5 rounds × 600 calls):`);
    // the machine's speed in the same run: compile cost in units of one dry-run call (30–57 µs on an idle 2-core box)
    console.log(`compile cost in dry-run calls of this run: real files ${((per400 * 1000) / a).toFixed(0)} calls per 400 lines, synthetic ${(compileUs / a).toFixed(0)} calls (2 ms ≈ 35–65 idle calls)`);
    console.log(`  without AGENTS.md ${a.toFixed(1)} µs · with ${rules} rules ${b.toFixed(1)} µs · ratio ${(b / a).toFixed(2)}× (+${(b - a).toFixed(1)} µs); load average ${os.loadavg()[0]!.toFixed(1)}`);
  } finally {
    await withHost.close();
    await withoutHost.close();
    fs.rmSync(base, { recursive: true, force: true });
  }
}
