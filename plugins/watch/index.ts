/**
 * Hot reload: chokidar watches everything a generation was built from and calls
 * `host.invalidate(reason)` — nothing else. The host debounces, rebuilds through the one rebuild
 * path and swaps atomically (or keeps the last good generation).
 *
 * What is watched (plan.ts, recomputed every generation): every plugin source the host discovered
 * (a plugin directory recursively, a manifest file by itself); for a source that does not exist yet,
 * its nearest existing ancestor; the host's `watchedFiles()` (config, .claude/settings*.json,
 * .mcp.json) and AGENTS.md files anywhere in the project. The watchers, storm control and trailing
 * re-check are watcher.ts. New targets are added in `host.discover` and awaited (ready) before
 * manifests are read, so no edit can slip between reading a file and watching it; targets are dropped
 * only after a successful rebuild (a failed one keeps watching what the last good generation used).
 *
 * Enabled by the host option `watch: true` (`toolhost watch`, `toolhost serve`).
 */
import path from "node:path";
import { definePlugin, DISCOVER_STAGE_WATCH, type PluginSource } from "../../core/index.ts";
import { plan } from "./plan.ts";
import { PLUGIN_NAME, Watcher } from "./watcher.ts";

export default definePlugin({
  name: PLUGIN_NAME,
  async apply(ctx) {
    if (!ctx.host.options.watch) return;
    const host = ctx.host;
    const cwd = path.resolve(host.cwd);
    const watcher = new Watcher(host, cwd);
    const refused = new Set<string>();
    const refuse = (abs: string) => {
      if (!refused.has(abs)) host.log.warn(`[${PLUGIN_NAME}] not watching plugin directory ${abs}: it contains the project or a home directory`);
      refused.add(abs);
    };
    const watchFor = (sources: PluginSource[], prune: boolean) =>
      watcher.isClosed ? Promise.resolve() : watcher.apply(plan({ cwd, sources, plugins: host.plugins(), watchedFiles: host.watchedFiles?.() ?? [], refuse }), prune);
    let lastSources: PluginSource[] = [];
    ctx.hooks.discover.tapPromise({ name: PLUGIN_NAME, stage: DISCOVER_STAGE_WATCH }, async (sources: PluginSource[]) => {
      lastSources = sources;
      await watchFor(sources, false);
      return sources;
    });
    ctx.hooks.rebuildDone.tap(PLUGIN_NAME, () => {
      void watchFor(lastSources, true).catch((e) => host.log.warn(`[${PLUGIN_NAME}] ${e instanceof Error ? e.message : String(e)}`));
    });
    // Activated during the first rebuild, after discovery: watch what it found before the first pool is served.
    lastSources = [...(host.sources?.() ?? [])];
    await watchFor(lastSources, false);
    ctx.onDispose(() => watcher.close());
  },
});
