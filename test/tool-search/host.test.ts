import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createHost, type Host, type HostOptions, type Tool } from "../../core/index.ts";
import { search, indexFor, indexBuildCount, toolSignature } from "../../plugins/tool-search/search.ts";
import { toAnthropicTools, toOpenAITools, toMcpTools, toolReferenceBlocks, poolTokens, toolTokens } from "../../plugins/tool-search/adapters.ts";
import { toolsJson } from "../../plugins/host-cli/tools.ts";
import { fakeMcpPlugin, GITHUB, SLACK, type FakeTool } from "./fixtures.ts";
import toolSearchPlugin from "../../plugins/tool-search/index.ts";

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
});

function tmpdir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "toolhost-ts-"));
}

/** A host with only the tool-search plugin and a fake MCP source (the bundled built-ins would add eager tools). */
async function host(tools: () => FakeTool[], opts: Partial<HostOptions> = {}): Promise<Host> {
  const h = await createHost({ cwd: opts.cwd ?? tmpdir(), bundled: false, plugins: [toolSearchPlugin, fakeMcpPlugin("fake-mcp", tools)], ...opts });
  hosts.push(h);
  return h;
}

const G = (n: string) => `mcp__github__${n}`;
const S = (n: string) => `mcp__slack__${n}`;

describe("deferral decisions are explained", () => {
  it("MCP tools defer by default; ToolSearch itself never defers", async () => {
    const h = await host(() => GITHUB);
    const e = h.explain(G("list_issues"));
    expect(e).toMatchObject({ status: "deferred", rule: "mcp: deferred by default", plugin: "tool-search" });
    expect(e.reason).toMatch(/MCP tools are deferred by default \(server github\)/);
    expect(h.explain("ToolSearch")).toMatchObject({ status: "loaded", rule: "toolSearch: self", plugin: "tool-search", file: null });
    expect(h.pool.tools.map((t) => t.name)).toEqual(["ToolSearch"]);
    expect(h.pool.deferred).toHaveLength(GITHUB.length);
  });

  it("ToolSearch is offered only when something is deferred", async () => {
    const h = await host(() => [{ server: "", name: "PlainTool", description: "plain", origin: "plugin" }]);
    expect(h.pool.byName.has("ToolSearch")).toBe(false);
    expect(h.pool.deferred).toHaveLength(0);
    const all = await host(() => [{ server: "a", name: "x", description: "x", alwaysLoad: true }]);
    expect(all.pool.byName.has("ToolSearch")).toBe(false);
  });

  it("shouldDefer defers a non-MCP tool; a plain plugin tool stays loaded", async () => {
    const h = await host(() => [
      { server: "", name: "BigTool", description: "big", origin: "plugin", shouldDefer: true },
      { server: "", name: "SmallTool", description: "small", origin: "plugin" },
    ]);
    expect(h.explain("BigTool")).toMatchObject({ status: "deferred", rule: "tool: shouldDefer", plugin: "tool-search" });
    expect(h.explain("SmallTool")).toMatchObject({ status: "loaded", rule: "default" });
  });

  it("tool alwaysLoad, MCP _meta alwaysLoad and server alwaysLoad keep tools loaded; _meta false opts back out", async () => {
    const h = await host(() => [
      { server: "a", name: "flagged", description: "x", alwaysLoad: true },
      { server: "a", name: "meta", description: "x", extra: { _meta: { "anthropic/alwaysLoad": true } } },
      { server: "b", name: "srv", description: "x", extra: { serverConfig: { alwaysLoad: true } } },
      { server: "b", name: "optout", description: "x", extra: { serverConfig: { alwaysLoad: true }, _meta: { "anthropic/alwaysLoad": false } } },
    ]);
    expect(h.explain("mcp__a__flagged")).toMatchObject({ status: "loaded", rule: "tool: alwaysLoad" });
    expect(h.explain("mcp__a__meta")).toMatchObject({ status: "loaded", rule: '_meta["anthropic/alwaysLoad"]' });
    expect(h.explain("mcp__b__srv")).toMatchObject({ status: "loaded", rule: "mcp server: alwaysLoad" });
    expect(h.explain("mcp__b__srv").reason).toContain("MCP server b");
    expect(h.explain("mcp__b__optout")).toMatchObject({ status: "deferred", rule: '_meta["anthropic/alwaysLoad"]: false' });
  });

  it("config toolSearch.alwaysLoad (names and globs) names the pattern and the config file", async () => {
    const dir = tmpdir();
    const cfg = path.join(dir, "toolhost.config.json");
    fs.writeFileSync(cfg, JSON.stringify({ toolSearch: { alwaysLoad: ["mcp__slack__*", G("merge_pull_request")] } }));
    const h = await host(() => [...GITHUB, ...SLACK], { cwd: dir });
    expect(h.explain(S("send_message"))).toMatchObject({ status: "loaded", rule: "toolSearch.alwaysLoad: mcp__slack__*", file: cfg });
    expect(h.explain(G("merge_pull_request"))).toMatchObject({ status: "loaded", rule: `toolSearch.alwaysLoad: ${G("merge_pull_request")}`, file: cfg });
    expect(h.explain(G("list_issues")).status).toBe("deferred");
  });

  it("enabled: false loads everything up front and drops ToolSearch", async () => {
    const dir = tmpdir();
    const cfg = path.join(dir, "toolhost.config.json");
    fs.writeFileSync(cfg, JSON.stringify({ toolSearch: { enabled: false } }));
    const h = await host(() => GITHUB, { cwd: dir });
    expect(h.pool.deferred).toHaveLength(0);
    expect(h.pool.byName.has("ToolSearch")).toBe(false);
    expect(h.explain(G("list_issues"))).toMatchObject({ status: "loaded", rule: "toolSearch.enabled: false", plugin: "tool-search", file: cfg });
  });

  it("auto: under the threshold loads up front, over it defers; both say the numbers", async () => {
    const under = await host(() => GITHUB, { config: { toolSearch: { enabled: "auto" } } });
    const eu = under.explain(G("list_issues"));
    expect(eu).toMatchObject({ status: "loaded", rule: "toolSearch.enabled: auto:10" });
    expect(eu.reason).toMatch(/under 10% of 200000 context tokens = 20000/);

    const over = await host(() => GITHUB, { config: { toolSearch: { enabled: "auto:5", contextTokens: 1000 } } });
    const eo = over.explain(G("list_issues"));
    expect(eo.status).toBe("deferred");
    expect(eo.rule).toBe("mcp: deferred by default; toolSearch.enabled: auto:5");
    expect(eo.reason).toMatch(/over 5% of 1000 context tokens = 50/);
  });

  it("a bad toolSearch.enabled value is a warning naming the field, not a crash", async () => {
    const h = await host(() => GITHUB, { config: { toolSearch: { enabled: "sometimes" as never } } });
    const w = h.problems().find((p) => p.plugin === "tool-search");
    expect(w?.path).toBe("/toolSearch");
    expect(w?.message).toMatch(/toolSearch.enabled must be/);
    expect(h.pool.deferred.length).toBe(GITHUB.length);
  });
});

describe("ToolSearch tool", () => {
  it("returns full definitions in rank order, loads them for the session only, and the executor then allows calls", async () => {
    const h = await host(() => [...GITHUB, ...SLACK]);
    const before = await h.execute(G("merge_pull_request"), {}, { sessionId: "s1" });
    expect(before.status).toBe("unknown-tool");
    expect(before.reason).toMatch(/deferred.*ToolSearch/);

    const o = await h.execute("ToolSearch", { query: "merge a pull request", max_results: 2 }, { sessionId: "s1" });
    expect(o.status).toBe("ok");
    const sc = o.result.structuredContent as { tools: Array<{ name: string; description: string; input_schema: unknown }> };
    expect(sc.tools[0]!.name).toBe(G("merge_pull_request"));
    expect(sc.tools).toHaveLength(2);
    expect(sc.tools[0]!.input_schema).toEqual(expect.objectContaining({ type: "object" }));
    expect(o.result.content[0]!.text).toContain(`"name":"${G("merge_pull_request")}"`);
    expect(o.result.meta?.toolReferences).toEqual(toolReferenceBlocks(sc.tools.map((t) => t.name)));

    expect(h.visibleTools("s1").map((t) => t.name)).toEqual(["ToolSearch", ...sc.tools.map((t) => t.name)]);
    expect(h.visibleTools("s2").map((t) => t.name)).toEqual(["ToolSearch"]);
    expect((await h.execute(G("merge_pull_request"), {}, { sessionId: "s1", yes: true })).status).toBe("ok");
    expect((await h.execute(G("merge_pull_request"), {}, { sessionId: "s2" })).status).toBe("unknown-tool");
  });

  it("load order never changes when tools are found again", async () => {
    const h = await host(() => [...GITHUB, ...SLACK]);
    await h.execute("ToolSearch", { query: "select:mcp__slack__send_message" }, { sessionId: "s" });
    await h.execute("ToolSearch", { query: "select:list_issues,send_message" }, { sessionId: "s" });
    expect(h.session("s").loaded).toEqual([S("send_message"), G("list_issues")]);
    expect(h.visibleTools("s").map((t) => t.name)).toEqual(["ToolSearch", S("send_message"), G("list_issues")]);
  });

  it("empty result says so, with suggestions, and is not an error", async () => {
    const h = await host(() => [...GITHUB, ...SLACK]);
    const o = await h.execute("ToolSearch", { query: "zzzqqq" }, { sessionId: "s" });
    expect(o.status).toBe("ok");
    expect(o.result.content[0]!.text).toMatch(/^No matching deferred tools found/);
    expect(o.result.content[0]!.text).toContain("+github");
    expect(h.session("s").loaded).toEqual([]);
  });

  it("ambiguous short names are reported, not resolved", async () => {
    const h = await host(() => [...GITHUB, { server: "gitlab", name: "create_issue", description: "Create a GitLab issue" }]);
    const o = await h.execute("ToolSearch", { query: "select:create_issue" }, { sessionId: "s" });
    expect(o.result.content[0]!.text).toContain(`"create_issue" is ambiguous (${G("create_issue")}, mcp__gitlab__create_issue)`);
    expect(h.session("s").loaded).toEqual([]);
  });

  it("ranks exactly like search() (the CLI's function)", async () => {
    const h = await host(() => [...GITHUB, ...SLACK]);
    for (const q of ["pull request", "+slack list", "file contents", "user profile timezone", "select:list_issues,send_message"]) {
      const o = await h.execute("ToolSearch", { query: q, max_results: 4 }, { sessionId: "cmp" });
      const viaTool = (o.result.structuredContent as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
      expect(viaTool).toEqual(search(indexFor(h.pool), q, 4, h.pool).tools.map((t) => t.name));
    }
  });

  it("an unambiguous short MCP name resolves at lookup", async () => {
    const h = await host(() => [...GITHUB, ...SLACK]);
    const o = await h.execute("list_channels", {}, { sessionId: "s", autoLoadDeferred: true, yes: true });
    expect(o.status).toBe("ok");
    expect(o.tool).toBe(S("list_channels"));
  });
});

describe("sessions across rebuilds", () => {
  it("found tools survive a rebuild and vanish cleanly when their server goes away", async () => {
    let servers: FakeTool[] = [...GITHUB, ...SLACK];
    const h = await host(() => servers);
    await h.execute("ToolSearch", { query: "select:merge_pull_request,send_message" }, { sessionId: "s" });
    const gen = h.pool.generation;
    await h.rebuild("test");
    expect(h.pool.generation).toBe(gen + 1);
    expect(h.visibleTools("s").map((t) => t.name)).toEqual(["ToolSearch", G("merge_pull_request"), S("send_message")]);
    expect((await h.execute(S("send_message"), {}, { sessionId: "s", yes: true })).status).toBe("ok");

    servers = [...GITHUB]; // the slack server went away
    await h.rebuild("slack gone");
    expect(h.visibleTools("s").map((t) => t.name)).toEqual(["ToolSearch", G("merge_pull_request")]);
    const gone = await h.execute(S("send_message"), {}, { sessionId: "s" });
    expect(gone.status).toBe("unknown-tool");
    const found = await h.execute("ToolSearch", { query: "+slack" }, { sessionId: "s" });
    expect(found.result.content[0]!.text).toMatch(/^No matching deferred tools found/);
    // the search index is per generation: the new one has no slack tools
    expect(indexFor(h.pool).tools.some((t) => t.name.includes("slack"))).toBe(false);
  });
});

describe("provider adapters and tokens", () => {
  it("Anthropic: eager tools plus deferred ones with defer_loading; OpenAI: deferred omitted until loaded; MCP shape", async () => {
    const h = await host(() => [...GITHUB, ...SLACK]);
    const a = toAnthropicTools(h);
    expect(a[0]).toEqual({ name: "ToolSearch", description: expect.any(String), input_schema: expect.any(Object) });
    expect(a.filter((t) => t.defer_loading)).toHaveLength(GITHUB.length + SLACK.length);
    expect(a.find((t) => t.name === G("list_issues"))).toMatchObject({ defer_loading: true, input_schema: { type: "object" } });

    expect(toOpenAITools(h, "s").map((t) => t.function.name)).toEqual(["ToolSearch"]);
    await h.execute("ToolSearch", { query: "select:list_issues" }, { sessionId: "s" });
    const oa = toOpenAITools(h, "s");
    expect(oa.map((t) => t.function.name)).toEqual(["ToolSearch", G("list_issues")]);
    expect(oa[1]).toEqual({ type: "function", function: { name: G("list_issues"), description: expect.any(String), parameters: expect.any(Object) } });

    const m = toMcpTools(h.visibleTools("s"));
    expect(m.map((t) => Object.keys(t).sort())).toEqual([
      ["description", "inputSchema", "name"],
      ["description", "inputSchema", "name"],
    ]);
  });

  it("toolhost tools --json gains per-tool tokens and eager/deferred totals, keeping its fields", async () => {
    const h = await host(() => [...GITHUB, ...SLACK]);
    const j = toolsJson(h);
    expect(Object.keys(j.tools[0]!).sort()).toEqual(["deferred", "name", "origin", "plugin", "readOnly", "tokens"]);
    expect(j.tools.every((t) => t.tokens > 0)).toBe(true);
    const eager = j.tools.filter((t) => !t.deferred).reduce((n, t) => n + t.tokens, 0);
    const deferred = j.tools.filter((t) => t.deferred).reduce((n, t) => n + t.tokens, 0);
    expect(j.tokens).toEqual({ eager, deferred });
    expect(j.tokens).toEqual({ eager: poolTokens(h.pool).eager, deferred: poolTokens(h.pool).deferred });
    for (const t of h.pool.deferred) expect(j.tools.find((x) => x.name === t.name)!.tokens).toBe(toolTokens(t));
  });
});

describe("index reuse across generations", () => {
  it("an unchanged rebuild reuses the ranked index; it is built on the first search, not at seal", async () => {
    let servers: FakeTool[] = [...GITHUB, ...SLACK];
    const h = await host(() => servers);
    const ix1 = indexFor(h.pool) as ReturnType<typeof indexFor> & { isBuilt: boolean };
    expect(ix1.isBuilt).toBe(false); // sealing the generation did not build it
    const before = await h.execute("ToolSearch", { query: "pull request merge", max_results: 5 }, { sessionId: "a" });
    expect(ix1.isBuilt).toBe(true);
    const builds = indexBuildCount();

    await h.rebuild("no change");
    const ix2 = indexFor(h.pool);
    expect(ix2).not.toBe(ix1); // a new generation …
    const after = await h.execute("ToolSearch", { query: "pull request merge", max_results: 5 }, { sessionId: "b" });
    expect(indexBuildCount()).toBe(builds); // … but no new index
    expect(ix2.index).toBe(ix1.index);
    expect(after.result.structuredContent).toEqual(before.result.structuredContent);

    // a deferred tool's description changes → rebuilt, and the new text is searchable
    servers = [...GITHUB.filter((t) => t.name !== "merge_pull_request"), { ...GITHUB.find((t) => t.name === "merge_pull_request")!, description: "Merge a pull request; also known as a zebracorn landing" }, ...SLACK];
    await h.rebuild("description changed");
    const found = search(indexFor(h.pool), "zebracorn", 3, h.pool).tools.map((t) => t.name);
    expect(indexBuildCount()).toBe(builds + 1);
    expect(found).toEqual([G("merge_pull_request")]);

    // a parameter's description changes (same names, same tool descriptions) → rebuilt as well
    servers = servers.map((t) => (t.name === "send_message" ? { ...t, inputSchema: { type: "object", properties: { text: { type: "string", description: "quokka text" } } } } : t));
    await h.rebuild("schema changed");
    expect(search(indexFor(h.pool), "quokka", 3, h.pool).tools.map((t) => t.name)).toEqual([S("send_message")]);
    expect(indexBuildCount()).toBe(builds + 2);

    // a deferred tool goes away → rebuilt, and it is no longer found
    servers = servers.filter((t) => t.name !== "send_message");
    await h.rebuild("tool removed");
    expect(search(indexFor(h.pool), "quokka", 3, h.pool).tools.map((t) => t.name)).not.toContain(S("send_message"));
    expect(indexBuildCount()).toBe(builds + 3);
  });

  it("tool signatures see names, descriptions and schema text", () => {
    const t = { name: "mcp__a__x", server: "a", description: "d", inputSchema: { type: "object", properties: { p: { type: "string", description: "one" } } }, origin: "mcp" } as unknown as Tool;
    const same = { ...t, inputSchema: { type: "object", properties: { p: { type: "string", description: "one" } } } } as Tool;
    expect(toolSignature(same)).toBe(toolSignature(t));
    expect(toolSignature({ ...t, description: "e" } as Tool)).not.toBe(toolSignature(t));
    expect(toolSignature({ ...t, inputSchema: { type: "object", properties: { p: { type: "string", description: "two" } } } } as Tool)).not.toBe(toolSignature(t));
    expect(toolSignature({ ...t, inputSchema: { type: "object", properties: { q: { type: "string", description: "one" } } } } as Tool)).not.toBe(toolSignature(t));
  });
});
