/**
 * One Build = one pool generation: fresh frozen hooks, the sealed pool, its compiled validators.
 * `assemble()` runs the pool phases in order: collect → exclude → resolve conflicts → sort → defer → seal.
 */
import { Ajv, type ValidateFunction } from "ajv";
import type { ProblemReport } from "./errors.ts";
import { errorMessage } from "./errors.ts";
import { createBuildHooks, hooksFacade, type BuildHooks, type DeferDecision, type Exclusion, type PoolContext } from "./hooks.ts";
import type { LoadedPlugin } from "./manifest.ts";
import { compareTools, defaultConflictWinner, fingerprintOf, stableStringify, type PoolSnapshot } from "./pool.ts";
import type { Tool } from "./tool.ts";
import type { HostView } from "./plugin.ts";

/** What a plugin sees of a Build: its hooks (tapped under the plugin's own id) and context. */
export interface BuildView {
  readonly generation: number;
  readonly hooks: BuildHooks;
  readonly mode: string;
  readonly cwd: string;
  /** Every loaded plugin of this generation (including settings pseudo-plugins), for component consumers. */
  readonly plugins: readonly LoadedPlugin[];
  readonly host: HostView;
}

// Validators are cached across generations by schema text: unchanged tools never recompile.
const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: true, validateFormats: false });
const validatorCache = new Map<string, ValidateFunction>();

export function compileSchema(schema: unknown): ValidateFunction {
  const key = stableStringify(schema);
  let v = validatorCache.get(key);
  if (!v) {
    v = ajv.compile(schema as object);
    if (validatorCache.size > 50_000) validatorCache.clear();
    validatorCache.set(key, v);
  }
  return v;
}

export class Build {
  readonly hooks: BuildHooks;
  readonly problems: ProblemReport[] = [];
  readonly validators = new Map<string, ValidateFunction>();
  pool?: PoolSnapshot;
  private readonly views = new Map<string, BuildView>();

  constructor(
    readonly generation: number,
    readonly mode: string,
    readonly cwd: string,
    readonly plugins: readonly LoadedPlugin[],
    readonly host: HostView,
  ) {
    this.hooks = createBuildHooks((p) => this.problems.push(p));
  }

  /** The view handed to plugin `id`: same hooks, but every tap is recorded under `id`. */
  viewFor(id: string): BuildView {
    let v = this.views.get(id);
    if (!v) {
      v = Object.freeze({
        generation: this.generation,
        hooks: hooksFacade(this.hooks, id),
        mode: this.mode,
        cwd: this.cwd,
        plugins: this.plugins,
        host: this.host,
      });
      this.views.set(id, v);
    }
    return v;
  }

  async assemble(): Promise<PoolSnapshot> {
    const ctx: PoolContext = { generation: this.generation, mode: this.mode, cwd: this.cwd };
    const collected: Tool[] = [];
    await this.hooks.collect.promise(
      {
        add: (tool) => collected.push(tool),
        problem: (p) => this.problems.push(p),
      },
      ctx,
    );

    const excluded: Exclusion[] = [];
    const kept: Tool[] = [];
    for (const tool of collected) {
      if (!tool || typeof tool.name !== "string" || !tool.name) {
        this.problems.push({ plugin: tool?.plugin ?? "?", file: tool?.file, path: "name", message: "tool has no name", severity: "error" });
        continue;
      }
      const ex = this.hooks.exclude.call(tool, ctx);
      if (ex) {
        excluded.push({ toolPlugin: tool.plugin, ...ex, name: tool.name });
        continue;
      }
      try {
        this.validators.set(`${tool.plugin}\0${tool.name}`, compileSchema(tool.inputSchema));
      } catch (e) {
        excluded.push({
          name: tool.name,
          reason: `input schema does not compile: ${errorMessage(e)}`,
          rule: "schema",
          plugin: "toolhost",
          file: tool.file,
          toolPlugin: tool.plugin,
        });
        continue;
      }
      kept.push(tool);
    }

    // Resolve duplicate names: a plugin may decide, else the documented default rule.
    const byName = new Map<string, Tool[]>();
    for (const t of kept) byName.set(t.name, [...(byName.get(t.name) ?? []), t]);
    const winners: Tool[] = [];
    for (const [name, cands] of byName) {
      if (cands.length === 1) {
        winners.push(cands[0]!);
        continue;
      }
      const w = this.hooks.resolveConflict.call(cands, ctx) ?? defaultConflictWinner(cands);
      winners.push(w);
      for (const loser of cands) {
        if (loser === w) continue;
        excluded.push({
          name,
          reason: `name conflict: "${name}" is also provided by plugin ${w.plugin} (${w.origin}), which wins (origin builtin > plugin > lsp > mcp > remote, then plugin id)`,
          rule: "conflict",
          plugin: "toolhost",
          file: loser.file,
          toolPlugin: loser.plugin,
        });
      }
    }

    const sorted = this.hooks.sort.call([...winners].sort(compareTools), ctx);
    const deferral = new Map<string, DeferDecision>();
    const eager: Tool[] = [];
    const deferred: Tool[] = [];
    for (const t of sorted) {
      const d = this.hooks.defer.call(t, ctx) ?? { defer: false, reason: "loaded: no rule defers it", rule: "default" };
      deferral.set(t.name, d);
      (d.defer ? deferred : eager).push(t);
    }
    for (const t of [...eager, ...deferred]) {
      const v = this.validators.get(`${t.plugin}\0${t.name}`);
      if (v) this.validators.set(t.name, v);
    }
    const pool: PoolSnapshot = Object.freeze({
      generation: this.generation,
      tools: Object.freeze(eager),
      deferred: Object.freeze(deferred),
      excluded: Object.freeze(excluded.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))),
      deferral,
      problems: this.problems,
      fingerprint: fingerprintOf(eager, deferred),
      byName: new Map([...eager, ...deferred].map((t) => [t.name, t])),
      createdAt: Date.now(),
    });
    this.hooks.seal.call(pool);
    this.pool = pool;
    return pool;
  }
}
