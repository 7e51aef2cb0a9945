/**
 * Mode and tool-set filtering as a pool phase: `plan` keeps read-only tools; a named tool set from
 * config (`toolSets: { review: ["Read", "Grep"] }`, `toolSet: "review"`) keeps only its tools.
 * ToolSearch always stays, so deferred tools remain reachable.
 */
import { definePlugin, POOL_STAGE_MODE } from "../../core/index.ts";

const PLUGIN_NAME = "modes";

export default definePlugin({
  name: PLUGIN_NAME,
  apply(ctx) {
    ctx.contributeConfig("toolSets", { type: "object", additionalProperties: { type: "array", items: { type: "string" } } });
    ctx.contributeConfig("toolSet", { type: "string" });
    ctx.hooks.build.tap(PLUGIN_NAME, (build) => {
      const cfg = build.config;
      const setName = cfg.toolSet;
      const set = setName ? cfg.toolSets?.[setName] : undefined;
      build.hooks.exclude.tap({ name: PLUGIN_NAME, stage: POOL_STAGE_MODE }, (tool) => {
        // A tool whose read-only-ness depends on its input (Bash) stays; the permission stage decides per call.
        if (build.mode === "plan" && typeof tool.isReadOnly !== "function" && !tool.isReadOnly && tool.name !== "ToolSearch") {
          return { name: tool.name, reason: "plan mode keeps read-only tools only", rule: "mode: plan", plugin: PLUGIN_NAME };
        }
        if (setName && !set) return undefined;
        if (set && tool.name !== "ToolSearch" && !set.some((p) => p === tool.name || (p.endsWith("*") && tool.name.startsWith(p.slice(0, -1))))) {
          return { name: tool.name, reason: `not in the active tool set "${setName}"`, rule: `toolSet: ${setName}`, plugin: PLUGIN_NAME, file: undefined };
        }
        return undefined;
      });
    });
  },
});
