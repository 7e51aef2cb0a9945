/**
 * Loaders for the three public retrieval sets in ../shared/bench (read-only; nothing else is read).
 * Each set becomes { docs, queries } where a query has gold tool ids and (toolsearch only)
 * acceptable ids, plus the fields the report breaks down by.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { SearchDoc } from "../../plugins/tool-search/rank.ts";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const BENCH_DATA = path.resolve(REPO_ROOT, "..", "shared", "bench");

export interface BenchQuery {
  id: string;
  query: string;
  /** Gold ids; for sets where names are the id (livemcpbench), any tool with the name counts. */
  gold: string[];
  acceptable?: string[];
  /** Breakdown keys (style, difficulty, category …). */
  groups: Record<string, string>;
}

export interface BenchSet {
  name: string;
  docs: SearchDoc[];
  queries: BenchQuery[];
  /** Map a ranked doc name to the id gold refers to (default identity). */
  idOf?: (docName: string) => string;
  note?: string;
}

const readJson = (f: string) => JSON.parse(fs.readFileSync(path.join(BENCH_DATA, f), "utf8"));

export function loadToolsearch(): BenchSet {
  const corpus = readJson("toolsearch/corpus.json") as Array<{ server: string; name: string; description: string; inputSchema?: Record<string, unknown> }>;
  const qs = readJson("toolsearch/queries-dev.json") as Array<{ id: string; query: string; style: string; gold: string[]; acceptable: string[]; difficulty: string }>;
  return {
    name: "toolsearch (dev)",
    docs: corpus.map((t) => ({ name: `${t.server}/${t.name}`, shortName: t.name, server: t.server, description: t.description, inputSchema: t.inputSchema })),
    queries: qs.map((q) => ({ id: q.id, query: q.query, gold: q.gold, acceptable: q.acceptable, groups: { style: q.style, difficulty: q.difficulty } })),
  };
}

export function loadLiveMcpBench(): BenchSet {
  const servers = readJson("livemcpbench/tools.json") as Array<{ name: string; description?: string; category?: string; tools: Record<string, { tools: Array<{ name: string; description?: string; inputSchema?: Record<string, unknown> }> }> }>;
  const ann = readJson("livemcpbench/annotations.json") as Array<{ task_id: string; Question: string; category: string; "Annotator Metadata": { Tools: string } }>;
  const docs: SearchDoc[] = [];
  const seen = new Set<string>();
  for (const s of servers) {
    for (const [key, entry] of Object.entries(s.tools ?? {})) {
      for (const t of entry.tools ?? []) {
        const id = `${key}/${t.name}`;
        if (seen.has(id)) continue;
        seen.add(id);
        docs.push({ name: id, shortName: t.name, server: key, serverDescription: `${s.name}. ${s.description ?? ""}`, description: t.description ?? "", inputSchema: t.inputSchema });
      }
    }
  }
  const names = new Set(docs.map((d) => d.shortName!));
  let dropped = 0;
  const queries: BenchQuery[] = [];
  for (const a of ann) {
    const gold = [
      ...new Set(
        a["Annotator Metadata"].Tools.split("\n")
          .map((l) => l.replace(/^\s*\d+\.\s*/, "").trim())
          .filter(Boolean),
      ),
    ];
    const ok = gold.filter((g) => names.has(g));
    dropped += gold.length - ok.length;
    if (!ok.length) continue;
    queries.push({ id: a.task_id, query: a.Question, gold: ok, groups: { category: a.category } });
  }
  return {
    name: "livemcpbench",
    docs,
    queries,
    idOf: (n) => n.slice(n.indexOf("/") + 1),
    note: `${queries.length} tasks with resolvable tools; ${dropped} annotated names not in tools.json dropped; a tool counts by name on any server`,
  };
}

/** Deterministic PRNG (mulberry32) for the fixed MetaTool sample. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let q = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (q) {
      if (c === '"') {
        if (text[i + 1] === '"') (cell += '"'), i++;
        else q = false;
      } else cell += c;
    } else if (c === '"') q = true;
    else if (c === ",") row.push(cell), (cell = "");
    else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      row.push(cell), rows.push(row), (row = []), (cell = "");
    } else cell += c;
  }
  if (cell || row.length) row.push(cell), rows.push(row);
  return rows;
}

export const METATOOL_SAMPLE = 2000;
export const METATOOL_SEED = 20260530;

export function loadMetaTool(sample = METATOOL_SAMPLE, seed = METATOOL_SEED): BenchSet {
  const des = readJson("metatool/plugin_des.json") as Record<string, string>;
  const rows = parseCsv(fs.readFileSync(path.join(BENCH_DATA, "metatool/all_clean_data.csv"), "utf8")).slice(1).filter((r) => r.length >= 2 && r[0]);
  const rnd = mulberry32(seed);
  const idx = rows.map((_, i) => i);
  for (let i = idx.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [idx[i], idx[j]] = [idx[j]!, idx[i]!];
  }
  const picked = idx.slice(0, sample).sort((a, b) => a - b);
  return {
    name: `metatool (single, ${sample} sampled, seed ${seed})`,
    docs: Object.entries(des).map(([name, description]) => ({ name, shortName: name, description })),
    queries: picked.map((i) => ({ id: `m${i}`, query: rows[i]![0]!, gold: [rows[i]![1]!], groups: { kind: "single" } })),
  };
}

export function loadMetaToolMulti(): BenchSet {
  const des = readJson("metatool/big_tool_des.json") as Record<string, string>;
  const qs = readJson("metatool/multi_tool_query_golden.json") as Array<{ query: string; tool: string[] }>;
  return {
    name: "metatool (two-tool, all 497)",
    docs: Object.entries(des).map(([name, description]) => ({ name, shortName: name, description })),
    queries: qs.map((q, i) => ({ id: `mm${i}`, query: q.query, gold: q.tool, groups: { kind: "two-tool" } })),
  };
}

/** One query's ranking and metrics (recall@1/5/10 and MRR@10), shared by every toolsearch bench. */
export function scoreQuery(set: BenchSet, index: { search(q: string, o: { limit: number }): Array<{ name: string }> }, q: BenchQuery) {
  const idOf = set.idOf ?? ((n: string) => n);
  const accept = new Set(q.acceptable ?? []);
  const ranked: string[] = [];
  for (const h of index.search(q.query, { limit: 60 })) {
    const id = idOf(h.name);
    if (accept.has(h.name) || accept.has(id) || ranked.includes(id)) continue;
    ranked.push(id);
  }
  const gold = new Set(q.gold);
  const rec = (k: number) => ranked.slice(0, k).filter((x) => gold.has(x)).length / gold.size;
  const first = ranked.findIndex((x) => gold.has(x));
  return { ranked, r1: rec(1), r5: rec(5), r10: rec(10), mrr: first >= 0 && first < 10 ? 1 / (first + 1) : 0 };
}

// ---- Held-out discipline (issue 18) -------------------------------------------------------------
// Learned data (plugins/tool-search/data/) is fitted on TRAINING splits only; the bench reports held-out splits
// and the toolsearch dev set (validation, never used for fitting or for choosing hyperparameters).

/** FNV-1a of a string → [0, 1): a split assignment that depends only on the text (identical queries share a split). */
export function unitHash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return (h >>> 0) / 4294967296;
}

export type Split = "train" | "heldout";
/** MetaTool single-tool queries: 80% train / 20% held out, by hash of the lower-cased query text. */
export const METATOOL_TRAIN_SHARE = 0.8;
/** LiveMCPBench tasks: 50% train / 50% held out, by hash of the task id (95 tasks: too few for more held out). */
export const LIVEMCP_TRAIN_SHARE = 0.5;

export const metaToolSplitOf = (query: string): Split => (unitHash("metatool:" + query.trim().toLowerCase()) < METATOOL_TRAIN_SHARE ? "train" : "heldout");
export const liveMcpSplitOf = (taskId: string): Split => (unitHash("livemcp:" + taskId) < LIVEMCP_TRAIN_SHARE ? "train" : "heldout");

/** Every MetaTool single-tool query of one split (no sampling). */
export function loadMetaToolSplit(split: Split): BenchSet {
  const des = readJson("metatool/plugin_des.json") as Record<string, string>;
  const rows = parseCsv(fs.readFileSync(path.join(BENCH_DATA, "metatool/all_clean_data.csv"), "utf8")).slice(1).filter((r) => r.length >= 2 && r[0]);
  const queries: BenchQuery[] = [];
  rows.forEach((r, i) => {
    if (metaToolSplitOf(r[0]!) === split) queries.push({ id: `m${i}`, query: r[0]!, gold: [r[1]!], groups: { kind: "single" } });
  });
  return {
    name: `metatool ${split} split (${queries.length} queries)`,
    docs: Object.entries(des).map(([name, description]) => ({ name, shortName: name, description })),
    queries,
  };
}

export function loadLiveMcpBenchSplit(split: Split): BenchSet {
  const all = loadLiveMcpBench();
  const queries = all.queries.filter((q) => liveMcpSplitOf(q.id) === split);
  return { ...all, name: `livemcpbench ${split} split`, queries, note: `${queries.length} of ${all.queries.length} tasks, split by task id hash` };
}
