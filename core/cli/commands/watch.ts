import type { CommandContext } from "../context.ts";
import type { Host, PoolDiff, PoolSnapshot, ProblemReport } from "../../index.ts";

/** Every permission rule of the current generation, as "deny Bash(rm:*) [settings:project]". */
export function rulesOf(host: Host): Set<string> {
  const out = new Set<string>();
  for (const lp of host.plugins) {
    const perms = lp.components.permissions?.value;
    if (!perms) continue;
    for (const behavior of ["allow", "ask", "deny"] as const) for (const r of perms[behavior] ?? []) out.add(`${behavior} ${r} [${lp.id}]`);
    if (perms.defaultMode) out.add(`defaultMode ${perms.defaultMode} [${lp.id}]`);
  }
  return out;
}

function setDiff(a: Set<string>, b: Set<string>): { added: string[]; removed: string[] } {
  return { added: [...b].filter((x) => !a.has(x)), removed: [...a].filter((x) => !b.has(x)) };
}

function problemJson(p: ProblemReport) {
  return { plugin: p.plugin, file: p.file ?? null, path: p.path ?? null, message: p.message };
}

/**
 * `toolhost watch`: the host with hot reload on. Prints each new generation's diff (tools added,
 * removed, changed; rules changed) or why a rebuild failed (plugin, file, JSON path), until
 * SIGINT/SIGTERM. With --json, one JSON object per line per generation.
 */
export async function run(ctx: CommandContext): Promise<number> {
  const { io, json } = ctx;
  const host = await ctx.host({ watch: true });
  const started = new Map<number, { reason: string; t0: number }>();
  let rules = rulesOf(host);
  let mode = host.mode;
  const emit = (obj: Record<string, unknown>, text: string) => io.out(json ? JSON.stringify(obj) : text);

  const generationLine = (pool: PoolSnapshot, diff: PoolDiff, reason: string, ms: number | null, ruleDiff: { added: string[]; removed: string[] }, modeChange?: string) => {
    const obj = {
      event: "generation",
      generation: pool.generation,
      reason,
      ms: ms === null ? null : Math.round(ms),
      tools: pool.tools.length,
      deferred: pool.deferred.length,
      excluded: pool.excluded.length,
      added: diff.added,
      removed: diff.removed,
      changed: diff.changed,
      rules: ruleDiff,
      mode: host.mode,
      fingerprint: pool.fingerprint,
      fingerprintChanged: diff.fingerprintChanged,
    };
    const parts: string[] = [];
    if (diff.added.length) parts.push(`+ ${diff.added.join(", ")}`);
    if (diff.removed.length) parts.push(`- ${diff.removed.join(", ")}`);
    if (diff.changed.length) parts.push(`~ ${diff.changed.join(", ")}`);
    for (const r of ruleDiff.added) parts.push(`rule + ${r}`);
    for (const r of ruleDiff.removed) parts.push(`rule - ${r}`);
    if (modeChange) parts.push(`mode ${modeChange}`);
    const head = `generation ${pool.generation} (${reason})${ms === null ? "" : ` in ${Math.round(ms)} ms`}: ${pool.tools.length} loaded, ${pool.deferred.length} deferred, ${pool.excluded.length} excluded`;
    emit(obj, parts.length ? `${head}\n${parts.map((p) => `  ${p}`).join("\n")}` : `${head}\n  no tool or rule changes`);
  };

  host.hooks.rebuildStart.tap("cli:watch", (info) => void started.set(info.generation, { reason: info.reason, t0: performance.now() }));
  host.hooks.rebuildDone.tap("cli:watch", (pool, diff) => {
    const s = started.get(pool.generation);
    started.delete(pool.generation);
    lastFailure = "";
    const next = rulesOf(host);
    const ruleDiff = setDiff(rules, next);
    rules = next;
    const modeChange = host.mode !== mode ? `${mode} → ${host.mode}` : undefined;
    mode = host.mode;
    generationLine(pool, diff, s?.reason ?? "rebuild", s ? performance.now() - s.t0 : null, ruleDiff, modeChange);
  });
  // The same failure again (an editor saving twice) is not news.
  let lastFailure = "";
  host.hooks.rebuildFailed.tap("cli:watch", (info, problems) => {
    const s = started.get(info.generation);
    started.delete(info.generation);
    const key = JSON.stringify(problems.map(problemJson));
    if (key === lastFailure) return;
    lastFailure = key;
    const serving = host.pool.generation;
    emit(
      { event: "failed", generation: info.generation, reason: info.reason, ms: s ? Math.round(performance.now() - s.t0) : null, serving, problems: problems.map(problemJson) },
      `generation ${info.generation} (${info.reason}) failed; still serving generation ${serving}:\n${problems.map((p) => `  [${p.plugin}] ${p.file ?? ""}${p.path ? ` ${p.path}` : ""}: ${p.message}`).join("\n")}`,
    );
  });

  // The generation the host started with.
  const first = host.pool;
  generationLine(first, { added: [...first.byName.keys()], removed: [], changed: [], fingerprintChanged: true }, "startup", null, { added: [...rules], removed: [] });
  const errors = host.problems().filter((p) => p.severity === "error");
  if (errors.length) {
    emit({ event: "problems", generation: first.generation, problems: errors.map(problemJson) }, `errors:\n${errors.map((p) => `  [${p.plugin}] ${p.file ?? ""}${p.path ? ` ${p.path}` : ""}: ${p.message}`).join("\n")}`);
  }
  if (!json) io.err("watching for changes (Ctrl-C to stop)");

  const signal = await new Promise<string>((resolve) => {
    const on = (s: string) => () => {
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
      resolve(s);
    };
    const onInt = on("SIGINT");
    const onTerm = on("SIGTERM");
    process.once("SIGINT", onInt);
    process.once("SIGTERM", onTerm);
  });
  await host.close();
  emit({ event: "stopped", signal }, `stopped (${signal})`);
  return 0;
}
