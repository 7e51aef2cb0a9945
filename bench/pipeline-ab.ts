/**
 * The per-call cost of two checkouts side by side: `node bench/run.mjs pipeline-ab --root OTHER [--rounds N] [--steady]`.
 * Child processes alternate between this tree and OTHER (e.g. a worktree of an older commit), each loading
 * its core the same way (jiti, no interop Proxy), with the bundled plugins and 0 / 10 / 50 in-process
 * PreToolUse hooks; prints the median µs per call of each and the ratio. Used to check that a refactor keeps
 * the hot path's cost. `--steady` warms each child up with 5,000 calls and times 7 rounds of 20,000 (a long-lived
 * server's steady state); without it each round is 5,000 calls from a cold start (JIT warm-up included).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CHILD = `
const root = process.env.AB_ROOT;
const { createHost, definePlugin, defineTool } = await import(root + "/core/index.ts");
const noop = defineTool({ name: "Noop", description: "does nothing", isReadOnly: true, inputSchema: { properties: { n: { type: "number" } } }, call: () => "ok" });
const p = definePlugin({ name: "b", apply(ctx) { ctx.hooks.build.tap("b", (b) => { b.hooks.collect.tap("b", (c) => c.add({ ...noop, origin: "plugin", plugin: "b" })); for (let i = 0; i < Number(process.env.AB_HOOKS); i++) b.hooks.preToolUse.tap("b", (pre) => void pre.input); }); } });
const fs = await import("node:fs"); const os = await import("node:os"); const path = await import("node:path");
const h = await createHost({ cwd: fs.mkdtempSync(path.join(os.tmpdir(), "ab-")), bundled: true, plugins: [p] });
const out = []; const calls = Number(process.env.AB_CALLS); for (let i = 0; i < Number(process.env.AB_WARM); i++) await h.execute("Noop", { n: 1 });
for (let r = 0; r < 7; r++) { const t0 = performance.now(); for (let i = 0; i < calls; i++) await h.execute("Noop", { n: 1 }); out.push((performance.now() - t0) / calls * 1000); }
out.sort((a, b) => a - b); console.log(out[3]);
await h.close(); process.exit(0);`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export default function pipelineAb(args: string[] = []): void {
  const i = args.indexOf("--root");
  const other = i >= 0 ? path.resolve(args[i + 1]!) : "";
  if (!other || !fs.existsSync(path.join(other, "core/index.ts"))) throw new Error("usage: node bench/run.mjs pipeline-ab --root <other checkout> [--rounds N] [--steady]");
  const r = args.indexOf("--rounds");
  const rounds = r >= 0 ? Number(args[r + 1]) : 3;
  const steady = args.includes("--steady");
  const here = path.resolve(HERE, "..");
  const script = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ab-script-")), "child.mts");
  fs.writeFileSync(script, CHILD);
  const jiti = path.join(here, "node_modules/jiti/lib/jiti.cjs");
  const run = (root: string, hooks: number) =>
    Number(execFileSync(process.execPath, ["-e", `require(${JSON.stringify(jiti)})(${JSON.stringify(script)}, { interopDefault: false }).import(${JSON.stringify(script)})`], { env: { ...process.env, AB_ROOT: root, AB_HOOKS: String(hooks), AB_CALLS: steady ? "20000" : "5000", AB_WARM: steady ? "5000" : "0" }, encoding: "utf8" }).trim());
  console.log(`pipeline A/B${steady ? " (steady state)" : ""}, ${rounds} alternating rounds, load ${os.loadavg()[0]!.toFixed(1)}: this tree vs ${other}`);
  for (const hooks of [0, 10, 50]) {
    const a: number[] = [];
    const b: number[] = [];
    for (let k = 0; k < rounds; k++) {
      b.push(run(other, hooks));
      a.push(run(here, hooks));
    }
    console.log(`  ${String(hooks).padStart(2)} PreToolUse hooks   this ${median(a).toFixed(2)} µs   other ${median(b).toFixed(2)} µs   ratio ${(median(a) / median(b)).toFixed(2)}×`);
  }
}
