/** Reading one component map of a manifest or settings file (core's manifest reader, settings sources): hook events, MCP or LSP servers. */
import type { ProblemReport } from "../core/errors.ts";
import type { Component, HookEventMap } from "../core/types.ts";
import { substitute } from "./text.ts";
import { setKey } from "./null-proto.ts";

export interface ReadContext {
  plugin: string;
  vars: Record<string, string>;
  problems: ProblemReport[];
}

/**
 * An event → matcher groups map, kept as written (variables substituted). Which events exist and what a
 * group looks like is the command-hooks plugin's knowledge: it checks every hooks component in its
 * `validateManifest` tap (unknown events warn and are dropped, malformed groups are errors).
 */
export function readHookMap(map: unknown, file: string, base: string, ctx: ReadContext): Component<HookEventMap>[] {
  if (!map || typeof map !== "object" || Array.isArray(map)) {
    ctx.problems.push({ plugin: ctx.plugin, file, path: base || "/", message: "hooks must be an object mapping event names to matcher groups", severity: "error" });
    return [];
  }
  const events: HookEventMap = {};
  for (const [event, groups] of Object.entries(map as Record<string, unknown>)) if (event !== "description") setKey(events, event, substitute(groups, ctx.vars));
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
    setKey(ok, name, substitute(cfg, ctx.vars));
  }
  return [{ file, jsonPath: base || "/", value: ok }];
}
