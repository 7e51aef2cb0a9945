/**
 * The public plugin API. A plugin is `{ name, apply(ctx) }`; `apply` runs once per plugin instance.
 * It taps long-lived host hooks through `ctx.hooks` and per-generation build hooks via
 * `ctx.hooks.build.tap(build => build.hooks.collect.tap(...))`. Every tap is recorded under the
 * plugin's id. When the plugin is removed or reloaded, its host taps go silent and it is simply
 * not applied to the next Build.
 */
import type { ProblemReport } from "./errors.ts";
import type { HostHooks, PluginSource } from "./hooks.ts";
import type { LoadedPlugin } from "./manifest.ts";
import type { PoolSnapshot } from "./pool.ts";
import type { HostConfig } from "./config.ts";
import type { Session } from "./session.ts";

export interface Logger {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
  debug(msg: string): void;
}

/** What any plugin can see of the host. */
export interface HostView {
  readonly cwd: string;
  readonly mode: string;
  readonly config: HostConfig;
  /** Every loaded plugin of the current generation, including settings pseudo-plugins. */
  plugins(): readonly LoadedPlugin[];
  /** The current (last good) pool. */
  pool(): PoolSnapshot | undefined;
  /** Schedule a rebuild through the one rebuild path. */
  invalidate(reason: string): void;
  /** Config and settings files (existing or searched for) whose change should trigger a rebuild. */
  watchedFiles?(): readonly string[];
  /** Plugin sources the last rebuild discovered (bundled manifests, config `plugins`, --plugin-dir), loaded or not. */
  sources?(): readonly PluginSource[];
  session(id?: string): Session;
  /**
   * A live object another plugin provided under `name` (`ctx.provide`), e.g. the MCP plugin's
   * connections for `toolhost serve`: one plugin reaches another's state without importing its files.
   * Undefined when no active plugin provides it.
   */
  service<T = unknown>(name: string): T | undefined;
  readonly log: Logger;
  /** Options the embedding program passed to createHost (for plugins that read their own keys). */
  readonly options: Readonly<Record<string, unknown>>;
}

export interface PluginContext {
  /** The plugin id every tap is recorded under. */
  readonly id: string;
  /** The plugin's manifest record (inline plugins get a synthetic one). */
  readonly plugin: LoadedPlugin;
  readonly host: HostView;
  readonly hooks: HostHooks;
  /** Report a problem attributed to this plugin. */
  report(p: Omit<ProblemReport, "plugin">): void;
  /**
   * Offer a live object to other plugins under `name` (read with `host.service(name)`); withdrawn when
   * this plugin is disposed. A name another active plugin already provides is refused (reported).
   */
  provide(name: string, value: unknown): void;
  /** Run when the plugin is removed or reloaded, or the host closes. */
  onDispose(fn: () => void | Promise<void>): void;
}

export interface PluginDefinition {
  name: string;
  apply(ctx: PluginContext): void | Promise<void>;
}

export const PLUGIN_MARK = Symbol.for("toolhost.plugin");

export function definePlugin(def: PluginDefinition): PluginDefinition {
  Object.defineProperty(def, PLUGIN_MARK, { value: true, enumerable: false });
  return def;
}

export function isPluginDefinition(x: unknown): x is PluginDefinition {
  return !!x && typeof x === "object" && typeof (x as PluginDefinition).apply === "function" && typeof (x as PluginDefinition).name === "string";
}
