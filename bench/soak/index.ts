/**
 * The long soak (issue 12, "What to build" item 2): `node bench/run.mjs soak [--minutes N] [--calls N] [--clients N]
 * [--reload-ms MIN-MAX] [--fault-every N]`. Defaults: 10 minutes or 1,000,000 calls, whichever comes first; 4 clients;
 * the config rewritten every 0.5–1 s; a fault (broken config, broken tool module, MCP server killed) after every
 * 10th rewrite. The engine is test/reliability/helpers.ts (the short CI soak runs the same code for a few thousand
 * calls). Prints calls, clients, error rate, p50/p99 and RSS/heap (after GC) per minute, fds and child processes at
 * start and end, pool changes vs list_changed per client, faults survived, transcript completeness (every call
 * exactly once, in order per session; valid JSONL after kill -9) and spill completeness. Exit code 1 when any of
 * those is not clean.
 */
import { formatReport, runSoak, type SoakReport } from "../../test/reliability/helpers.ts";

function arg(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

export function clean(r: SoakReport): string[] {
  const bad: string[] = [];
  if (r.errors || r.wrong) bad.push(`${r.errors} errors, ${r.wrong} wrong answers`);
  if (r.faults.some((f) => !f.survived)) bad.push(`${r.faults.filter((f) => !f.survived).length} faults not survived`);
  if (r.listChanged.some((n) => n !== r.poolChanges)) bad.push(`list_changed ${r.listChanged.join("/")} vs ${r.poolChanges} pool changes`);
  const t = r.transcript;
  if (t.invalid || t.missing || t.duplicates || t.outOfOrder) bad.push("transcript incomplete");
  if (r.kill.invalidLines || r.kill.answeredMissing || r.kill.partialLastLine || r.kill.survivors.length) bad.push("kill -9: transcript or processes not clean");
  if (r.children.end !== r.children.start) bad.push("child processes leaked");
  if (!r.spill.ok) bad.push("spill incomplete");
  return bad;
}

export default async function main(args: string[]): Promise<void> {
  const minutes = Number(arg(args, "minutes") ?? (arg(args, "calls") ? 600 : 10));
  const calls = Number(arg(args, "calls") ?? 1_000_000);
  const clients = Number(arg(args, "clients") ?? 4);
  const [lo, hi] = (arg(args, "reload-ms") ?? "500-1000").split("-").map(Number);
  const faultEvery = Number(arg(args, "fault-every") ?? 10);
  console.log(`soak: ${clients} clients, up to ${minutes} min or ${calls} calls, config rewritten every ${lo}–${hi} ms, a fault every ${faultEvery} rewrites`);
  const r = await runSoak({ clients, calls, durationMs: minutes * 60_000, reloadMs: [lo!, hi!], bucketMs: 60_000, faultEvery, log: (l) => console.log(l) });
  for (const l of formatReport(r)) console.log(l);
  const bad = clean(r);
  console.log(bad.length ? `NOT CLEAN: ${bad.join("; ")}` : "clean: no errors, no wrong answers, nothing lost, nothing leaked");
  if (bad.length) {
    console.log("last stderr lines of the server:\n" + r.stderrTail.join("\n"));
    process.exitCode = 1;
  }
}
