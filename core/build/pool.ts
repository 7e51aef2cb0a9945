/**
 * The sealed, immutable pool one Build serves, and the default rules core applies between hooks:
 * the conflict rule, the base order and the fingerprint. Plugins refine them through build hooks.
 */
import { createHash } from "node:crypto";
import type { PoolDiff, PoolSnapshot, Tool, ToolOrigin } from "../types.ts";
import { stableStringify } from "../../lib/json.ts";

const ORIGIN_RANK: Record<ToolOrigin, number> = { builtin: 0, plugin: 1, lsp: 2, mcp: 3, remote: 4 };

/**
 * Default conflict rule: origin precedence builtin > plugin > lsp > mcp > remote, then the plugin id
 * in code-point order. Never depends on discovery order, so the fingerprint is stable.
 */
export function defaultConflictWinner(candidates: Tool[]): Tool {
  return [...candidates].sort(compareTools)[0]!;
}

/** Base order: built-ins as one contiguous prefix, then by origin, plugin id and name. */
export function compareTools(a: Tool, b: Tool): number {
  return (
    ORIGIN_RANK[a.origin] - ORIGIN_RANK[b.origin] ||
    cmp(a.origin === "builtin" ? "" : a.plugin, b.origin === "builtin" ? "" : b.plugin) ||
    cmp(a.name, b.name) ||
    cmp(a.plugin, b.plugin)
  );
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function fingerprintOf(eager: readonly Tool[], deferred: readonly Tool[]): string {
  const h = createHash("sha256");
  for (const t of eager) h.update(stableStringify({ n: t.name, d: t.description, s: t.inputSchema }) + "\n");
  h.update("--deferred--\n");
  for (const t of deferred) h.update(t.name + "\n");
  return h.digest("hex");
}

export function toolSignature(t: Tool): string {
  return stableStringify({ d: t.description, s: t.inputSchema, o: t.outputSchema });
}

export function diffPools(prev: PoolSnapshot | undefined, next: PoolSnapshot): PoolDiff {
  const before = prev?.byName ?? new Map<string, Tool>();
  const added: string[] = [];
  const removed: string[] = [];
  const changed: string[] = [];
  for (const [n, t] of next.byName) {
    const old = before.get(n);
    if (!old) added.push(n);
    else if (toolSignature(old) !== toolSignature(t) || isDeferred(prev!, n) !== isDeferred(next, n)) changed.push(n);
  }
  for (const n of before.keys()) if (!next.byName.has(n)) removed.push(n);
  return { added, removed, changed, fingerprintChanged: prev?.fingerprint !== next.fingerprint };
}

function isDeferred(p: PoolSnapshot, name: string): boolean {
  return p.deferral.get(name)?.defer === true;
}
