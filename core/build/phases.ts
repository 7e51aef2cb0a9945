/**
 * The pool phases of one Build, each a small function: collect → resolve names (before any filter, so a
 * name's owner never depends on the mode or a rule) → exclude → sort → defer → seal. Core applies its default rules between the hooks (core/build/pool.ts).
 */
import { errorMessage, type ProblemReport } from "../errors.ts";
import type { BuildHooks, DeferDecision, Exclusion, LoadedPlugin, PoolContext, PoolSnapshot, Tool, ToolCollector } from "../types.ts";
import { compareTools, fingerprintOf } from "./pool.ts";
import { resolveNames } from "./names.ts";
import type { ValidateFunction } from "ajv";

export interface PhaseState {
  readonly hooks: BuildHooks;
  readonly problems: ProblemReport[];
  readonly ctx: PoolContext;
  readonly excluded: Exclusion[];
  readonly plugins: readonly LoadedPlugin[];
  /** Which plugin's collect tap added each tool (names.ts: only trusted sources may claim "builtin" or "mcp"). */
  readonly addedBy: Map<Tool, string>;
  /** Compiled input schemas, by `plugin\0name` while assembling, then by name for the pooled tools. */
  /** Per tool, its input validator (compiled on first use when the schema is known to compile). */
  readonly validators: Map<string, () => ValidateFunction>;
  /** Check that `schema` compiles (throws when it does not) and return its validator, compiled now or later. */
  compile(schema: unknown): () => ValidateFunction;
}

/** Every source adds its tools; each tool is recorded with the plugin whose collect tap added it (names.ts). */
export async function collect(s: PhaseState): Promise<Tool[]> {
  const collected: Tool[] = [];
  const problem = (p: ProblemReport) => void s.problems.push(p);
  const trusted = new Set(s.plugins.filter((p) => p.source.kind === "bundled" || p.kind === "inline").map((p) => p.id));
  // A plugin's own code adds tools as itself: the plugin id it writes on a tool does not count.
  const own = (tool: Tool, id: string): Tool => (trusted.has(id) || !tool || typeof tool !== "object" || tool.plugin === id ? tool : { ...tool, plugin: id });
  const collectorOf = (id: string): ToolCollector => ({ add: (tool) => void ((tool = own(tool, id)), collected.push(tool), s.addedBy.set(tool, id)), problem });
  type Tap = { name: string; fn: (...args: unknown[]) => unknown };
  s.hooks.collect.intercept({
    register: (tap: Tap) => {
      const fn = tap.fn;
      const c = collectorOf(tap.name);
      return { ...tap, fn: (_collector: unknown, ...rest: unknown[]) => fn(c, ...rest) };
    },
  } as never);
  await s.hooks.collect.promise({ add: (tool) => void collected.push(tool), problem }, s.ctx);
  return collected;
}

/** One owner per name (names.ts): built-in names and `mcp__*` are owned; any other duplicate is refused. */
export function resolveConflicts(s: PhaseState, tools: Tool[]): Tool[] {
  return resolveNames({ problems: s.problems, excluded: s.excluded, plugins: s.plugins, addedBy: s.addedBy, resolve: (c) => s.hooks.resolveConflict.call(c, s.ctx) }, tools);
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
    const closed = closeSchema(tool);
    try {
      s.validators.set(`${tool.plugin}\0${tool.name}`, s.compile(closed.inputSchema));
    } catch (e) {
      s.excluded.push({ name: tool.name, reason: `input schema does not compile: ${errorMessage(e)}`, rule: "schema", plugin: "toolhost", file: tool.file, toolPlugin: tool.plugin });
      continue;
    }
    kept.push(closed);
  }
  return kept;
}

const COMPOSED = ["allOf", "anyOf", "oneOf", "$ref", "if", "patternProperties", "unevaluatedProperties", "dependentSchemas"];

/**
 * Every tool schema is closed — `additionalProperties: false`, so an invented field is an invalid input —
 * unless its author says otherwise (any explicit `additionalProperties`), whatever form the tool is
 * written in. Left as written: MCP tools (the server owns its schema and validates its own input; toolhost
 * validates against it as sent, as Claude Code forwards it) and schemas composed with allOf/anyOf/oneOf/
 * $ref/if/patternProperties, where closing the top level would refuse properties a branch declares.
 */
export function closeSchema(tool: Tool): Tool {
  const sc = tool.inputSchema as Record<string, unknown> | undefined;
  if (tool.origin === "mcp" || !sc || typeof sc !== "object" || Array.isArray(sc) || "additionalProperties" in sc) return tool;
  if ((sc.type !== undefined && sc.type !== "object") || COMPOSED.some((k) => k in sc)) return tool;
  let closed = closedSchemas.get(sc);
  if (!closed) closedSchemas.set(sc, (closed = { type: "object", ...sc, additionalProperties: false }));
  if (Object.isFrozen(tool)) return { ...tool, inputSchema: closed };
  tool.inputSchema = closed; // idempotent, and no copy of every tool per generation
  return tool;
}
/** One closed copy per schema object: caches keyed by schema identity (token counts, validators) keep hitting across generations. */
const closedSchemas = new WeakMap<object, Record<string, unknown>>();

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
