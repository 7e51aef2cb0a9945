/**
 * Plugin lifecycle: which plugins with code (`main` modules, inline plugins) are active, importing new
 * and edited ones before anything is disposed, disposing removed ones, and the context each one gets.
 */
import { errorMessage, type ProblemReport } from "../errors.ts";
import { hooksFacade } from "../hooks/facade.ts";
import type { BuildView, HostHooks, HostView, LoadedPlugin, Logger, PluginContext, PluginDefinition } from "../types.ts";
import type { Build } from "../build/build.ts";
import { importPlugin, stampOf } from "./plugin-code.ts";
import { startStep } from "../../lib/progress.ts";

interface ActivePlugin {
  id: string;
  stamp: string;
  token: object;
  disposers: Array<() => void | Promise<void>>;
  record: LoadedPlugin;
}
interface Prepared {
  def?: PluginDefinition;
  problem?: ProblemReport;
  stamp: string;
}
export const problemKey = (p: ProblemReport) => `${p.plugin}\0${p.file}\0${p.path}\0${p.message}`;

export class Activator {
  private readonly active = new Map<string, ActivePlugin>();
  private readonly services = new Map<string, { plugin: string; value: unknown }>();
  /** Config keys plugins own, with their schemas (ctx.contributeConfig). */
  readonly configKeys = new Map<string, { plugin: string; value: object }>();

  constructor(
    private readonly hooks: HostHooks,
    private readonly view: () => HostView,
    private readonly log: Logger,
    private readonly report: (p: ProblemReport) => void,
  ) {}

  service<T>(name: string): T | undefined {
    return this.services.get(name)?.value as T | undefined;
  }

  get activeIds(): string[] {
    return [...this.active.keys()];
  }

  /**
   * Activate what `loaded` wants. When an import brings an error the last good generation did not
   * have (`known`) and there is a last good generation, nothing changes and the failures are returned.
   */
  async sync(loaded: LoadedPlugin[], problems: ProblemReport[], inline: Map<string, PluginDefinition>, known: Set<string>, hasGood: boolean): Promise<ProblemReport[]> {
    const want = new Map<string, LoadedPlugin>();
    for (const lp of loaded) if (lp.components.main || lp.kind === "inline") want.set(lp.id, lp);
    const prepared = await this.prepare(want, inline);
    const fresh = [...prepared.values()].flatMap((p) => (p.problem && !known.has(problemKey(p.problem)) ? [p.problem] : []));
    if (fresh.length && hasGood) return fresh;
    for (const id of [...this.active.keys()]) if (!want.has(id) || prepared.has(id)) await this.deactivate(id);
    for (const [id, lp] of want) {
      const prep = prepared.get(id);
      if (!prep) this.active.get(id)!.record = lp;
      else await this.apply(id, lp, prep, loaded, problems);
    }
    return [];
  }

  private async prepare(want: Map<string, LoadedPlugin>, inline: Map<string, PluginDefinition>): Promise<Map<string, Prepared>> {
    const prepared = new Map<string, Prepared>();
    for (const [id, lp] of want) {
      const stamp = stampOf(lp);
      if (this.active.get(id)?.stamp === stamp) continue;
      try {
        const def = lp.kind === "inline" ? inline.get(id) : await importPlugin(lp);
        if (!def) throw new Error(`module ${lp.components.main?.file} does not export a plugin (default export of definePlugin({ name, apply }))`);
        prepared.set(id, { def, stamp });
      } catch (e) {
        prepared.set(id, { problem: activationProblem(id, lp, e), stamp });
      }
    }
    return prepared;
  }

  private async apply(id: string, lp: LoadedPlugin, prep: Prepared, loaded: LoadedPlugin[], problems: ProblemReport[]): Promise<void> {
    try {
      if (prep.problem) throw prep.problem;
      const ap: ActivePlugin = { id, stamp: prep.stamp, token: {}, disposers: [], record: lp };
      this.active.set(id, ap);
      await prep.def!.apply(this.contextFor(ap));
      this.hooks.activate.call(lp);
    } catch (e) {
      this.active.delete(id);
      const pr = prep.problem ?? activationProblem(id, lp, e);
      problems.push(pr);
      lp.problems.push(pr);
      this.hooks.activateFailed.call(lp, pr);
      const idx = loaded.indexOf(lp);
      if (idx >= 0) loaded.splice(idx, 1);
    }
  }

  async deactivate(id: string): Promise<void> {
    const ap = this.active.get(id);
    if (!ap) return;
    this.active.delete(id);
    for (const d of ap.disposers.reverse()) {
      try {
        await d();
      } catch (e) {
        this.log.warn(`[plugin ${id}] dispose failed: ${errorMessage(e)}`);
      }
    }
  }

  async closeAll(): Promise<void> {
    for (const id of [...this.active.keys()]) await this.deactivate(id);
  }

  /** A plugin's context: host hooks tapped under its id, silent once it is gone; build hooks through its BuildView. */
  private contextFor(ap: ActivePlugin): PluginContext {
    const alive = () => this.active.get(ap.id)?.token === ap.token;
    const guard = (fn: Function) =>
      function (this: unknown, ...args: unknown[]) {
        if (alive()) return fn.apply(this, args);
        const last = args[args.length - 1];
        if (typeof last === "function" && fn.length === args.length) return (last as Function)();
        return undefined;
      };
    const wrap: Record<string, (fn: Function) => Function> = {};
    for (const k of Object.keys(this.hooks)) wrap[k] = guard;
    wrap.build = (fn: Function) => guard((build: Build | BuildView) => fn("viewFor" in build ? build.viewFor(ap.id) : build));
    return Object.freeze({
      id: ap.id,
      get plugin() {
        return ap.record;
      },
      host: this.view(),
      hooks: hooksFacade(this.hooks, ap.id, wrap as never),
      report: (p: Omit<ProblemReport, "plugin">) => void this.report({ ...p, plugin: ap.id }),
      provide: (name: string, value: unknown) => this.register(this.services, "service", ap, name, value),
      contributeConfig: (key: string, schema: object) => this.register(this.configKeys, "config key", ap, key, schema),
      onDispose: (fn: () => void | Promise<void>) => void ap.disposers.push(fn),
      step: (label: string) => startStep((e) => this.hooks.step.call(e), ap.id, label),
    });
  }

  /** One owner per name while the owner is active; a second claimant is reported and ignored. */
  private register<V>(registry: Map<string, { plugin: string; value: V }>, what: string, ap: ActivePlugin, name: string, value: V): void {
    const had = registry.get(name);
    if (had && had.plugin !== ap.id) {
      const verb = what === "service" ? "provided" : "contributed";
      this.report({ plugin: ap.id, path: `${what === "service" ? "provide" : "contributeConfig"}(${JSON.stringify(name)})`, message: `${what} "${name}" is already ${verb} by plugin ${had.plugin}; this one is ignored`, severity: "error" });
      return;
    }
    const entry = { plugin: ap.id, value };
    registry.set(name, entry);
    ap.disposers.push(() => {
      if (registry.get(name) === entry) registry.delete(name);
    });
  }
}

function activationProblem(id: string, lp: LoadedPlugin, e: unknown): ProblemReport {
  return { plugin: id, file: lp.components.main?.file ?? lp.manifestFile, path: lp.components.main ? "/main" : undefined, message: `activating plugin failed: ${errorMessage(e)}`, severity: "error" };
}
