/**
 * Plugin code: inline plugin records, code stamps that tell when a plugin's code changed, and importing
 * `main` modules (lib/module-import.ts: bundled plugins cached; others fresh so edited code really runs).
 */
import type { LoadedPlugin, PluginDefinition } from "../types.ts";
import { defaultDataDir, pluginVars } from "../../lib/plugin-paths.ts";
import { isPluginDefinition } from "../plugin.ts";
import { codeStamp } from "../../lib/code-stamp.ts";
import { importCached } from "../../lib/module-import.ts";

export function inlineRecord(def: PluginDefinition, cwd: string): LoadedPlugin {
  const dataDir = defaultDataDir(def.name);
  return {
    id: def.name,
    kind: "inline",
    root: cwd,
    source: { kind: "inline", path: "" },
    manifest: { name: def.name },
    dataDir,
    env: pluginVars(cwd, dataDir, cwd),
    rulesRoot: cwd,
    components: { hooks: [], mcpServers: [], lspServers: [], tools: [] },
    problems: [],
    failed: false,
    order: 0,
  };
}

export function inlineDefs(defs: PluginDefinition[] | undefined): Map<string, PluginDefinition> {
  return new Map((defs ?? []).map((d) => [d.name, d]));
}

/** A stamp that changes when a plugin's code changes: bundled plugins never reload. */
export function stampOf(lp: LoadedPlugin): string {
  if (lp.kind === "inline") return "inline";
  if (lp.source.kind === "bundled") return `bundled:${lp.components.main?.file}`;
  return codeStamp(lp.root, lp.components.main?.file ?? "");
}

export async function importPlugin(lp: LoadedPlugin): Promise<PluginDefinition | undefined> {
  const file = lp.components.main!.file;
  const bundled = lp.source.kind === "bundled";
  // Plugins keep jiti's default interop (`import x from "a-cjs-package"` works as in a bundler). Core itself is
  // loaded without it by the entry points (index.mjs, bin/): its per-call path reads no interop Proxy.
  // Not bundled: every module of the plugin's directory evaluated afresh, whatever its extension (lib/fresh-import.ts).
  const mod = (await importCached(file, { moduleCache: bundled, interopDefault: true }, bundled ? undefined : lp.root)) as Record<string, unknown>;
  const cand = [mod?.default, mod, ...Object.values(mod ?? {})];
  for (const c of cand) {
    if (isPluginDefinition(c)) return c;
    if (typeof c === "function" && c.length <= 1) {
      const r = (c as (o?: unknown) => unknown)(undefined);
      if (isPluginDefinition(r)) return r;
    }
  }
  return undefined;
}
