/**
 * The MCP client plugin against real servers from npm (memory, filesystem, everything) and the
 * quirky fixture server, all spawned over stdio through the real host.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, resultText, type Host } from "../../core/index.ts";
import { alive, NODE, SERVERS, stdio, tmpDir, waitFor, writeJson, mcpOf } from "./helpers.ts";

function pidOf(host: Host, segment: string): number | undefined {
  return mcpOf(host)?.bySegment(segment)?.pid;
}

describe("real npm MCP servers over stdio", () => {
  let dir: string;
  let host: Host;
  beforeAll(async () => {
    dir = tmpDir();
    fs.writeFileSync(path.join(dir, "hello.txt"), "hello from a temp dir\n");
    writeJson(path.join(dir, "toolhost.config.json"), {
      mcpServers: {
        memory: stdio(SERVERS.memory, [], { env: { MEMORY_FILE_PATH: path.join(dir, "memory.jsonl") } }),
        filesystem: stdio(SERVERS.filesystem, [dir]),
        everything: stdio(SERVERS.everything),
      },
    });
    host = await createHost({ cwd: dir });
  });
  afterAll(async () => {
    await host?.close();
  });

  it("lists every server's tools as mcp__<server>__<tool> with provenance", () => {
    const all = [...host.pool.tools, ...host.pool.deferred];
    const names = all.map((t) => t.name);
    for (const n of ["mcp__memory__create_entities", "mcp__memory__read_graph", "mcp__filesystem__read_text_file", "mcp__filesystem__write_file", "mcp__everything__echo"]) {
      expect(names).toContain(n);
    }
    const t = host.pool.byName.get("mcp__memory__create_entities")!;
    expect(t.origin).toBe("mcp");
    expect(t.plugin).toBe("config");
    expect(t.server).toBe("memory");
    expect(t.sourceName).toBe("create_entities");
    expect(t.file).toBe(path.join(dir, "toolhost.config.json"));
    expect(host.problems().filter((p) => p.severity === "error")).toEqual([]);
    for (const n of names) expect(n).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
  });

  it("calls tools through the whole pipeline", async () => {
    const o = await host.execute(
      "mcp__memory__create_entities",
      { entities: [{ name: "toolhost", entityType: "project", observations: ["runs MCP tools"] }] },
      { yes: true, autoLoadDeferred: true },
    );
    expect(o.status).toBe("ok");
    expect(o.trace.map((t) => t.stage)).toEqual(expect.arrayContaining(["lookup", "validate", "call"]));
    const g = await host.execute("mcp__memory__read_graph", {}, { yes: true, autoLoadDeferred: true });
    expect(resultText(g.result)).toContain("runs MCP tools");

    const w = await host.execute("mcp__filesystem__write_file", { path: path.join(dir, "out.txt"), content: "written via MCP" }, { yes: true, autoLoadDeferred: true });
    expect(w.status).toBe("ok");
    expect(fs.readFileSync(path.join(dir, "out.txt"), "utf8")).toBe("written via MCP");
    const r = await host.execute("mcp__filesystem__read_text_file", { path: path.join(dir, "hello.txt") }, { yes: true, autoLoadDeferred: true });
    expect(resultText(r.result)).toContain("hello from a temp dir");

    const e = await host.execute("mcp__everything__echo", { message: "ping" }, { yes: true, autoLoadDeferred: true });
    expect(resultText(e.result)).toContain("ping");
  });

  it("validates input with the server's schema before calling", async () => {
    const o = await host.execute("mcp__everything__echo", { nope: 1 }, { yes: true, autoLoadDeferred: true });
    expect(o.status).toBe("invalid-input");
    expect(o.executed).toBe(false);
  });

  it("a server outside the sandbox answers with an error result, not a crash", async () => {
    const o = await host.execute("mcp__filesystem__read_text_file", { path: "/etc/passwd" }, { yes: true, autoLoadDeferred: true });
    expect(o.result.isError).toBe(true);
    expect(resultText(o.result)).toMatch(/denied|outside|not allowed/i);
  });

  it("MCP tools are deferred and found with ToolSearch", async () => {
    expect(host.pool.deferral.get("mcp__memory__create_entities")?.defer).toBe(true);
    expect(host.pool.tools.map((t) => t.name)).toContain("ToolSearch");
    const before = await host.execute("mcp__memory__read_graph", {}, { yes: true, sessionId: "s-defer" });
    expect(before.status).toBe("unknown-tool");
    expect(resultText(before.result)).toMatch(/ToolSearch/);
    const found = await host.execute("ToolSearch", { query: "select:mcp__memory__read_graph" }, { yes: true, sessionId: "s-defer" });
    expect(resultText(found.result)).toContain("mcp__memory__read_graph");
    expect(host.visibleTools("s-defer").map((t) => t.name)).toContain("mcp__memory__read_graph");
    const after = await host.execute("mcp__memory__read_graph", {}, { yes: true, sessionId: "s-defer" });
    expect(after.status).toBe("ok");
    const kw = await host.execute("ToolSearch", { query: "knowledge graph entities" }, { yes: true, sessionId: "s-kw" });
    expect(resultText(kw.result)).toMatch(/mcp__memory__/);
  });

  it("keeps unchanged servers running across rebuilds (same PID)", async () => {
    const pids = ["memory", "filesystem", "everything"].map((s) => pidOf(host, s));
    for (const p of pids) expect(alive(p)).toBe(true);
    const r = await host.rebuild("test");
    expect(r.ok).toBe(true);
    expect(["memory", "filesystem", "everything"].map((s) => pidOf(host, s))).toEqual(pids);
  });
});

describe("quirky fixture server", () => {
  let dir: string;
  let host: Host;
  const cfgFile = () => path.join(dir, "toolhost.config.json");
  const writeCfg = (servers: Record<string, unknown>) => writeJson(cfgFile(), { mcpServers: servers });
  beforeAll(async () => {
    dir = tmpDir();
    writeCfg({
      quirky: stdio(SERVERS.quirky, [], { timeout: 1500 }),
      loud: stdio(SERVERS.quirky, [], { env: { QUIRKY_STDOUT_BANNER: "1" }, include: ["echo", "p*"], exclude: ["pid"] }),
      broken: stdio(SERVERS.quirky, [], { env: { QUIRKY_MODE: "fail" } }),
    });
    host = await createHost({ cwd: dir });
  });
  afterAll(async () => {
    await host?.close();
  });

  const tool = (n: string) => host.pool.byName.get(n);

  it("keeps tools whose schema lacks type (or is missing), with a note", () => {
    const nt = tool("mcp__quirky__no_type")!;
    expect(nt.inputSchema).toEqual({ type: "object", properties: { q: { type: "string" } } });
    expect(nt.notes?.join(" ")).toMatch(/no "type"/);
    const ns = tool("mcp__quirky__no_schema")!;
    expect(ns.inputSchema).toEqual({ type: "object" });
    expect(ns.notes?.join(" ")).toMatch(/no inputSchema/);
  });

  it("truncates huge descriptions at 2 KB and says so in explain", () => {
    const h = tool("mcp__quirky__huge")!;
    expect(h.description.length).toBeLessThanOrEqual(2048 + 20);
    expect(host.explain("mcp__quirky__huge").notes?.join(" ")).toMatch(/truncated from \d+ to 2048/);
  });

  it("sanitises and shortens names deterministically within 64 characters", () => {
    expect(tool("mcp__quirky__weird_name_with_spaces")?.sourceName).toBe("weird.name/with spaces");
    const long = [...host.pool.byName.values()].find((t) => t.sourceName?.startsWith("a_really_long") && t.server === "quirky")!;
    expect(long.name.length).toBeLessThanOrEqual(64);
    expect(long.name).toMatch(/^mcp__quirky__a_really_long[A-Za-z0-9_]*_[0-9a-f]{6}$/);
    const e = host.explain(long.name);
    expect(e.notes?.join(" ")).toMatch(/shortened from "mcp__quirky__a_really_long/);
    expect(e.tool?.sourceName).toBe("a_really_long_tool_name_that_goes_on_and_on_and_on_past_the_limit_of_providers");
  });

  it("carries _meta and alwaysLoad", () => {
    const a = tool("mcp__quirky__always")!;
    expect(a.alwaysLoad).toBe(true);
    expect((a.extra?._meta as Record<string, unknown>)["x-custom"]).toBe(1);
    expect(tool("mcp__quirky__echo")!.alwaysLoad).toBe(false);
    expect(tool("mcp__quirky__echo")!.isReadOnly).toBe(true);
  });

  it("calls the renamed tools by their original names", async () => {
    const o = await host.execute("mcp__quirky__weird_name_with_spaces", { a: 1 }, { yes: true, autoLoadDeferred: true });
    expect(resultText(o.result)).toBe('weird.name/with spaces called with {"a":1}');
  });

  it("tolerates banners on stderr and stdout; applies include/exclude", async () => {
    const loud = [...host.pool.byName.values()].filter((t) => t.server === "loud").map((t) => t.sourceName);
    expect(loud.sort()).toEqual(["echo"]);
    const o = await host.execute("mcp__loud__echo", { text: "still works" }, { yes: true, autoLoadDeferred: true });
    expect(resultText(o.result)).toBe("still works");
  });

  it("reports a failing server with file, JSON path and its stderr, and the others still work", () => {
    const p = host.problems().find((x) => x.message.includes('"broken"'))!;
    expect(p).toBeDefined();
    expect(p.severity).toBe("warning");
    expect(p.file).toBe(cfgFile());
    expect(p.path).toBe("/mcpServers/broken");
    expect(p.message).toContain("cannot open database");
    expect(tool("mcp__quirky__echo")).toBeDefined();
  });

  it("applies the per-server call timeout", async () => {
    const o = await host.execute("mcp__quirky__slow", { ms: 5000 }, { yes: true, autoLoadDeferred: true });
    expect(o.result.isError).toBe(true);
    expect(resultText(o.result)).toMatch(/timed out after 1500 ms/);
  });

  it("re-lists on notifications/tools/list_changed and rebuilds the pool", async () => {
    const gen = host.pool.generation;
    const o = await host.execute("mcp__quirky__add_tool", { name: "fresh_tool" }, { yes: true, autoLoadDeferred: true });
    expect(resultText(o.result)).toBe("added fresh_tool");
    await waitFor(() => tool("mcp__quirky__fresh_tool"), 10_000, "fresh_tool in the pool");
    expect(host.pool.generation).toBeGreaterThan(gen);
    const c = await host.execute("mcp__quirky__fresh_tool", {}, { yes: true, autoLoadDeferred: true });
    expect(resultText(c.result)).toContain("fresh_tool called");
    await host.execute("mcp__quirky__remove_tool", { name: "fresh_tool" }, { yes: true, autoLoadDeferred: true });
    await waitFor(() => !tool("mcp__quirky__fresh_tool"), 10_000, "fresh_tool gone");
  });

  it("a server that dies mid-call yields an error result with its stderr, reconnects and rebuilds", async () => {
    const pid = pidOf(host, "quirky");
    const gen = host.pool.generation;
    const o = await host.execute("mcp__quirky__crash", {}, { yes: true, autoLoadDeferred: true });
    expect(o.result.isError).toBe(true);
    const text = resultText(o.result);
    expect(text).toMatch(/exited during the call to crash/);
    expect(text).toContain("panic: crashing on purpose");
    await waitFor(() => host.pool.generation > gen && pidOf(host, "quirky") !== pid && mcpOf(host)?.bySegment("quirky")?.status === "connected", 15_000, "reconnect + rebuild");
    expect(alive(pid)).toBe(false);
    const again = await host.execute("mcp__quirky__echo", { text: "back" }, { yes: true, autoLoadDeferred: true });
    expect(resultText(again.result)).toBe("back");
  });

  it("restarts a changed server, stops a removed one, keeps an unchanged one", async () => {
    const quirkyPid = pidOf(host, "quirky")!;
    const loudPid = pidOf(host, "loud")!;
    writeCfg({
      quirky: stdio(SERVERS.quirky, [], { timeout: 1500 }),
      loud: stdio(SERVERS.quirky, [], { env: { QUIRKY_STDOUT_BANNER: "1", CHANGED: "1" } }),
    });
    const r = await host.rebuild("config changed");
    expect(r.ok).toBe(true);
    expect(pidOf(host, "quirky")).toBe(quirkyPid);
    const newLoud = pidOf(host, "loud");
    expect(newLoud).toBeDefined();
    expect(newLoud).not.toBe(loudPid);
    await waitFor(() => !alive(loudPid), 5000, "old loud process to exit");
    expect(tool("mcp__loud__pid")).toBeDefined(); // include/exclude removed with the change
    writeCfg({ quirky: stdio(SERVERS.quirky, [], { timeout: 1500 }) });
    await host.rebuild("server removed");
    expect(tool("mcp__loud__echo")).toBeUndefined();
    await waitFor(() => !alive(newLoud), 5000, "removed server to exit");
  });

  it("host.close() leaves no child process behind", async () => {
    const pid = pidOf(host, "quirky")!;
    expect(alive(pid)).toBe(true);
    await host.close();
    await waitFor(() => !alive(pid), 5000, "child to exit after close");
  });
});

describe("interrupting an MCP call", () => {
  let host: Host;
  beforeAll(async () => {
    const dir = tmpDir();
    // No per-server timeout: only the interrupt can cancel the slow call.
    writeJson(path.join(dir, "toolhost.config.json"), { mcpServers: { quirky: stdio(SERVERS.quirky, [], { include: ["slow", "cancelled"] }) } });
    host = await createHost({ cwd: dir });
  });
  afterAll(async () => {
    await host?.close();
  });

  it("cancels the upstream request when the call is interrupted (notifications/cancelled reaches the server)", async () => {
    const opts = { yes: true, autoLoadDeferred: true };
    const count = async () => Number(resultText((await host.execute("mcp__quirky__cancelled", {}, opts)).result));
    const before = await count();
    const ac = new AbortController();
    const t0 = Date.now();
    setTimeout(() => ac.abort(new Error("user pressed Esc")), 150);
    const o = await host.execute("mcp__quirky__slow", { ms: 5000 }, { ...opts, signal: ac.signal });
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(o.result.isError).toBe(true);
    expect(resultText(o.result)).toMatch(/mcp__quirky__slow was interrupted: user pressed Esc/);
    await waitFor(async () => (await count()) === before + 1, 5000, "the server to see the cancellation");
    // A call that is not interrupted is not cancelled.
    expect(resultText((await host.execute("mcp__quirky__slow", { ms: 10 }, opts)).result)).toBe("done");
    expect(await count()).toBe(before + 1);
  });

});

describe("startup timeout", () => {
  it("a slow server never blocks the others; its tools arrive when it is ready", async () => {
    const dir = tmpDir();
    writeJson(path.join(dir, "toolhost.config.json"), {
      mcpServers: {
        fast: stdio(SERVERS.quirky),
        slow: stdio(SERVERS.quirky, [], { env: { QUIRKY_MODE: "slow-start", QUIRKY_DELAY: "4000" }, startupTimeout: 400 }),
      },
    });
    const host = await createHost({ cwd: dir });
    try {
      // The host started without waiting for the slow server (it is still sleeping).
      expect(host.pool.byName.get("mcp__fast__echo")).toBeDefined();
      expect(host.pool.byName.get("mcp__slow__echo")).toBeUndefined();
      const p = host.problems().find((x) => x.message.includes('"slow"'))!;
      expect(p.message).toMatch(/did not finish starting within 400 ms/);
      expect(p.path).toBe("/mcpServers/slow");
      await waitFor(() => host.pool.byName.get("mcp__slow__echo"), 10_000, "slow server's tools");
    } finally {
      await host.close();
    }
  });
});

describe("plugin-provided servers", () => {
  it("names them mcp__plugin_<plugin>_<server>__<tool> and substitutes ${CLAUDE_PLUGIN_ROOT}", async () => {
    const dir = tmpDir();
    const plug = path.join(dir, "my-plugin");
    fs.mkdirSync(path.join(plug, "server"), { recursive: true });
    fs.copyFileSync(SERVERS.quirky, path.join(plug, "server", "quirky.mjs"));
    // resolve the SDK from the project's node_modules
    fs.symlinkSync(path.join(path.dirname(SERVERS.quirky), "..", "..", "..", "node_modules"), path.join(plug, "node_modules"));
    writeJson(path.join(plug, ".claude-plugin", "plugin.json"), { name: "my-plugin" });
    writeJson(path.join(plug, ".mcp.json"), { mcpServers: { q: { command: process.execPath, args: ["${CLAUDE_PLUGIN_ROOT}/server/quirky.mjs"], include: ["echo"] } } });
    const host = await createHost({ cwd: dir, pluginDirs: [plug] });
    try {
      const t = host.pool.byName.get("mcp__plugin_my-plugin_q__echo")!;
      expect(t).toBeDefined();
      expect(t.plugin).toBe("my-plugin");
      expect(t.server).toBe("plugin:my-plugin:q");
      expect(t.file).toBe(path.join(plug, ".mcp.json"));
      const o = await host.execute(t.name, { text: "from a plugin" }, { yes: true, autoLoadDeferred: true });
      expect(resultText(o.result)).toBe("from a plugin");
    } finally {
      await host.close();
    }
  });
});

/**
 * Issue 12, item 6: a failed server is retried with backoff for as long as it is configured. The server
 * is the real memory server behind a shell gate that exits 1 (and says why on stderr) until a flag file
 * exists, and logs every start attempt. Backoff is shortened for the test (40 ms doubling, capped at 400 ms;
 * by default 250 ms doubling, capped at 30 s).
 */
describe("a failed MCP server is retried until it comes back", () => {
  const MAX = 400;
  beforeAll(() => Object.assign(process.env, { TOOLHOST_MCP_RETRY_BASE_MS: "40", TOOLHOST_MCP_RETRY_MAX_MS: String(MAX) }));
  afterAll(() => {
    delete process.env.TOOLHOST_MCP_RETRY_BASE_MS;
    delete process.env.TOOLHOST_MCP_RETRY_MAX_MS;
  });

  function gated(dir: string) {
    const flag = path.join(dir, "up.flag");
    const log = path.join(dir, "attempts.log");
    const script = `echo $(date +%s%3N) >> '${log}'; [ -f '${flag}' ] || { echo "gate: flag file missing" >&2; exit 1; }; exec '${NODE}' '${SERVERS.memory}'`;
    writeJson(path.join(dir, "toolhost.config.json"), { mcpServers: { gated: { command: "/bin/sh", args: ["-c", script], env: { MEMORY_FILE_PATH: path.join(dir, "memory.jsonl") } } } });
    const attempts = () => (fs.existsSync(log) ? fs.readFileSync(log, "utf8").trim().split("\n").filter(Boolean).map(Number) : []);
    return { flag, attempts };
  }

  async function startHost(dir: string) {
    const host = await createHost({ cwd: dir, debounceMs: 20 });
    const changed: Array<{ added: string[]; removed: string[] }> = [];
    host.hooks.poolChanged.tap("test", (_p, diff) => void changed.push({ added: [...diff.added], removed: [...diff.removed] }));
    return { host, changed };
  }
  const has = (host: Host) => host.pool.byName.has("mcp__gated__read_graph") || host.pool.deferred.some((t) => t.name === "mcp__gated__read_graph");

  it("a server that died and could not restart is removed after the reconnects, then returns on its own: one pool change each way", async () => {
    const dir = tmpDir();
    const { flag, attempts } = gated(dir);
    fs.writeFileSync(flag, "");
    const { host, changed } = await startHost(dir);
    try {
      expect(has(host)).toBe(true);
      const pid = mcpOf(host)!.bySegment("gated")!.pid!;
      fs.rmSync(flag);
      process.kill(pid, "SIGKILL");
      await waitFor(() => !has(host), 15_000, "its tools removed after the reconnects gave up");
      expect(changed.filter((c) => c.removed.includes("mcp__gated__read_graph"))).toHaveLength(1);
      // Retries go on in the background and change nothing while they fail.
      const n = attempts().length;
      const before = changed.length;
      await waitFor(() => attempts().length >= n + 3, 15_000, "background retries");
      expect(changed.length).toBe(before);
      expect(mcpOf(host)!.bySegment("gated")!.error).toContain("gate: flag file missing");
      fs.writeFileSync(flag, "");
      await waitFor(() => has(host), 15_000, "the server to come back with no config change");
      await new Promise((r) => setTimeout(r, 1000));
      const back = changed.slice(before);
      expect(back).toHaveLength(1);
      expect(back[0]!.added).toContain("mcp__gated__read_graph");
      const o = await host.execute("mcp__gated__read_graph", {}, { yes: true, autoLoadDeferred: true });
      expect(o.status).toBe("ok");
    } finally {
      await host.close();
    }
  });

  it("a server that never started is retried with capped backoff, arrives with one pool change, and retries stop when it is unconfigured or the host closes", async () => {
    const dir = tmpDir();
    const { flag, attempts } = gated(dir);
    const { host, changed } = await startHost(dir);
    try {
      expect(has(host)).toBe(false);
      expect(host.problems().some((p) => /MCP server "gated" failed/.test(p.message))).toBe(true);
      await waitFor(() => attempts().length >= 8, 15_000, "retries");
      const gaps = attempts().slice(1).map((t, i) => t - attempts()[i]!);
      // Exponential, then capped at maxMs (400 ms here; 30 s by default).
      expect(Math.max(...gaps)).toBeLessThan(MAX + 1500);
      expect(gaps.at(-1)!).toBeGreaterThanOrEqual(MAX - 50);
      expect(changed).toHaveLength(0);
      fs.writeFileSync(flag, "");
      await waitFor(() => has(host), 15_000, "the server to arrive");
      await new Promise((r) => setTimeout(r, 800));
      expect(changed).toHaveLength(1);
      // Fail it again (gate closed, process killed), then unconfigure it: no more attempts.
      fs.rmSync(flag);
      process.kill(mcpOf(host)!.bySegment("gated")!.pid!, "SIGKILL");
      await waitFor(() => !has(host), 15_000, "removed again");
      writeJson(path.join(dir, "toolhost.config.json"), { mcpServers: {} });
      await host.rebuild("unconfigured");
      const n = attempts().length;
      await new Promise((r) => setTimeout(r, 3 * MAX));
      expect(attempts().length).toBe(n);
    } finally {
      await host.close();
    }
  });

  it("closing the host stops the retries of a failed server", async () => {
    const dir = tmpDir();
    const { attempts } = gated(dir);
    const { host } = await startHost(dir);
    await waitFor(() => attempts().length >= 3, 15_000, "retries");
    await host.close();
    const n = attempts().length;
    await new Promise((r) => setTimeout(r, 3 * MAX));
    expect(attempts().length).toBe(n);
  });
});
