/** Reading one component map of a manifest or settings file: hook events, MCP or LSP servers. */
import type { ProblemReport } from "../errors.ts";
import type { Component, HookEventMap } from "../types.ts";
import { suggest } from "../../lib/text.ts";
import { substitute } from "./paths.ts";
import { ajvProblems, hookGroupsSchema, KNOWN_HOOK_EVENTS, validatorFor } from "./schema.ts";

export interface ReadContext {
  plugin: string;
  vars: Record<string, string>;
  problems: ProblemReport[];
}

/** An event → matcher groups map; unknown events warn, malformed groups are errors. */
export function readHookMap(map: unknown, file: string, base: string, ctx: ReadContext): Component<HookEventMap>[] {
  if (!map || typeof map !== "object" || Array.isArray(map)) {
    ctx.problems.push({ plugin: ctx.plugin, file, path: base || "/", message: "hooks must be an object mapping event names to matcher groups", severity: "error" });
    return [];
  }
  const events: HookEventMap = {};
  const validate = validatorFor(hookGroupsSchema);
  for (const [event, groups] of Object.entries(map as Record<string, unknown>)) {
    if (event === "description") continue;
    const jp = `${base}/${event}`;
    if (!KNOWN_HOOK_EVENTS.has(event)) {
      ctx.problems.push({ plugin: ctx.plugin, file, path: jp, message: `unknown hook event "${event}" is ignored${suggest(event, KNOWN_HOOK_EVENTS)}`, severity: "warning" });
      continue;
    }
    if (!validate(groups)) {
      ctx.problems.push(...ajvProblems(validate.errors, ctx.plugin, file, jp));
      continue;
    }
    events[event] = substitute(groups as unknown[], ctx.vars);
  }
  return [{ file, jsonPath: base || "/", value: events }];
}

/** A server name → config map (mcpServers, lspServers); a config that is not an object is an error. */
export function readServerMap(key: string, map: unknown, file: string, base: string, ctx: ReadContext): Component<Record<string, unknown>>[] {
  if (!map || typeof map !== "object" || Array.isArray(map)) {
    ctx.problems.push({ plugin: ctx.plugin, file, path: base || "/", message: `${key} must be an object mapping server names to configs`, severity: "error" });
    return [];
  }
  const ok: Record<string, unknown> = {};
  for (const [name, cfg] of Object.entries(map as Record<string, unknown>)) {
    if (!cfg || typeof cfg !== "object" || Array.isArray(cfg)) {
      ctx.problems.push({ plugin: ctx.plugin, file, path: `${base}/${name}`, message: `server config must be an object`, severity: "error" });
      continue;
    }
    ok[name] = substitute(cfg, ctx.vars);
  }
  return [{ file, jsonPath: base || "/", value: ok }];
}
