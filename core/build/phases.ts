/**
 * The pool phases of one Build, each a small function: collect → exclude → resolve conflicts → sort →
 * defer → seal. Core applies its default rules between the hooks (core/build/pool.ts).
 */
import { errorMessage, type ProblemReport } from "../errors.ts";
import type { BuildHooks, DeferDecision, Exclusion, PoolContext, PoolSnapshot, Tool } from "../types.ts";
import { compareTools, defaultConflictWinner, fingerprintOf } from "./pool.ts";
import type { ValidateFunction } from "ajv";

export interface PhaseState {
  readonly hooks: BuildHooks;
  readonly problems: ProblemReport[];
  readonly ctx: PoolContext;
  readonly excluded: Exclusion[];
  /** Compiled input schemas, by `plugin\0name` while assembling, then by name for the pooled tools. */
  readonly validators: Map<string, ValidateFunction>;
  compile(schema: unknown): ValidateFunction;
}

export async function collect(s: PhaseState): Promise<Tool[]> {
  const collected: Tool[] = [];
  await s.hooks.collect.promise({ add: (tool) => void collected.push(tool), problem: (p) => void s.problems.push(p) }, s.ctx);
  return collected;
}

/** Drops nameless tools, tools a plugin excludes, and tools whose schema does not compile. */
export function exclude(s: PhaseState, tools: Tool[]): Tool[] {
  const kept: Tool[] = [];
  for (const tool of tools) {
    if (!tool || typeof tool.name !== "string" || !tool.name) {
      s.problems.push({ plugin: tool?.plugin ?? "?", file: tool?.file, path: "name", message: "tool has no name", severity: "error" });
      continue;
    }
    const ex = s.hooks.exclude.call(tool, s.ctx);
    if (ex) {
      s.excluded.push({ toolPlugin: tool.plugin, ...ex, name: tool.name });
      continue;
    }
    try {
      s.validators.set(`${tool.plugin}\0${tool.name}`, s.compile(tool.inputSchema));
    } catch (e) {
      s.excluded.push({ name: tool.name, reason: `input schema does not compile: ${errorMessage(e)}`, rule: "schema", plugin: "toolhost", file: tool.file, toolPlugin: tool.plugin });
      continue;
    }
    kept.push(tool);
  }
  return kept;
}

/** One tool per name: a plugin may decide, else the documented default rule; losers are excluded, with why. */
export function resolveConflicts(s: PhaseState, tools: Tool[]): Tool[] {
  const byName = new Map<string, Tool[]>();
  for (const t of tools) byName.set(t.name, [...(byName.get(t.name) ?? []), t]);
  const winners: Tool[] = [];
  for (const [name, cands] of byName) {
    const w = cands.length === 1 ? cands[0]! : (s.hooks.resolveConflict.call(cands, s.ctx) ?? defaultConflictWinner(cands));
    winners.push(w);
    for (const loser of cands) {
      if (loser === w) continue;
      s.excluded.push({
        name,
        reason: `name conflict: "${name}" is also provided by plugin ${w.plugin} (${w.origin}), which wins (origin builtin > plugin > lsp > mcp > remote, then plugin id)`,
        rule: "conflict",
        plugin: "toolhost",
        file: loser.file,
        toolPlugin: loser.plugin,
      });
    }
  }
  return winners;
}

export function sort(s: PhaseState, tools: Tool[]): Tool[] {
  return s.hooks.sort.call([...tools].sort(compareTools), s.ctx);
}

export function defer(s: PhaseState, tools: Tool[]): { eager: Tool[]; deferred: Tool[]; deferral: Map<string, DeferDecision> } {
  const deferral = new Map<string, DeferDecision>();
  const eager: Tool[] = [];
  const deferred: Tool[] = [];
  for (const t of tools) {
    const d = s.hooks.defer.call(t, s.ctx) ?? { defer: false, reason: "loaded: no rule defers it", rule: "default" };
    deferral.set(t.name, d);
    (d.defer ? deferred : eager).push(t);
  }
  for (const t of [...eager, ...deferred]) {
    const v = s.validators.get(`${t.plugin}\0${t.name}`);
    if (v) s.validators.set(t.name, v);
  }
  return { eager, deferred, deferral };
}

export function seal(s: PhaseState, split: ReturnType<typeof defer>): PoolSnapshot {
  const { eager, deferred, deferral } = split;
  const pool: PoolSnapshot = Object.freeze({
    generation: s.ctx.generation,
    tools: Object.freeze(eager),
    deferred: Object.freeze(deferred),
    excluded: Object.freeze(s.excluded.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))),
    deferral,
    problems: s.problems,
    fingerprint: fingerprintOf(eager, deferred),
    byName: new Map([...eager, ...deferred].map((t) => [t.name, t])),
    createdAt: Date.now(),
  });
  s.hooks.seal.call(pool);
  return pool;
}
