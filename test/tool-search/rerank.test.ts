import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { ToolIndex, DEFAULT_OPTIONS, type SearchDoc } from "../../plugins/tool-search/rank.ts";
import { FEATURES, RERANK_FILE, ZERO_WEIGHTS, analyseQuery, rerankApplies, rerankWeights } from "../../plugins/tool-search/rerank.ts";
import { buildIndex } from "../../plugins/tool-search/index-build.ts";

// the literal-word trap: "pushing" is what the user will do later, not what they ask for now
const TRAP = "Before pushing anything, figure out which account my GitHub token belongs to.";
const docs: SearchDoc[] = [
  { name: "github/push_files", shortName: "push_files", server: "github", description: "Push multiple files to a GitHub repository in a single commit.", inputSchema: { type: "object", properties: { owner: { type: "string" }, repo: { type: "string" }, files: { type: "array" } } } },
  { name: "github/get_me", shortName: "get_me", server: "github", description: "Get details of the authenticated GitHub user: login, account and token scopes." },
  { name: "github/create_branch", shortName: "create_branch", server: "github", description: "Create a new branch in a GitHub repository." },
  { name: "github/list_commits", shortName: "list_commits", server: "github", description: "List commits of a branch in a GitHub repository." },
  { name: "slack/send_message", shortName: "send_message", server: "slack", description: "Post a message to a Slack channel." },
];
const feat = (name: string, q: string, o = {}) => {
  const ix = new ToolIndex(docs, { rerank: 20, ...o });
  const rows: Float64Array[] = [];
  const hits = ix.search(q, { limit: 20, features: rows });
  const k = hits.findIndex((h) => h.name === name);
  return k < 0 ? undefined : Object.fromEntries(FEATURES.map((f, j) => [f, rows[k]![j]]));
};

describe("cross-field reranker (rerank.ts, weights in data/rerank.json fitted by bench/toolsearch/rerank-fit.ts)", () => {
  it("marks words of a before/after/without clause as trap words, up to the clause's end", () => {
    const ix = buildIndex(docs, { ...DEFAULT_OPTIONS });
    const rq = analyseQuery(ix, DEFAULT_OPTIONS, TRAP);
    const role = (t: string) => rq.role.get(ix.termId.get(t)!);
    expect(role("push")).toBe(2);
    expect(role("account")).toBe(1);
    expect(role("token")).toBe(1);
    // a word in both a trap clause and the main clause is a main-clause word
    const both = analyseQuery(ix, DEFAULT_OPTIONS, "after the push, push the files");
    expect(both.role.get(ix.termId.get("push")!)).toBe(1);
    // "then" ends the clause: "before X then Y" traps X only
    const then = analyseQuery(ix, DEFAULT_OPTIONS, "before branching then push the files");
    expect(then.role.get(ix.termId.get("push")!)).toBe(1);
    expect(then.role.get(ix.termId.get("branch")!)).toBe(2);
    // with the trap weight alone, a query without a trap clause is not reranked (nothing could move)
    expect(rerankApplies(rq, { ...ZERO_WEIGHTS, trap: -1 })).toBe(true);
    expect(rerankApplies(analyseQuery(ix, DEFAULT_OPTIONS, "push the files"), { ...ZERO_WEIGHTS, trap: -1 })).toBe(false);
    expect(rerankApplies(analyseQuery(ix, DEFAULT_OPTIONS, "push the files"), { ...ZERO_WEIGHTS, object: 1 })).toBe(true);
  });

  it("computes the features per candidate: trap, verb agreement, where the words hit, server share", () => {
    expect(feat("github/push_files", TRAP)!.trap).toBe(1);
    expect(feat("github/get_me", TRAP)!.trap).toBe(0);
    const c = feat("github/create_branch", "create a branch")!;
    expect(c.verbAgree).toBe(1);
    expect(c.verbMismatch).toBe(0);
    expect(c.object).toBe(1);
    expect(c.nameHit).toBe(1);
    expect(feat("github/list_commits", "create a branch")!.verbMismatch).toBe(1);
    // "commit" only in push_files' description (its first sentence), "files" in its name and parameter names
    const p = feat("github/push_files", "files in one commit")!;
    expect(p.nameHit).toBe(0.5);
    expect(p.leadHit).toBe(0.5);
    expect(p.descOnly).toBe(0);
    const d = new ToolIndex([{ name: "a/x", server: "a", description: "Does x. Also handles zebras." }, { name: "a/y", server: "a", description: "Does y." }], { rerank: 20 });
    const rows: Float64Array[] = [];
    d.search("zebras", { limit: 5, features: rows });
    expect(rows[0]![FEATURES.indexOf("descOnly")]).toBe(1);
    expect(feat("github/list_commits", "repository commits")!.server).toBeGreaterThan(feat("slack/send_message", "repository commits channel")!.server);
  });

  it("a trap weight moves the trapped tool below the one asked for; zero weights keep the first stage's order exactly", () => {
    const first = new ToolIndex(docs, { rerank: 0 }).search(TRAP, { limit: 5 });
    const zero = new ToolIndex(docs, { rerank: 20, rerankWeights: ZERO_WEIGHTS }).search(TRAP, { limit: 5 });
    expect(zero).toEqual(first);
    const trap = new ToolIndex(docs, { rerank: 20, rerankWeights: { ...ZERO_WEIGHTS, trap: -1 } }).search(TRAP, { limit: 5 }).map((h) => h.name);
    expect(trap.indexOf("github/get_me")).toBeLessThan(trap.indexOf("github/push_files"));
    const scores = new ToolIndex(docs, { rerank: 20, rerankWeights: { ...ZERO_WEIGHTS, trap: -1 } }).search(TRAP, { limit: 5 }).map((h) => h.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it("the shipped weights name their training data, were not fitted on dev, and cover every feature", () => {
    const data = JSON.parse(fs.readFileSync(RERANK_FILE, "utf8")) as { about: string[]; depth: number; weights: Record<string, number> };
    expect(data.about.join(" ")).toMatch(/MetaTool.*LiveMCPBench/);
    expect(data.about.join(" ")).toMatch(/dev queries were not used/);
    expect(Object.keys(data.weights).sort()).toEqual([...FEATURES].sort());
    expect(rerankWeights()).toEqual(data.weights);
    expect(DEFAULT_OPTIONS.rerank).toBe(data.depth);
  });
});
