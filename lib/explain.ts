/**
 * `explain(tool)`: why a tool is loaded, deferred, excluded or unknown — the rule, the plugin, the file.
 * A pure reading of a sealed pool (host.explain; the permissions plugin adds the allow rules that name it).
 */
import type { Exclusion, PoolSnapshot, Tool } from "../core/types.ts";

/** The exclusion rules of the name phase (core/build/names.ts): explain lists them as the names' losers. */
export const NAME_RULES: ReadonlySet<string> = new Set(["name: built-in", "name: mcp server", "conflict"]);

export interface Explanation {
  name: string;
  status: "loaded" | "deferred" | "excluded" | "unknown";
  reason: string;
  rule: string | null;
  plugin: string | null;
  file: string | null;
  /** Where the tool itself comes from (when it exists). */
  tool?: { origin: string; plugin: string; file?: string; server?: string; sourceName?: string };
  notes?: string[];
  /** Allow rules naming the tool: where each came from and whether it applies (plugin-scoped, session-only, refused). */
  grants?: Array<{ rule: string; plugin: string; file: string | null; path: string; applies: string }>;
  /** Other exclusions of the same name (e.g. conflict losers). */
  also?: Array<{ reason: string; rule: string | null; plugin: string | null; file: string | null }>;
  /** Who owns the name (a built-in, an MCP server, the only tool so named); null when it is contested and no one serves it. */
  owner?: { plugin: string; origin: string; file: string | null; server: string | null; why: string } | null;
  /** Tools that wanted this name and were refused (built-in or MCP names, conflicts). */
  lost?: Array<{ plugin: string | null; file: string | null; rule: string | null; reason: string }>;
}

function ownership(tool: Tool | undefined, exclusions: readonly Exclusion[]): Pick<Explanation, "owner" | "lost"> {
  const lost = exclusions.filter((x) => NAME_RULES.has(x.rule ?? "")).map((x) => ({ plugin: x.toolPlugin ?? null, file: x.file ?? null, rule: x.rule ?? null, reason: x.reason }));
  if (!tool) {
    if (!lost.length) return {};
    const held = exclusions.find((x) => !NAME_RULES.has(x.rule ?? "") && x.toolPlugin);
    return { owner: held ? { plugin: held.toolPlugin!, origin: "unknown", file: null, server: null, why: `owns the name, but is excluded: ${held.reason}` } : null, lost };
  }
  const why = tool.name.startsWith("mcp__") ? `a tool of MCP server ${tool.server ?? "?"}: mcp__<server>__* names belong to their server` : tool.origin === "builtin" ? "a built-in tool: its name cannot be taken" : lost.length ? "chosen among tools of the same name" : "the only tool with this name";
  return { owner: { plugin: tool.plugin, origin: tool.origin, file: tool.file ?? null, server: tool.server ?? null, why }, ...(lost.length ? { lost } : {}) };
}

export function explainTool(pool: PoolSnapshot, name: string): Explanation {
  const tool = pool.byName.get(name);
  const exclusions = pool.excluded.filter((x) => x.name === name);
  if (tool) {
    const d = pool.deferral.get(name);
    return {
      name,
      status: d?.defer ? "deferred" : "loaded",
      reason: d?.reason ?? "loaded",
      rule: d?.rule ?? null,
      plugin: d?.plugin ?? null,
      file: d?.file ?? null,
      tool: { origin: tool.origin, plugin: tool.plugin, file: tool.file, server: tool.server, sourceName: tool.sourceName },
      notes: tool.notes?.length ? tool.notes : undefined,
      also: exclusions.length ? exclusions.map((x) => ({ reason: x.reason, rule: x.rule ?? null, plugin: x.plugin ?? null, file: x.file ?? null })) : undefined,
      ...ownership(tool, exclusions),
    };
  }
  if (exclusions.length) {
    const [x, ...rest] = exclusions;
    return {
      name,
      status: "excluded",
      reason: x!.reason,
      rule: x!.rule ?? null,
      plugin: x!.plugin ?? null,
      file: x!.file ?? null,
      tool: x!.toolPlugin ? { origin: "unknown", plugin: x!.toolPlugin } : undefined,
      also: rest.length ? rest.map((r) => ({ reason: r.reason, rule: r.rule ?? null, plugin: r.plugin ?? null, file: r.file ?? null })) : undefined,
      ...ownership(undefined, exclusions),
    };
  }
  const lower = name.toLowerCase();
  const similar = [...pool.byName.keys()].filter((n) => n.toLowerCase().includes(lower) || lower.includes(n.toLowerCase())).slice(0, 5);
  return {
    name,
    status: "unknown",
    reason: `no plugin provides a tool named "${name}"${similar.length ? `; similar: ${similar.join(", ")}` : ""}`,
    rule: null,
    plugin: null,
    file: null,
  };
}
