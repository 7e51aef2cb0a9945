/**
 * The public plugin API. A plugin is `{ name, apply(ctx) }`; `apply` runs once per plugin instance.
 * It taps long-lived host hooks through `ctx.hooks` and per-generation build hooks via
 * `ctx.hooks.build.tap(build => build.hooks.collect.tap(...))`. Every tap is recorded under the
 * plugin's id. When the plugin is removed or reloaded, its host taps go silent and it is simply
 * not applied to the next Build. (Types: core/types/contract.ts.)
 */
import type { PluginDefinition } from "./types.ts";

export const PLUGIN_MARK = Symbol.for("toolhost.plugin");

export function definePlugin(def: PluginDefinition): PluginDefinition {
  Object.defineProperty(def, PLUGIN_MARK, { value: true, enumerable: false });
  return def;
}

export function isPluginDefinition(x: unknown): x is PluginDefinition {
  return !!x && typeof x === "object" && typeof (x as PluginDefinition).apply === "function" && typeof (x as PluginDefinition).name === "string";
}
