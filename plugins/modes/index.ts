/**
 * Mode and tool-set filtering as a pool phase: `plan` keeps read-only tools; a named tool set from
 * config (`toolSets: { review: ["Read", "Grep"] }`, `toolSet: "review"`) keeps only its tools; `dontAsk`
 * hides tools every call of which it would refuse. ToolSearch always stays, so deferred tools remain
 * reachable. Filters fail closed (check.ts): an unknown set, mode or member is an error that keeps the
 * last good pool; on a first build an unknown set or mode serves no tools rather than all of them.
 */
import { definePlugin, POOL_STAGE_MODE, type BuildView, type Exclusion, type PoolContext, type Tool } from "../../core/index.ts";
import { alwaysNeedsApproval, grantCheck } from "../../lib/approval.ts";
import { checkFilters, configFile, PLUGIN_NAME, type FilterCheck } from "./check.ts";

/** The note `explain` shows for a tool `toolhost serve` hides from clients that cannot be asked. */
export const SERVE_NOTE = "hidden from MCP clients that cannot be asked (no elicitation capability) when served by toolhost serve";

export default definePlugin({
  name: PLUGIN_NAME,
  apply(ctx) {
    ctx.contributeConfig("toolSets", { type: "object", additionalProperties: { type: "array", items: { type: "string" } } });
    ctx.contributeConfig("toolSet", { type: "string" });
    ctx.hooks.build.tap(PLUGIN_NAME, (build) => {
      let checked: FilterCheck | undefined;
      const check = (pc: PoolContext): FilterCheck => {
        if (checked) return checked;
        checked = checkFilters(build.config, build.mode, build.plugins, pc.collectedNames ?? new Set());
        for (const p of checked.problems) pc.problem?.(p);
        return checked;
      };
      build.hooks.exclude.tap({ name: PLUGIN_NAME, stage: POOL_STAGE_MODE }, (tool, pc) => filter(build, check(pc), tool));
      build.hooks.sort.tap(PLUGIN_NAME, (tools, pc) => (check(pc), tools));
    });
  },
});

function filter(build: BuildView, c: FilterCheck, tool: Tool): Exclusion | undefined {
  if (c.closed) return { name: tool.name, reason: c.closed.reason, rule: c.closed.rule, plugin: PLUGIN_NAME, file: configFile(build.plugins).file };
  // A tool whose read-only-ness depends on its input (Bash) stays; the permission stage decides per call.
  if (build.mode === "plan" && typeof tool.isReadOnly !== "function" && !tool.isReadOnly && tool.name !== "ToolSearch") {
    return { name: tool.name, reason: "plan mode keeps read-only tools only", rule: "mode: plan", plugin: PLUGIN_NAME };
  }
  const setName = build.config.toolSet;
  const set = setName ? build.config.toolSets?.[setName] : undefined;
  if (set && tool.name !== "ToolSearch" && !set.some((p) => p === tool.name || (p.endsWith("*") && tool.name.startsWith(p.slice(0, -1))))) {
    return { name: tool.name, reason: `not in the active tool set "${setName}"`, rule: `toolSet: ${setName}`, plugin: PLUGIN_NAME, file: configFile(build.plugins).file };
  }
  const why = alwaysNeedsApproval(tool, { plugins: build.plugins, mode: build.mode, hooksAnswer: build.mode !== "dontAsk", mayGrant: grantCheck(build.host, build) });
  if (why && build.mode === "dontAsk") return { name: tool.name, reason: `dontAsk mode refuses every call that is not pre-approved, and nothing pre-approves this tool: ${why}`, rule: "mode: dontAsk", plugin: PLUGIN_NAME };
  if (why && !tool.notes?.some((n) => n.startsWith(SERVE_NOTE))) tool.notes = [...(tool.notes ?? []), `${SERVE_NOTE}: ${why}`];
  return undefined;
}
