/**
 * `toolhost watch [--json]` (declared in manifests/watch.json `cliCommands`): the host with hot reload
 * on. Prints each new generation's diff (tools added, removed, changed; permission rules, hook handlers
 * and mode changed) or why a rebuild failed (plugin, file, JSON path), until SIGINT/SIGTERM. With
 * --json, one JSON object per line per generation.
 */
import type { CommandContext, Host, PoolDiff, PoolSnapshot, ProblemReport } from "../../core/index.ts";

type SetDiff = { added: string[]; removed: string[] };

/** Every permission rule of the current generation, as "deny Bash(rm:*) [settings:project]" (AGENTS.md ones "[agents-md AGENTS.md:3]"). */
export function rulesOf(host: Host): Set<string> {
  const out = new Set<string>();
  for (const lp of host.plugins) {
    const perms = lp.components.permissions?.value;
    if (!perms) continue;
    for (const behavior of ["allow", "ask", "deny"] as const) for (const r of perms[behavior] ?? []) out.add(`${behavior} ${r} [${lp.id}]`);
    if (perms.defaultMode) out.add(`defaultMode ${perms.defaultMode} [${lp.id}]`);
  }
  // rules a plugin compiles and enforces itself (AGENTS.md) come from its "<plugin>.rules" service
  for (const lp of host.plugins) {
    const svc = host.service<{ current(): { rules: Array<{ behavior: string; rule: string; file?: string; line?: number }> } }>(`${lp.id}.rules`);
    if (lp.id === "permissions" || typeof svc?.current !== "function") continue;
    for (const r of svc.current().rules) out.add(`${r.behavior} ${r.rule} [${lp.id}${r.file ? ` ${r.file.split("/").pop()}${r.line ? `:${r.line}` : ""}` : ""}]`);
  }
  return out;
}

/** Every declared hook handler, as "PreToolUse Bash ./guard.sh if Bash(rm *) [settings:project]". */
export function hooksOf(host: Host): Set<string> {
  const out = new Set<string>();
  for (const lp of host.plugins) {
    for (const comp of lp.components.hooks) {
      for (const [event, groups] of Object.entries(comp.value)) {
        for (const g of groups as Array<{ matcher?: string; hooks?: Array<Record<string, unknown>> }>) {
          for (const h of g.hooks ?? []) {
            const what = h.type === "http" ? h.url : h.type === "mcp_tool" ? `${String(h.server)}/${String(h.tool)}` : [h.command, ...((h.args as string[] | undefined) ?? [])].join(" ");
            out.add(`${event} ${g.matcher ?? "*"} ${String(what)}${h.if ? ` if ${String(h.if)}` : ""} [${lp.id}]`);
          }
        }
      }
    }
  }
  return out;
}

function setDiff(a: Set<string>, b: Set<string>): SetDiff {
  return { added: [...b].filter((x) => !a.has(x)), removed: [...a].filter((x) => !b.has(x)) };
}

function problemJson(p: ProblemReport) {
  return { plugin: p.plugin, file: p.file ?? null, path: p.path ?? null, message: p.message };
}

function problemLines(problems: readonly ProblemReport[]): string {
  return problems.map((p) => `  [${p.plugin}] ${p.file ?? ""}${p.path ? ` ${p.path}` : ""}: ${p.message}`).join("\n");
}

interface Change {
  reason: string;
  ms: number | null;
  rules: SetDiff;
  hooks: SetDiff;
  modeChange?: string;
}

/** One generation: its JSON object and its text (the diff, or "no tool or rule changes"). */
function generationLine(host: Host, pool: PoolSnapshot, diff: PoolDiff, c: Change): [Record<string, unknown>, string] {
  const obj = {
    event: "generation",
    generation: pool.generation,
    reason: c.reason,
    ms: c.ms === null ? null : Math.round(c.ms),
    tools: pool.tools.length,
    deferred: pool.deferred.length,
    excluded: pool.excluded.length,
    added: diff.added,
    removed: diff.removed,
    changed: diff.changed,
    rules: c.rules,
    hooks: c.hooks,
    mode: host.mode,
    fingerprint: pool.fingerprint,
    fingerprintChanged: diff.fingerprintChanged,
  };
  const parts: string[] = [];
  if (diff.added.length) parts.push(`+ ${diff.added.join(", ")}`);
  if (diff.removed.length) parts.push(`- ${diff.removed.join(", ")}`);
  if (diff.changed.length) parts.push(`~ ${diff.changed.join(", ")}`);
  for (const r of c.rules.added) parts.push(`rule + ${r}`);
  for (const r of c.rules.removed) parts.push(`rule - ${r}`);
  for (const h of c.hooks.added) parts.push(`hook + ${h}`);
  for (const h of c.hooks.removed) parts.push(`hook - ${h}`);
  if (c.modeChange) parts.push(`mode ${c.modeChange}`);
  const head = `generation ${pool.generation} (${c.reason})${c.ms === null ? "" : ` in ${Math.round(c.ms)} ms`}: ${pool.tools.length} loaded, ${pool.deferred.length} deferred, ${pool.excluded.length} excluded`;
  return [obj, parts.length ? `${head}\n${parts.map((p) => `  ${p}`).join("\n")}` : `${head}\n  no tool or rule changes`];
}

/** Print every rebuild's outcome; the same failure again (an editor saving twice) is not news. */
function follow(host: Host, emit: (obj: Record<string, unknown>, text: string) => void): void {
  const started = new Map<number, { reason: string; t0: number }>();
  let rules = rulesOf(host);
  let hooks = hooksOf(host);
  let mode = host.mode;
  let lastFailure = "";
  host.hooks.rebuildStart.tap("cli:watch", (info) => void started.set(info.generation, { reason: info.reason, t0: performance.now() }));
  host.hooks.rebuildDone.tap("cli:watch", (pool, diff) => {
    const s = started.get(pool.generation);
    started.delete(pool.generation);
    lastFailure = "";
    const [nextRules, nextHooks] = [rulesOf(host), hooksOf(host)];
    const change: Change = { reason: s?.reason ?? "rebuild", ms: s ? performance.now() - s.t0 : null, rules: setDiff(rules, nextRules), hooks: setDiff(hooks, nextHooks) };
    if (host.mode !== mode) change.modeChange = `${mode} → ${host.mode}`;
    [rules, hooks, mode] = [nextRules, nextHooks, host.mode];
    emit(...generationLine(host, pool, diff, change));
  });
  host.hooks.rebuildFailed.tap("cli:watch", (info, problems) => {
    const s = started.get(info.generation);
    started.delete(info.generation);
    const key = JSON.stringify(problems.map(problemJson));
    if (key === lastFailure) return;
    lastFailure = key;
    const serving = host.pool.generation;
    emit(
      { event: "failed", generation: info.generation, reason: info.reason, ms: s ? Math.round(performance.now() - s.t0) : null, serving, problems: problems.map(problemJson) },
      `generation ${info.generation} (${info.reason}) failed; still serving generation ${serving}:\n${problemLines(problems)}`,
    );
  });
}

function stopSignal(): Promise<string> {
  return new Promise<string>((resolve) => {
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
}

export async function run(ctx: CommandContext): Promise<number> {
  const { io, json } = ctx;
  const host = await ctx.host({ watch: true });
  const emit = (obj: Record<string, unknown>, text: string) => io.out(json ? JSON.stringify(obj) : text);
  follow(host, emit);
  // The generation the host started with.
  const first = host.pool;
  const none = { added: [], removed: [] };
  emit(...generationLine(host, first, { added: [...first.byName.keys()], removed: [], changed: [], fingerprintChanged: true }, { reason: "startup", ms: null, rules: { added: [...rulesOf(host)], removed: [] }, hooks: none }));
  const errors = host.problems().filter((p) => p.severity === "error");
  if (errors.length) emit({ event: "problems", generation: first.generation, problems: errors.map(problemJson) }, `errors:\n${problemLines(errors)}`);
  if (!json) io.err("watching for changes (Ctrl-C to stop)");
  const signal = await stopSignal();
  await host.close();
  emit({ event: "stopped", signal }, `stopped (${signal})`);
  return 0;
}
