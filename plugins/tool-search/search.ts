/**
 * ToolSearch's query forms and the one search function both the ToolSearch tool and
 * `toolhost search` call (so they rank identically).
 *
 *  - `select:A,B`     load these tools by full name; an unambiguous short MCP tool name
 *                     (`get_issue` for `mcp__github__get_issue`) resolves too (Claude Code needs the full name).
 *  - `words …`        ranked keyword search (rank.ts).
 *  - `+req words …`   every `+term` must appear in the tool's full name; rank by the other words
 *                     (`+github` alone lists that server's tools).
 */
import { editDistance, type PoolSnapshot, type Tool } from "../../core/index.ts";
import { ToolIndex, shortNameOf, type SearchDoc } from "./rank.ts";

export type ParsedQuery = { kind: "select"; names: string[] } | { kind: "keywords"; required: string[]; text: string };

export function parseQuery(query: string): ParsedQuery {
  const q = query.trim();
  const m = /^select\s*:(.*)$/is.exec(q);
  if (m) return { kind: "select", names: m[1]!.split(",").map((s) => s.trim()).filter(Boolean) };
  const required: string[] = [];
  const rest: string[] = [];
  for (const part of q.split(/\s+/).filter(Boolean)) {
    if (part.startsWith("+") && part.length > 1) required.push(part.slice(1).toLowerCase());
    else rest.push(part);
  }
  return { kind: "keywords", required, text: rest.join(" ") };
}

/**
 * The search index of one pool generation's deferred tools. `index` is built lazily, on the first
 * ranked search, and reused from an earlier generation when the deferred tools are unchanged (same
 * names in the same order, same content signature), so a rebuild where nothing deferred changed costs
 * one signature pass, not an index build — and a rebuild nobody searches after costs nothing.
 */
export interface DeferredIndex {
  readonly generation: number;
  readonly tools: readonly Tool[];
  readonly index: ToolIndex;
  /** short tool name → full names (MCP `mcp__server__tool` → `tool`). */
  readonly byShort: ReadonlyMap<string, readonly string[]>;
}

export function toSearchDoc(t: Tool): SearchDoc {
  const ex = (t.extra ?? {}) as Record<string, unknown>;
  const info = [ex.serverInstructions, ex.serverDescription, ex.instructions].find((x): x is string => typeof x === "string");
  return { name: t.name, shortName: shortNameOf(t.name, t.server), server: t.server, serverDescription: info, description: t.description, searchHint: t.searchHint, inputSchema: t.inputSchema };
}

class LazyDeferredIndex implements DeferredIndex {
  private built?: ToolIndex;
  readonly byShort: ReadonlyMap<string, readonly string[]>;
  constructor(
    readonly generation: number,
    readonly tools: readonly Tool[],
  ) {
    const byShort = new Map<string, string[]>();
    for (const t of tools) {
      const s = shortNameOf(t.name, t.server);
      if (s !== t.name) byShort.set(s, [...(byShort.get(s) ?? []), t.name]);
    }
    this.byShort = byShort;
  }
  get index(): ToolIndex {
    return (this.built ??= reuseOrBuild(this.tools));
  }
  /** True once the ranked index exists (built or reused); for tests and diagnostics. */
  get isBuilt(): boolean {
    return this.built !== undefined;
  }
}

export function buildDeferredIndex(generation: number, tools: readonly Tool[]): DeferredIndex {
  return new LazyDeferredIndex(generation, tools);
}

// ---- index reuse across generations --------------------------------------------------------------

/** A content signature of one tool: FNV-1a over every text the index reads (name, server, server
 * info, hint, description, the schema's keys and string values). Cached per Tool object, since
 * sources that keep their tool objects across rebuilds (MCP listings) then cost nothing. */
const toolSigs = new WeakMap<Tool, number>();

function fnv(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return Math.imul(h ^ 0xff, 16777619); // separator, so ("ab","c") ≠ ("a","bc")
}

function fnvValue(h: number, v: unknown, depth: number): number {
  if (typeof v === "string") return fnv(h, v);
  if (typeof v === "number" || typeof v === "boolean") return fnv(h, String(v));
  if (!v || typeof v !== "object" || depth > 8) return fnv(h, "");
  if (Array.isArray(v)) {
    for (const x of v) h = fnvValue(h, x, depth + 1);
    return fnv(h, "]");
  }
  for (const k in v as Record<string, unknown>) h = fnvValue(fnv(h, k), (v as Record<string, unknown>)[k], depth + 1);
  return fnv(h, "}");
}

export function toolSignature(t: Tool): number {
  let h = toolSigs.get(t);
  if (h === undefined) {
    const d = toSearchDoc(t);
    h = 2166136261;
    for (const s of [d.name, d.shortName ?? "", d.server ?? "", d.serverDescription ?? "", d.searchHint ?? "", d.description ?? ""]) h = fnv(h, s);
    h = fnvValue(h, d.inputSchema, 0) >>> 0;
    toolSigs.set(t, h);
  }
  return h;
}

interface Built {
  names: string[];
  sigs: Uint32Array;
  index: ToolIndex;
}

/** The last few distinct indexes built (a host's deferred set, `toolhost search --all`'s full set …). */
const recent: Built[] = [];
const RECENT_MAX = 4;
let buildCount = 0;

/** How many ranked indexes this module has built (reuses do not count); for tests and benchmarks. */
export function indexBuildCount(): number {
  return buildCount;
}

/**
 * "lazy-reuse" (default): build on first search, reuse an unchanged earlier index. "eager": the old
 * behaviour — build at build.seal, every generation, no reuse. Only benchmarks switch this.
 */
let strategy: "lazy-reuse" | "eager" = "lazy-reuse";
export function setIndexStrategy(s: "lazy-reuse" | "eager"): void {
  strategy = s;
}

function reuseOrBuild(tools: readonly Tool[]): ToolIndex {
  if (strategy === "eager") {
    buildCount++;
    return new ToolIndex(tools.map(toSearchDoc));
  }
  const sigs = new Uint32Array(tools.length);
  for (let i = 0; i < tools.length; i++) sigs[i] = toolSignature(tools[i]!);
  const hit = recent.find((b) => b.names.length === tools.length && b.names.every((n, i) => n === tools[i]!.name && b.sigs[i] === sigs[i]));
  if (hit) {
    recent.splice(recent.indexOf(hit), 1);
    recent.unshift(hit);
    return hit.index;
  }
  buildCount++;
  const index = new ToolIndex(tools.map(toSearchDoc));
  recent.unshift({ names: tools.map((t) => t.name), sigs, index });
  if (recent.length > RECENT_MAX) recent.length = RECENT_MAX;
  return index;
}

const cache = new WeakMap<PoolSnapshot, DeferredIndex>();

/** The index of a pool's deferred tools (one per pool snapshot; the ranked index is built on first use). */
export function indexFor(pool: PoolSnapshot): DeferredIndex {
  let ix = cache.get(pool);
  if (!ix) {
    cache.set(pool, (ix = buildDeferredIndex(pool.generation, pool.deferred)));
    if (strategy === "eager") void ix.index;
  }
  return ix;
}

export interface SearchOutcome {
  query: ParsedQuery;
  /** Matched tools in rank order (select: in the order asked). */
  tools: Array<{ name: string; score: number }>;
  /** select: names that matched nothing. */
  unresolved: string[];
  /** select: short names that match several tools (not resolved). */
  ambiguous: Array<{ name: string; candidates: string[] }>;
  /** select: names that are eager tools already (nothing to load). */
  alreadyLoaded: string[];
  /** Hints when nothing matched. */
  suggestions: string[];
}

export function search(ix: DeferredIndex, query: string, limit = 5, pool?: PoolSnapshot): SearchOutcome {
  const parsed = parseQuery(query);
  const out: SearchOutcome = { query: parsed, tools: [], unresolved: [], ambiguous: [], alreadyLoaded: [], suggestions: [] };
  const max = Math.max(1, Math.floor(limit));
  if (parsed.kind === "select") {
    const deferred = new Set(ix.tools.map((t) => t.name));
    for (const n of parsed.names) {
      let name: string | undefined;
      if (deferred.has(n)) name = n;
      else {
        const c = ix.byShort.get(n) ?? [...ix.byShort].find(([s]) => s.toLowerCase() === n.toLowerCase())?.[1];
        if (c?.length === 1) name = c[0];
        else if (c && c.length > 1) out.ambiguous.push({ name: n, candidates: [...c] });
        else if (pool?.byName.has(n) && !pool.deferral.get(n)?.defer) out.alreadyLoaded.push(n);
        else out.unresolved.push(n);
      }
      if (name && !out.tools.some((t) => t.name === name)) out.tools.push({ name, score: 1 });
    }
    for (const n of out.unresolved) {
      const similar = similarNames(ix, n);
      if (similar.length) out.suggestions.push(`"${n}": did you mean ${similar.join(", ")}?`);
    }
    return out;
  }
  const req = parsed.required;
  const filter = req.length ? (d: SearchDoc) => req.every((r) => d.name.toLowerCase().includes(r)) : undefined;
  if (parsed.text.trim()) out.tools = ix.index.search(parsed.text, { limit: max, filter }).map((h) => ({ name: h.name, score: round(h.score) }));
  if (req.length && out.tools.length < max) {
    // `+server` alone (or words that match nothing else): every tool whose name has the required terms,
    // ranked by the required words themselves, then in pool order.
    const have = new Set(out.tools.map((t) => t.name));
    const byReq = ix.index.search(req.join(" "), { limit: ix.tools.length, filter });
    const rest = ix.tools.filter((t) => filter!(toSearchDoc(t)) && !have.has(t.name));
    const order = new Map(byReq.map((h, i) => [h.name, i]));
    rest.sort((a, b) => (order.get(a.name) ?? 1e9) - (order.get(b.name) ?? 1e9));
    for (const t of rest) {
      if (out.tools.length >= max) break;
      out.tools.push({ name: t.name, score: 0 });
    }
  }
  if (!out.tools.length) out.suggestions = keywordSuggestions(ix, parsed);
  return out;
}

function round(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}

function similarNames(ix: DeferredIndex, n: string): string[] {
  const l = n.toLowerCase();
  const scored = ix.tools
    .map((t) => {
      const s = shortNameOf(t.name, t.server).toLowerCase();
      const full = t.name.toLowerCase();
      const d = full.includes(l) || l.includes(s) ? 0 : lev(l, s);
      return { name: t.name, d };
    })
    .filter((x) => x.d <= Math.max(2, Math.floor(l.length / 4)))
    .sort((a, b) => a.d - b.d || (a.name < b.name ? -1 : 1));
  if (scored.length) return scored.slice(0, 5).map((x) => x.name);
  return ix.index.search(n.replace(/[_\-.]/g, " "), { limit: 3 }).map((h) => h.name);
}

function keywordSuggestions(ix: DeferredIndex, q: Extract<ParsedQuery, { kind: "keywords" }>): string[] {
  if (!ix.tools.length) return ["There are no deferred tools in this session: every available tool is already loaded."];
  const servers = [...new Set(ix.tools.map((t) => t.server).filter((s): s is string => !!s))].sort();
  const s: string[] = [];
  if (q.required.length) s.push(`No deferred tool name contains ${q.required.map((r) => `"${r}"`).join(" and ")}.`);
  s.push("Try fewer or broader keywords, or describe the action (e.g. \"create issue\").");
  if (servers.length) s.push(`List one server's tools with +<server>: ${servers.slice(0, 20).map((x) => `+${x}`).join(", ")}${servers.length > 20 ? ", …" : ""}.`);
  s.push('Load exact tools with "select:<name>,<name>".');
  return s;
}

function lev(a: string, b: string): number {
  return Math.abs(a.length - b.length) > 8 ? 99 : editDistance(a, b);
}
