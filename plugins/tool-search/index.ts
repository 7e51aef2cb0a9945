/**
 * tool-search: deferred tools and the ToolSearch tool.
 *
 *  - build.collect: contributes ToolSearch (origin builtin) unless `toolSearch.enabled: false`.
 *  - build.sort (pass-through): measures deferrable definitions for `auto` mode before the defer phase.
 *  - build.defer: the explainable deferral policy (policy.ts), at DEFER_STAGE_ALWAYS_LOAD and DEFER_STAGE_POLICY.
 *  - build.seal: registers the generation's deferred tools (short-name table only); the ranked index is built
 *    on the first search and reused across generations whose deferred tools did not change (search.ts).
 *  - build.lookup: an unambiguous short MCP tool name (`get_issue`) resolves to its full name.
 * Sessions live on the host, so tools a session loaded stay loaded across rebuilds while they exist.
 */
import { definePlugin, DEFER_STAGE_ALWAYS_LOAD, DEFER_STAGE_POLICY, PERMISSION_STAGE_TOOL, type HostView, type PoolSnapshot, type Tool } from "../../core/index.ts";
import { DeferralPolicy, PLUGIN_NAME, readSettings } from "./policy.ts";
import { indexFor } from "./search.ts";
import { toolSearchTool, TOOL_SEARCH_NAME } from "./tool.ts";
import { providerOf, trustViewOf, type UsageSnapshot } from "./usage.ts";
import { USAGE_REPORT_SERVICE, usageReportService } from "./usage-report.ts";

export { parseQuery, search, indexFor, buildDeferredIndex, type SearchOutcome, type ParsedQuery } from "./search.ts";
export { ToolIndex, DEFAULT_OPTIONS, PLAIN_BM25, type RankOptions, type SearchDoc, type Hit } from "./rank.ts";
export * from "./adapters.ts";
export { DeferralPolicy, readSettings, PLUGIN_NAME } from "./policy.ts";
export { TOOL_SEARCH_NAME, TOOL_SEARCH_DEFINITION, toolSearchTool } from "./tool.ts";
export { MemoryUsage, sessionUsageProvider, suggest, USAGE_SERVICE, type UsageProvider, type UsageSnapshot, type UsageSuggestion } from "./usage.ts";
export { USAGE_REPORT_SERVICE, type UsageReport, type UsageReportService } from "./usage-report.ts";

export default definePlugin({
  name: PLUGIN_NAME,
  apply(ctx) {
    ctx.contributeConfig("toolSearch", { type: "object" });
    let host: HostView | undefined = ctx.host;
    ctx.onDispose(() => {
      host = undefined;
    });
    const def = toolSearchTool(() => host);
    const service = <T>(name: string) => host?.service<T>(name);
    let current: DeferralPolicy | undefined;
    ctx.provide(USAGE_REPORT_SERVICE, usageReportService(() => host, () => current, () => providerOf(service)));
    ctx.hooks.build.tap(PLUGIN_NAME, (build) => {
      const settings = readSettings(build.config, build.plugins);
      const policy = new DeferralPolicy(settings);
      policy.plugins = build.plugins;
      policy.trust = trustViewOf(service);
      current = policy;
      let usage: UsageSnapshot | undefined;

      build.hooks.collect.tapPromise(PLUGIN_NAME, async (collector) => {
        for (const message of settings.problems) collector.problem({ plugin: PLUGIN_NAME, file: settings.file, path: "/toolSearch", message, severity: "warning" });
        if (settings.mode === "off") return;
        if (settings.usage.policy === "apply") {
          const provider = providerOf(service);
          if (!provider) collector.problem({ plugin: PLUGIN_NAME, file: settings.file, path: "/toolSearch/usage/policy", message: 'toolSearch.usage.policy is "apply" but no session store provides usage counts (the sessions plugin\'s "sessions.usage"): nothing is promoted or deferred by usage', severity: "warning" });
          else usage = await provider.snapshot().catch((e: Error) => void collector.problem({ plugin: PLUGIN_NAME, file: settings.file, path: "/toolSearch/usage", message: `usage counts could not be read: ${e.message}; deferral ignores usage this build`, severity: "warning" }));
        }
        const tool: Tool = { ...def, origin: "builtin", plugin: PLUGIN_NAME, file: ctx.plugin.manifestFile };
        collector.add(tool);
      });

      // Sees the whole list before the defer phase: measure for `auto`, and offer ToolSearch only when
      // this policy defers at least one tool (nothing to search → no ToolSearch, no tokens spent on it).
      build.hooks.sort.tap(PLUGIN_NAME, (tools) => {
        policy.planUsage(tools, usage);
        policy.measure(tools);
        const isSelf = (t: Tool) => t.name === TOOL_SEARCH_NAME && t.plugin === PLUGIN_NAME;
        if (tools.some((t) => !isSelf(t) && !policy.alwaysLoad(t) && policy.policy(t)?.defer === true)) return tools;
        return tools.filter((t) => !isSelf(t));
      });

      build.hooks.defer.tap({ name: PLUGIN_NAME, stage: DEFER_STAGE_ALWAYS_LOAD }, (tool) => policy.alwaysLoad(tool));
      build.hooks.defer.tap({ name: PLUGIN_NAME, stage: DEFER_STAGE_POLICY }, (tool) => policy.policy(tool));

      let sealed: PoolSnapshot | undefined;
      build.hooks.seal.tap(PLUGIN_NAME, (pool) => {
        sealed = pool;
        indexFor(pool);
      });

      // ToolSearch only reads the pool and loads schemas: allowed without a prompt. Runs after explicit
      // rules (an ask rule still asks); deny rules run in build.deny first ("denying ToolSearch disables it").
      build.hooks.permission.tap({ name: PLUGIN_NAME, stage: PERMISSION_STAGE_TOOL }, (call) =>
        call.tool?.name === TOOL_SEARCH_NAME && call.tool.plugin === PLUGIN_NAME
          ? { behavior: "allow", reason: "ToolSearch only loads tool definitions", rule: "toolSearch: self", plugin: PLUGIN_NAME }
          : undefined,
      );

      build.hooks.lookup.tap(PLUGIN_NAME, (name) => {
        const pool = sealed;
        if (!pool || name === TOOL_SEARCH_NAME) return undefined;
        const full = indexFor(pool).byShort.get(name);
        return full?.length === 1 ? pool.byName.get(full[0]!) : undefined;
      });
    });
  },
});
