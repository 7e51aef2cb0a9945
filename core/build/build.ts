/**
 * One Build = one pool generation: fresh frozen hooks, the sealed pool, its compiled validators, and the
 * config and mode it was made with, frozen — a call in flight never sees the next generation's.
 */
import type { ValidateFunction } from "ajv";
import type { ProblemReport } from "../errors.ts";
import { createBuildHooks } from "../hooks/create.ts";
import { hooksFacade } from "../hooks/facade.ts";
import type { BuildHooks, BuildView, Exclusion, HostConfig, HostView, LoadedPlugin, PoolContext, PoolSnapshot, Tool } from "../types.ts";
import type { CallBuild } from "../call/call.ts";
import { collect, defer, exclude, resolveConflicts, seal, sort, type PhaseState } from "./phases.ts";
import { frozenCopy } from "../../lib/json.ts";
import { strictValidator, toolValidator } from "../../lib/validators.ts";

export class Build implements CallBuild {
  readonly hooks: BuildHooks;
  readonly problems: ProblemReport[] = [];
  readonly validators = new Map<string, () => ValidateFunction>();
  /** Errors pool hooks reported through `ctx.problem`: this generation must not replace the last good one. */
  readonly blocking = new Set<ProblemReport>();
  readonly config: Readonly<HostConfig>;
  private sealed?: PoolSnapshot;
  private readonly views = new Map<string, BuildView>();

  constructor(
    readonly generation: number,
    readonly mode: string,
    readonly cwd: string,
    config: HostConfig,
    readonly plugins: readonly LoadedPlugin[],
    readonly host: HostView,
    readonly allowAlways: (tool: Tool, input: unknown, sessionId?: string) => void,
  ) {
    this.config = frozenCopy(config);
    this.hooks = createBuildHooks((p) => this.problems.push(p));
  }

  get pool(): PoolSnapshot {
    if (!this.sealed) throw new Error(`generation ${this.generation} is not assembled yet`);
    return this.sealed;
  }

  validator(tool: Tool): ValidateFunction | undefined {
    return this.validators.get(tool.name)?.();
  }

  strictValidator(tool: Tool): ValidateFunction | undefined {
    return this.validators.has(tool.name) ? strictValidator(tool.inputSchema) : undefined;
  }

  /** The view handed to plugin `id`: same hooks, but every tap is recorded under `id`. */
  viewFor(id: string): BuildView {
    let v = this.views.get(id);
    if (!v) {
      v = Object.freeze({ generation: this.generation, hooks: hooksFacade(this.hooks, id), mode: this.mode, cwd: this.cwd, config: this.config, plugins: this.plugins, host: this.host });
      this.views.set(id, v);
    }
    return v;
  }

  async assemble(): Promise<PoolSnapshot> {
    const report = (p: ProblemReport) => void (this.problems.push(p), p.severity === "error" && this.blocking.add(p));
    const ctx: PoolContext = { generation: this.generation, mode: this.mode, cwd: this.cwd, problem: report };
    const s: PhaseState = { hooks: this.hooks, problems: this.problems, ctx, excluded: [] as Exclusion[], plugins: this.plugins, addedBy: new Map(), validators: this.validators, compile: toolValidator };
    const tools = await collect(s);
    ctx.collectedNames = new Set(tools.map((t) => t?.name));
    const pooled = sort(s, exclude(s, resolveConflicts(s, tools)));
    this.sealed = seal(s, defer(s, pooled));
    return this.sealed;
  }
}
