/** Handler lookup for one Build: the handlers per event, and which of them match a call. */
import type { BuildView, CallState, ProblemReport } from "../../core/index.ts";
import { collectHandlers, TOOL_EVENTS, type Handler } from "./handlers.ts";
import { hookPolicy } from "./policy.ts";

/** Claude Code's hook-`if` test of one rule against a call (index.ts passes permissions' matchesHookIf). */
export type HookIf = (rule: string, call: { toolName: string; input: Record<string, unknown> }, ctx: { cwd: string; rulesRoot?: string }) => boolean;

export interface Registry {
  /** The handlers of `event` in composition order (empty when none). */
  list(event: string): Handler[];
  /** Some handler is async (its results are delivered with a later call). */
  hasAsync: boolean;
  problems: ProblemReport[];
  /** The handlers of `event` whose matcher and `if` match this call. */
  matching(event: string, toolName: string, call: CallState): Handler[];
}

export function buildRegistry(build: BuildView, hookIf: HookIf): Registry {
  const problems: ProblemReport[] = [];
  // disableAllHooks / allowManagedHooksOnly (policy.ts): the sources whose hooks are off load no handler.
  const off = hookPolicy(build.plugins);
  const byEvent = collectHandlers(build.plugins.filter((p) => !off(p.id)), problems);
  return {
    list: (event) => byEvent.get(event) ?? [],
    hasAsync: [...byEvent.values()].some((l) => l.some((h) => h.async)),
    problems,
    matching: (event, toolName, call) => (byEvent.get(event) ?? []).filter((h) => h.matches(toolName) && ifMatches(hookIf, h, toolName, call)),
  };
}

/** Claude Code's hook-`if` semantics (docs/hooks.md): matchesHookIf, not the permission matcher. */
function ifMatches(hookIf: HookIf, h: Handler, toolName: string, call: CallState): boolean {
  if (!h.if) return true;
  if (!TOOL_EVENTS.has(h.event)) return false;
  try {
    return hookIf(h.if, { toolName, input: call.input }, { cwd: call.cwd, rulesRoot: h.rulesRoot });
  } catch {
    return true; // an `if` that cannot be evaluated fails open: the hook runs (formats §3.3)
  }
}
