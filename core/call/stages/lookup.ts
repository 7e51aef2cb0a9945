/** Stage lookup: pool name → alias → build.lookup; a deferred tool must be loaded by ToolSearch first. */
import { errorMessage } from "../../errors.ts";
import type { ExecuteOutcome, Exclusion, Tool } from "../../types.ts";
import type { Call } from "../call.ts";
import { refuse } from "../outcome.ts";

export function lookup(call: Call): ExecuteOutcome | undefined {
  const { pool, hooks } = call.build;
  const name = call.requestedName;
  let tool: Tool | undefined = pool.byName.get(name) ?? [...pool.byName.values()].find((t) => t.aliases?.includes(name));
  if (!tool) {
    try {
      tool = hooks.lookup.call(name, call);
    } catch (e) {
      return refuse(call, "unknown-tool", errorMessage(e));
    }
  }
  if (!tool) {
    call.mark("lookup", "unknown");
    const excluded = pool.excluded.find((x) => x.name === name);
    if (excluded) return refuse(call, "denied", unavailable(name, excluded), { behavior: "deny", reason: excluded.reason, rule: excluded.rule, plugin: excluded.plugin, file: excluded.file });
    return refuse(call, "unknown-tool", `No such tool "${name}".${didYouMean(name, [...pool.byName.keys()])} Available tools: ${pool.tools.map((t) => t.name).join(", ")}.`);
  }
  const deferred = pool.deferral.get(tool.name)?.defer === true;
  if (deferred && !call.session.isLoaded(tool.name)) {
    if (!call.opts.autoLoadDeferred) {
      call.mark("lookup", "deferred-not-loaded");
      return refuse(call, "unknown-tool", `Tool "${tool.name}" is deferred and its schema is not loaded yet. Call ToolSearch with {"query": "select:${tool.name}"} first, then call it again.`);
    }
    call.session.load([tool.name]);
  }
  call.tool = tool;
  call.mark("lookup", "found", { tool: tool.name, origin: tool.origin, plugin: tool.plugin, deferred });
  return undefined;
}

function unavailable(name: string, x: Exclusion): string {
  const where = x.rule ? ` (rule ${x.rule}${x.plugin ? `, plugin ${x.plugin}` : ""}${x.file ? `, ${x.file}` : ""})` : "";
  return `Tool "${name}" is not available: ${x.reason}${where}.`;
}

function didYouMean(name: string, names: string[]): string {
  const lower = name.toLowerCase();
  const hit = names.find((n) => n.toLowerCase() === lower) ?? names.find((n) => n.toLowerCase().endsWith(`__${lower}`));
  return hit ? ` Did you mean "${hit}"?` : "";
}
