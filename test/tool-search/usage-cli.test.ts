/**
 * Usage-driven deferral end to end through real CLI processes and the real session store: the sessions
 * plugin on SQLite under TOOLHOST_HOME counts each call; `toolhost tools --usage` reads session frequency
 * from that store; with toolSearch.usage.policy "apply" the next process always-loads the tool used in more
 * than half of the sessions and `explain` names the rule.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli, tmpdir } from "../helpers.ts";
import { SERVERS, stdio } from "../mcp/helpers.ts";

let home: string;
let proj: string;
let cfg: string;
const cli = (args: string[], config = cfg) => runCli([...args, "--cwd", proj, "--config", config], { cwd: proj, env: { TOOLHOST_HOME: home } });
const READ = "mcp__memory__read_graph";
const SEARCH = "mcp__memory__search_nodes";

beforeAll(async () => {
  home = tmpdir("toolhost-usage-home-");
  proj = tmpdir("toolhost-usage-proj-");
  const mcpServers = { memory: stdio(SERVERS.memory, [], { env: { MEMORY_FILE_PATH: path.join(proj, "memory.jsonl") } }) };
  // the user's own config (named with --config, outside the project): its allow rules apply without workspace trust
  cfg = path.join(home, "user.json");
  fs.writeFileSync(cfg, JSON.stringify({ permissions: { allow: ["mcp__memory__*"] }, mcpServers, toolSearch: { usage: { minSessions: 4 } } }));
  // 5 sessions: read_graph in 3 of them (60%), search_nodes in 1
  for (let i = 0; i < 5; i++) {
    if (i < 3) expect((await cli(["call", READ, "{}", "--session", `u${i}`])).code).toBe(0);
    else expect((await cli(["call", "Glob", JSON.stringify({ pattern: "*.none" }), "--session", `u${i}`])).code).toBe(0);
    if (i === 4) expect((await cli(["call", SEARCH, JSON.stringify({ query: "x" }), "--session", `u${i}`])).code).toBe(0);
  }
}, 180_000);

describe("toolhost tools --usage over the SQLite session store", () => {
  it("shows session frequency and suggests always-loading the tool used in more than half of sessions", async () => {
    const r = await cli(["tools", "--usage", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.sessions).toBe(5);
    expect(j.tools.find((t: { name: string }) => t.name === READ)).toMatchObject({ status: "deferred", sessions: 3, calls: 3 });
    expect(j.tools.find((t: { name: string }) => t.name === SEARCH)).toMatchObject({ sessions: 1 });
    expect(j.suggestions).toEqual([expect.objectContaining({ tool: READ, action: "always-load" })]);
    const text = await cli(["tools", "--usage"]);
    expect(text.stdout).toMatch(/mcp__memory__read_graph\s+deferred\s+3 \(60%\)/);
    expect(text.stdout).toMatch(/always load mcp__memory__read_graph: used in 3 of 5 sessions/);
  }, 60_000);

  it('policy "apply": the next process loads it up front, and explain says why', async () => {
    const apply = path.join(home, "apply.json");
    const base = JSON.parse(fs.readFileSync(cfg, "utf8"));
    fs.writeFileSync(apply, JSON.stringify({ ...base, toolSearch: { usage: { minSessions: 4, policy: "apply" } } }));
    const e = await cli(["explain", READ, "--json"], apply);
    expect(e.code, e.stderr).toBe(0);
    expect(JSON.parse(e.stdout)).toMatchObject({ status: "loaded", rule: "toolSearch.usage: promote" });
    const other = JSON.parse((await cli(["explain", SEARCH, "--json"], apply)).stdout);
    expect(other).toMatchObject({ status: "deferred" });
  }, 60_000);
});
