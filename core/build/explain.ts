/**
 * `explain(tool)`: why a tool is loaded, deferred, excluded or unknown — the rule, the plugin, the file.
 */
import type { PoolSnapshot } from "../types.ts";

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
  /** Other exclusions of the same name (e.g. conflict losers). */
  also?: Array<{ reason: string; rule: string | null; plugin: string | null; file: string | null }>;
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
