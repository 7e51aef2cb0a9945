/**
 * MCP tool naming: `mcp__<server>__<tool>`, plugin servers `mcp__plugin_<plugin>_<server>__<tool>`
 * (../shared/formats.md §5.5), sanitised to `[A-Za-z0-9_-]` and kept within 64 characters (the
 * providers' limit) without collisions. Shortening is deterministic: a truncated part plus a short
 * hash of the original, so the same configuration always yields the same names.
 */
import { createHash } from "node:crypto";

export const MAX_TOOL_NAME = 64;
/**
 * Longest server segment kept as-is (decided per server, never per tool, so `mcp__<server>__*` rules
 * match all of a server's tools); longer ones are truncated + hashed so tool names keep room.
 */
const MAX_SERVER_SEGMENT = 40;

export function sanitize(s: string): string {
  return s.replace(/[^A-Za-z0-9_-]/g, "_");
}

export function shortHash(s: string, n = 6): string {
  return createHash("sha256").update(s).digest("hex").slice(0, n);
}

/** The server segment of a tool name: `memory`, or `plugin_<plugin>_<server>` for a plugin's server. */
export function serverSegment(server: string, plugin?: string): string {
  return sanitize(plugin ? `plugin_${plugin}_${server}` : server);
}

export interface NameRequest {
  /** Server segment (already sanitised, see serverSegment). */
  segment: string;
  /** Tool name as the server reports it (used to call it). */
  tool: string;
}

export interface NameResult {
  name: string;
  /** Why the name differs from the plain `mcp__<segment>__<tool>` (for `tool.notes`). */
  notes: string[];
}

function fitSegment(segment: string): { seg: string; note?: string } {
  if (segment.length <= MAX_SERVER_SEGMENT) return { seg: segment };
  const seg = `${segment.slice(0, 24)}_${shortHash(segment)}`;
  return { seg, note: `server part "${segment}" shortened to "${seg}" (tool names must fit ${MAX_TOOL_NAME} characters)` };
}

/**
 * Name every tool of every server at once, so collisions (after sanitising or shortening) are
 * resolved deterministically: candidates sorted by (segment, original tool name); the first keeps
 * its name, later ones get a hash suffix.
 */
export function assignNames(reqs: NameRequest[]): NameResult[] {
  const out: NameResult[] = new Array(reqs.length);
  const order = reqs.map((_, i) => i).sort((a, b) => cmp(reqs[a]!.segment, reqs[b]!.segment) || cmp(reqs[a]!.tool, reqs[b]!.tool));
  const taken = new Set<string>();
  const segCache = new Map<string, { seg: string; note?: string }>();
  for (const i of order) {
    const r = reqs[i]!;
    const notes: string[] = [];
    let s = segCache.get(r.segment);
    if (!s) segCache.set(r.segment, (s = fitSegment(r.segment)));
    if (s.note) notes.push(s.note);
    const prefix = `mcp__${s.seg}__`;
    const plain = `mcp__${r.segment}__${r.tool}`;
    const tool = sanitize(r.tool);
    if (tool !== r.tool) notes.push(`tool name "${r.tool}" sanitised to "${tool}" (allowed: A-Z a-z 0-9 _ -)`);
    let name = prefix + tool;
    const budget = MAX_TOOL_NAME - prefix.length;
    if (name.length > MAX_TOOL_NAME) {
      name = prefix + tool.slice(0, budget - 7) + "_" + shortHash(`${r.segment}\0${r.tool}`);
      notes.push(`name shortened from "${plain}" (${plain.length} characters; the limit is ${MAX_TOOL_NAME})`);
    }
    if (taken.has(name)) {
      const before = name;
      const h = shortHash(`${r.segment}\0${r.tool}`, 8);
      name = prefix + tool.slice(0, Math.max(1, budget - 9)) + "_" + h;
      for (let k = 10; taken.has(name) && k <= 64; k += 2) name = prefix + tool.slice(0, Math.max(1, budget - k - 1)) + "_" + shortHash(`${r.segment}\0${r.tool}`, k);
      notes.push(`name "${before}" collides with another MCP tool; renamed to "${name}"`);
    }
    taken.add(name);
    out[i] = { name, notes };
  }
  return out;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
