/**
 * The redesign's size and structure targets (README, "Design"): `node bench/run.mjs house [--list]`.
 * Figures are counts, not timings, so they are exact on any machine.
 */
import { figures } from "../test/contract/house.ts";

const TARGETS = { coreLines: 2500, coreCodeLines: 2500, cliLines: 400, coreFilesOver250: 0, coreFunctionsOver50: 0, pluginFilesOver400: 0, functionsOver80: 5, circles: 0, pluginToPlugin: 0 };

export default function house(args: string[] = []): void {
  const f = figures();
  const list = args.includes("--list");
  const row = (name: keyof typeof TARGETS, value: number, items?: unknown[]) => {
    const ok = value <= TARGETS[name];
    console.log(`${ok ? "✓" : "✗"} ${name.padEnd(20)} ${String(value).padStart(6)}   target ≤ ${TARGETS[name]}`);
    if (list && items?.length) for (const i of items) console.log(`      ${Array.isArray(i) ? i.join(" ⇄ ") : i}`);
  };
  row("coreLines", f.coreLines);
  row("coreCodeLines", f.coreCodeLines);
  row("cliLines", f.cliLines);
  row("coreFilesOver250", f.coreFilesOver250.length, f.coreFilesOver250);
  row("coreFunctionsOver50", f.coreFunctionsOver50.length, f.coreFunctionsOver50);
  row("pluginFilesOver400", f.pluginFilesOver400.length, f.pluginFilesOver400);
  row("functionsOver80", f.functionsOver80.length, f.functionsOver80);
  row("circles", f.circles.length, f.circles);
  row("pluginToPlugin", f.pluginToPlugin.length, f.pluginToPlugin);
}
