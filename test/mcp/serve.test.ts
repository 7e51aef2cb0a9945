/**
 * `toolhost serve` driven by real MCP clients: the SDK Client over stdio (a spawned
 * `node bin/toolhost.mjs serve`), the MCP Inspector CLI, an HTTP client, and an in-process
 * client for exact per-generation list_changed counting.
 */
import fs from "node:fs";
import path from "node:path";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { createHost, type Host } from "../../core/index.ts";
import http from "node:http";
import { McpServeHub, parseResourceUri, refuseRequest, resourceUri } from "../../plugins/mcp-serve/serve.ts";
import { alive, INSPECTOR_CLI, NODE, SERVERS, stdio, TOOLHOST_BIN, tmpDir, waitFor, writeJson, writePolicyPlugin } from "./helpers.ts";

const ALLOW = ["mcp__quirky__echo", "mcp__quirky__slow", "mcp__quirky__cancelled", "mcp__quirky__add_tool", "mcp__quirky__remove_tool", "mcp__quirky__pid", "mcp__quirky__zz_*", "mcp__memory__*", "ToolSearch"];

/** A project dir whose config names the quirky fixture (all tools eager) and server-memory. */
function project(opts: { deny?: string[]; policyDeny?: string[] } = {}): string {
  const dir = tmpDir("toolhost-serve-");
  writePolicyPlugin(dir, { allow: ALLOW, deny: opts.policyDeny ?? ["mcp__quirky__crash"] });
  writeJson(path.join(dir, "toolhost.config.json"), {
    plugins: ["./policy-plugin"],
    permissions: { allow: ALLOW, deny: opts.deny ?? [] },
    mcpServers: {
      quirky: stdio(SERVERS.quirky, [], { alwaysLoad: true }),
      memory: stdio(SERVERS.memory, [], { env: { MEMORY_FILE_PATH: path.join(dir, "memory.jsonl") } }),
    },
  });
  return dir;
}

function text(r: unknown): string {
  return ((r as { content: Array<{ text?: string }> }).content ?? []).map((c) => c.text ?? "").join("\n");
}

async function connectSpawned(dir: string, opts: { elicit?: "allow" | "decline" } = {}) {
  const client = new Client({ name: "test-client", version: "1.0.0" }, { capabilities: opts.elicit ? { elicitation: {} } : {} });
  let listChanged = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanged++);
  const elicitations: string[] = [];
  if (opts.elicit) {
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      elicitations.push(String(req.params.message));
      return opts.elicit === "allow" ? { action: "accept", content: { decision: "allow" } } : { action: "decline" };
    });
  }
  const transport = new StdioClientTransport({ command: NODE, args: [TOOLHOST_BIN, "serve", "--cwd", dir, "--no-watch"], env: { ...process.env } as Record<string, string>, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
  await client.connect(transport);
  return { client, transport, elicitations, stderr: () => stderr, listChanged: () => listChanged };
}

describe("toolhost serve over stdio with the SDK client", () => {
  let dir: string;
  let c: Awaited<ReturnType<typeof connectSpawned>>;
  beforeAll(async () => {
    dir = project();
    c = await connectSpawned(dir);
  });
  afterAll(async () => {
    await c?.client.close();
  });

  it("lists the model-visible pool with raw JSON schemas", async () => {
    const { tools } = await c.client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain("mcp__quirky__echo");
    expect(names).toContain("mcp__quirky__no_type");
    expect(tools.find((t) => t.name === "mcp__quirky__no_type")!.inputSchema).toEqual({ type: "object", properties: { q: { type: "string" } } });
    expect(tools.find((t) => t.name === "mcp__quirky__echo")!.annotations?.readOnlyHint).toBe(true);
    expect(names).toContain("ToolSearch");
    expect(names).not.toContain("mcp__memory__read_graph");
  });

  it("runs an allowed call through the pipeline", async () => {
    const r = await c.client.callTool({ name: "mcp__quirky__echo", arguments: { text: "over the wire" } });
    expect(r.isError).toBeFalsy();
    expect(text(r)).toBe("over the wire");
  });

  it("a hook's deny holds for calls that arrive over MCP", async () => {
    const r = await c.client.callTool({ name: "mcp__quirky__crash", arguments: {} });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/Permission to use mcp__quirky__crash was denied: denied by the test policy/);
  });

  it("validation errors come back as tool errors a model can act on", async () => {
    const r = await c.client.callTool({ name: "mcp__quirky__echo", arguments: { wrong: 1 } });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/Invalid input for mcp__quirky__echo/);
  });

  it("an ask becomes a denial with a clear reason when the client cannot elicit", async () => {
    const r = await c.client.callTool({ name: "mcp__quirky__no_type", arguments: { q: "x" } });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/did not declare the elicitation capability/);
  });

  it("a client's cancellation interrupts the call and reaches the upstream server; the cancelled request gets no response", async () => {
    const count = async () => Number(text(await c.client.callTool({ name: "mcp__quirky__cancelled", arguments: {} })));
    const before = await count();
    const errors: unknown[] = [];
    const prev = c.client.onerror;
    c.client.onerror = (e) => void errors.push(e);
    try {
      const ac = new AbortController();
      setTimeout(() => ac.abort("user pressed Esc"), 150);
      await expect(c.client.callTool({ name: "mcp__quirky__slow", arguments: { ms: 5000 } }, undefined, { signal: ac.signal })).rejects.toThrow(/Esc/);
      // The slow call would take 5 s; the upstream server counts the cancellation long before.
      await waitFor(async () => (await count()) === before + 1, 4000, "the upstream server to see the cancellation");
      await new Promise((r) => setTimeout(r, 200));
      expect(errors.map(String).filter((e) => /unknown message ID/i.test(e))).toEqual([]);
      // Calls after a cancellation run normally.
      expect(text(await c.client.callTool({ name: "mcp__quirky__slow", arguments: { ms: 5 } }))).toBe("done");
    } finally {
      c.client.onerror = prev;
    }
  });

  it("sends exactly one tools/list_changed when an upstream server adds a tool", async () => {
    const before = c.listChanged();
    const r = await c.client.callTool({ name: "mcp__quirky__add_tool", arguments: { name: "zz_added" } });
    expect(text(r)).toBe("added zz_added");
    await waitFor(() => c.listChanged() > before, 10_000, "list_changed");
    const { tools } = await c.client.listTools();
    expect(tools.map((t) => t.name)).toContain("mcp__quirky__zz_added");
    await new Promise((res) => setTimeout(res, 400));
    expect(c.listChanged()).toBe(before + 1);
    const call = await c.client.callTool({ name: "mcp__quirky__zz_added", arguments: {} });
    expect(text(call)).toContain("zz_added called");
  });

  it("passes upstream resources and prompts through, namespaced", async () => {
    const { resources } = await c.client.listResources();
    const res = resources.find((x) => x.uri === resourceUri("quirky", "quirky://notes/one"))!;
    expect(res).toBeDefined();
    expect(res.name).toBe("quirky:note one");
    const read = await c.client.readResource({ uri: res.uri });
    expect(read.contents[0]).toMatchObject({ uri: res.uri, text: "contents of quirky://notes/one" });
    const { prompts } = await c.client.listPrompts();
    expect(prompts.map((p) => p.name)).toContain("mcp__quirky__greet");
    const p = await c.client.getPrompt({ name: "mcp__quirky__greet", arguments: { who: "toolhost" } });
    expect(JSON.stringify(p.messages)).toContain("Hello, toolhost!");
  });

  it("a deferred tool is callable after ToolSearch and then appears in tools/list (one list_changed)", async () => {
    const before = c.listChanged();
    const early = await c.client.callTool({ name: "mcp__memory__read_graph", arguments: {} });
    expect(early.isError).toBe(true);
    expect(text(early)).toMatch(/ToolSearch/);
    const found = await c.client.callTool({ name: "ToolSearch", arguments: { query: "select:mcp__memory__read_graph" } });
    expect(text(found)).toContain("mcp__memory__read_graph");
    await waitFor(() => c.listChanged() > before, 5000, "list_changed after ToolSearch");
    const { tools } = await c.client.listTools();
    expect(tools.map((t) => t.name)).toContain("mcp__memory__read_graph");
    const r = await c.client.callTool({ name: "mcp__memory__read_graph", arguments: {} });
    expect(r.isError).toBeFalsy();
    await new Promise((res) => setTimeout(res, 300));
    expect(c.listChanged()).toBe(before + 1);
  });

  it("logs to stderr only and leaves no child process behind", async () => {
    const pid = Number(text(await c.client.callTool({ name: "mcp__quirky__pid", arguments: {} })));
    expect(alive(pid)).toBe(true);
    expect(c.stderr()).toMatch(/toolhost serve: stdio/);
    const servePid = c.transport.pid!;
    await c.client.close();
    await waitFor(() => !alive(servePid), 10_000, "toolhost serve to exit");
    await waitFor(() => !alive(pid), 10_000, "upstream server to exit");
  });
});

describe("elicitation", () => {
  it("an ask becomes an MCP elicitation; accept runs the call, decline denies it", async () => {
    const dir = project();
    const yes = await connectSpawned(dir, { elicit: "allow" });
    try {
      const r = await yes.client.callTool({ name: "mcp__quirky__no_type", arguments: { q: "x" } });
      expect(yes.elicitations).toHaveLength(1);
      expect(yes.elicitations[0]).toMatch(/Allow mcp__quirky__no_type\?/);
      expect(r.isError).toBeFalsy();
      expect(text(r)).toContain("no_type called");
    } finally {
      await yes.client.close();
    }
    const no = await connectSpawned(dir, { elicit: "decline" });
    try {
      const r = await no.client.callTool({ name: "mcp__quirky__no_type", arguments: { q: "x" } });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/declined the approval request/);
    } finally {
      await no.client.close();
    }
  });
});

describe("MCP Inspector CLI", () => {
  let dir: string;
  beforeAll(() => {
    dir = project({ deny: ["mcp__quirky__slow"] });
  });
  const inspect = (...args: string[]) => {
    const r = spawnSync(NODE, [INSPECTOR_CLI, "--cli", NODE, TOOLHOST_BIN, "serve", `--cwd=${dir}`, "--no-watch", ...args], { encoding: "utf8", timeout: 60_000 });
    if (r.status !== 0) throw new Error(`inspector exited ${r.status}: ${r.stderr}\n${r.stdout}`);
    return JSON.parse(r.stdout.slice(r.stdout.indexOf("{")));
  };

  it("tools/list", () => {
    const out = inspect("--method", "tools/list");
    expect(out.tools.map((t: { name: string }) => t.name)).toContain("mcp__quirky__echo");
  });

  it("tools/call with --tool-arg", () => {
    const out = inspect("--method", "tools/call", "--tool-name", "mcp__quirky__echo", "--tool-arg", "text=hello inspector");
    expect(out.content[0].text).toBe("hello inspector");
    expect(out.isError).toBeFalsy();
  });

  it("a denied call", () => {
    const out = inspect("--method", "tools/call", "--tool-name", "mcp__quirky__crash");
    expect(out.isError).toBe(true);
    expect(out.content[0].text).toMatch(/denied/);
  });

  it("ToolSearch finds a deferred tool; a fresh session must search before calling it", () => {
    // The Inspector CLI runs one request per process, i.e. one session each: the load does not carry over.
    const found = inspect("--method", "tools/call", "--tool-name", "ToolSearch", "--tool-arg", "query=select:mcp__memory__read_graph");
    expect(JSON.stringify(found.content)).toContain("mcp__memory__read_graph");
    const out = inspect("--method", "tools/call", "--tool-name", "mcp__memory__read_graph");
    expect(out.isError).toBe(true);
    expect(out.content[0].text).toMatch(/deferred.*ToolSearch/s);
  });

  it("a call denied by config permissions.deny", () => {
    const out = inspect("--method", "tools/call", "--tool-name", "mcp__quirky__slow", "--tool-arg", "ms=1");
    expect(out.isError).toBe(true);
    expect(out.content[0].text).toMatch(/den(y|ied)/i);
  });
});

describe("list_changed exactly once per visible change (in-process client)", () => {
  let host: Host;
  let hub: McpServeHub;
  let client: Client;
  let count = 0;
  let cfgFile: string;
  let dir: string;
  beforeAll(async () => {
    dir = tmpDir("toolhost-serve-ip-");
    cfgFile = path.join(dir, "toolhost.config.json");
    writeJson(cfgFile, { mcpServers: { quirky: stdio(SERVERS.quirky, [], { alwaysLoad: true, include: ["echo", "pid"] }) } });
    host = await createHost({ cwd: dir, debounceMs: 10 });
    hub = new McpServeHub(host, { log: () => {} });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await hub.createSession().connect(a);
    // A client that can be asked (elicitation) is offered every tool; one that cannot is not offered
    // tools that always need approval (test/trust/filters.test.ts).
    client = new Client({ name: "in-process", version: "1" }, { capabilities: { elicitation: { form: {} } } });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void count++);
    await client.connect(b);
  });
  afterAll(async () => {
    await client?.close();
    await host?.close();
  });

  const settle = () => new Promise((r) => setTimeout(r, 150));

  it("a rebuild that changes nothing visible sends nothing", async () => {
    await client.listTools();
    await host.rebuild("no-op");
    await settle();
    expect(count).toBe(0);
  });

  it("a rebuild that adds a visible tool sends exactly one", async () => {
    writeJson(cfgFile, { mcpServers: { quirky: stdio(SERVERS.quirky, [], { alwaysLoad: true, include: ["echo", "pid", "no_type"] }) } });
    await host.rebuild("include widened");
    await settle();
    expect(count).toBe(1);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("mcp__quirky__no_type");
    await host.rebuild("again, unchanged");
    await settle();
    expect(count).toBe(1);
  });

  it("a tool-level change (description/schema) counts; each generation at most one", async () => {
    writeJson(cfgFile, { mcpServers: { quirky: stdio(SERVERS.quirky, [], { alwaysLoad: true, include: ["echo"] }) } });
    await host.rebuild("narrowed");
    await settle();
    expect(count).toBe(2);
  });

  it("a client connection that closes ends its host session (loaded tools and state are dropped)", async () => {
    const [a, b] = InMemoryTransport.createLinkedPair();
    const session = hub.createSession();
    await session.connect(a);
    const other = new Client({ name: "short-lived", version: "1" });
    await other.connect(b);
    host.session(session.sessionId).load(["mcp__quirky__pid"]);
    host.session(session.sessionId).shared.set("k", 1);
    expect(hub.sessions.has(session)).toBe(true);
    await other.close();
    await waitFor(() => !hub.sessions.has(session), 5000, "the session to close");
    expect(host.session(session.sessionId).loaded).toEqual([]); // a fresh one
    expect(host.session(session.sessionId).shared.size).toBe(0);
    expect(host.endSession(session.sessionId)).toBe(true);
    expect(host.endSession(session.sessionId)).toBe(false);
  });

  it("namespaced resource URIs round-trip", () => {
    const u = resourceUri("plugin_x_y", "file:///a b/c?d=1#e");
    expect(parseResourceUri(u)).toEqual({ segment: "plugin_x_y", uri: "file:///a b/c?d=1#e" });
    expect(parseResourceUri("file:///x")).toBeUndefined();
  });
});

describe("toolhost serve --http", () => {
  let proc: ChildProcess;
  let url: string;
  let err = "";
  beforeAll(async () => {
    const dir = project();
    proc = spawn(NODE, [TOOLHOST_BIN, "serve", "--http", "0", "--idle-timeout", "0.6", "--cwd", dir, "--no-watch"], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    proc.stdout!.on("data", (d) => (out += d));
    proc.stderr!.on("data", (d) => (err += d));
    url = await waitFor(() => /Streamable HTTP on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err)?.[1], 30_000, "serve --http to listen");
    expect(out).toBe("");
  });
  afterAll(async () => {
    proc?.kill("SIGTERM");
    await new Promise((r) => proc?.once("exit", r));
  });

  it("serves two clients with separate sessions on 127.0.0.1", async () => {
    const a = new Client({ name: "a", version: "1" });
    const b = new Client({ name: "b", version: "1" });
    await a.connect(new StreamableHTTPClientTransport(new URL(url)));
    await b.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      const ra = await a.callTool({ name: "mcp__quirky__echo", arguments: { text: "A" } });
      const rb = await b.callTool({ name: "mcp__quirky__echo", arguments: { text: "B" } });
      expect(text(ra)).toBe("A");
      expect(text(rb)).toBe("B");
      expect((await a.listTools()).tools.length).toBeGreaterThan(3);
    } finally {
      await a.close();
      await b.close();
    }
  });

  /** A raw request with headers fetch() would not let us set (Host). */
  const raw = (headers: Record<string, string>) =>
    new Promise<number>((resolve, reject) => {
      const u = new URL(url);
      const req = http.request({ hostname: u.hostname, port: u.port, path: u.pathname, method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      req.end(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } } }));
    });

  it("refuses a foreign Host (DNS rebinding) and a foreign browser Origin with 403, and says so on stderr", async () => {
    const port = new URL(url).port;
    expect(await raw({ host: `evil.example:${port}` })).toBe(403);
    expect(await raw({ host: `127.0.0.1:${port}`, origin: "http://evil.example" })).toBe(403);
    expect(await raw({ host: `localhost:${port}`, origin: `http://localhost:${port}` })).toBe(200);
    expect(err).toMatch(/refused: Host "evil\.example:\d+" is not this loopback server/);
  });

  /** What the server answers to a request on an old session id (404 once the session is gone). */
  const probe = async (sid: string) =>
    (await fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": sid, "mcp-protocol-version": "2025-06-18" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) })).status;

  it("ends a session the client DELETEs, and one that went away without DELETE after the idle timeout; an active one stays", async () => {
    // A finished client that ends its session (DELETE).
    const ta = new StreamableHTTPClientTransport(new URL(url));
    const a = new Client({ name: "a", version: "1" });
    await a.connect(ta);
    expect(text(await a.callTool({ name: "mcp__quirky__echo", arguments: { text: "A" } }))).toBe("A");
    const sidA = ta.sessionId!;
    await ta.terminateSession();
    await a.close();
    await waitFor(() => err.includes(`session ${sidA} closed: the client ended it (DELETE)`), 5000, "the DELETEd session to close");
    expect(await probe(sidA)).toBe(404);

    // A client that goes away without DELETE (its connections closed), and one that keeps calling.
    const tb = new StreamableHTTPClientTransport(new URL(url));
    const b = new Client({ name: "b", version: "1" });
    await b.connect(tb);
    const sidB = tb.sessionId!;
    const tc = new StreamableHTTPClientTransport(new URL(url));
    const c = new Client({ name: "c", version: "1" });
    await c.connect(tc);
    const sidC = tc.sessionId!;
    await b.close(); // closes its HTTP connections, sends no DELETE
    expect(err).not.toContain(`session ${sidB} closed`);
    const t0 = Date.now();
    while (Date.now() - t0 < 1800) {
      expect(text(await c.callTool({ name: "mcp__quirky__echo", arguments: { text: "C" } }))).toBe("C");
      await new Promise((r) => setTimeout(r, 100));
    }
    await waitFor(() => /session [^ ]+ closed: idle for \d+ s/.test(err) && err.includes(`session ${sidB} closed: idle`), 5000, "the abandoned session to expire");
    expect(await probe(sidB)).toBe(404);
    expect(err).not.toContain(`session ${sidC} closed`);
    expect(await probe(sidC)).toBe(200);
    await c.close();
  });
});

describe("toolhost serve --http with TOOLHOST_SERVE_TOKEN", () => {
  let proc: ChildProcess;
  let url: string;
  beforeAll(async () => {
    const dir = project();
    let err = "";
    proc = spawn(NODE, [TOOLHOST_BIN, "serve", "--http", "0", "--cwd", dir, "--no-watch"], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, TOOLHOST_SERVE_TOKEN: "s3cret-token" } });
    proc.stderr!.on("data", (d) => (err += d));
    url = await waitFor(() => /Streamable HTTP on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err)?.[1], 30_000, "serve --http to listen");
    expect(err).toContain("bearer token required");
  });
  afterAll(async () => {
    proc?.kill("SIGTERM");
    await new Promise((r) => proc?.once("exit", r));
  });

  it("a client without the token is refused (401); with it, it works", async () => {
    const anon = new Client({ name: "anon", version: "1" });
    await expect(anon.connect(new StreamableHTTPClientTransport(new URL(url)))).rejects.toThrow(/401|token/);
    const c = new Client({ name: "ok", version: "1" });
    await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: "Bearer s3cret-token" } } }));
    try {
      expect((await c.listTools()).tools.length).toBeGreaterThan(3);
    } finally {
      await c.close();
    }
  });

  it("refuseRequest: host, origin and token rules", () => {
    expect(refuseRequest({ host: "127.0.0.1:80" }, 80)).toBeUndefined();
    expect(refuseRequest({ host: "[::1]:80" }, 80)).toBeUndefined();
    expect(refuseRequest({ host: "127.0.0.1:81" }, 80)?.status).toBe(403);
    expect(refuseRequest({ host: "127.0.0.1:80", origin: "null" }, 80)?.status).toBe(403);
    expect(refuseRequest({ host: "127.0.0.1:80" }, 80, "t")?.status).toBe(401);
    expect(refuseRequest({ host: "127.0.0.1:80", authorization: "Bearer tt" }, 80, "t")?.status).toBe(401);
    expect(refuseRequest({ host: "127.0.0.1:80", authorization: "bearer t" }, 80, "t")).toBeUndefined();
  });
});
