/**
 * `toolhost serve --http` on several instances (issue 16 item 3), all real: three serve processes sharing
 * a redis-server, behind HAProxy. Stateful mode: affinity on Mcp-Session-Id; one instance is killed
 * mid-run, another takes the client's MCP session over (or the client re-initializes on another) and it
 * keeps its loaded tools (ToolSearch), approvals and read state, and every call is in exactly one
 * instance's transcript. Stateless mode: round robin, any
 * instance serves any request of a session named by header, `_meta` or Mcp-Session-Id. A background task
 * asked on another instance answers "runs on instance X". An MCP session's request on an instance that did
 * not open it is taken over from the store, not a 404 (needs redis-server only).
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { tmpdir } from "../helpers.ts";
import { connectClient, startHaproxy, startInstance, text, transcripts, writeProject, type Balancer, type FleetClient, type Instance } from "./harness.ts";
import { need, startRedis, type RedisServer } from "./servers.ts";

const redisBin = need("redis-server");
const haproxyBin = need("haproxy");
const skip = typeof redisBin !== "string" || typeof haproxyBin !== "string";

let redis: RedisServer;
const stops: (() => Promise<void>)[] = [];
beforeAll(async () => {
  if (typeof redisBin === "string") redis = await startRedis(redisBin);
});
afterAll(async () => {
  for (const s of stops.reverse()) await s().catch(() => {});
  await redis?.stop();
});

async function fleet(n: number, dir: string, stateless: boolean): Promise<{ instances: Instance[]; lb: Balancer }> {
  const lbPort = await (await import("./servers.ts")).freePort();
  const config = {
    plugins: [path.join(dir, "deferred-plugin")],
    permissions: { allow: ["Inventory_lookup", "Edit"] },
    sessions: { backend: "redis", url: redis.url, prefix: `fleet-${path.basename(dir)}:` },
  };
  const names = ["a", "b", "c"].slice(0, n);
  const instances = await Promise.all(names.map((name) => startInstance({ name, cwd: dir, config, stateless, allowHosts: [`127.0.0.1:${lbPort}`] })));
  for (const i of instances) stops.push(() => i.kill("SIGTERM"));
  const lb = await startHaproxy(haproxyBin as string, instances, { sticky: !stateless, port: lbPort });
  stops.push(lb.stop);
  return { instances, lb };
}

const call = (c: FleetClient, name: string, args: Record<string, unknown>) => c.client.callTool({ name, arguments: args });

describe.skipIf(skip)("stateful serve --http behind HAProxy (affinity on Mcp-Session-Id)", () => {
  it("kill the instance mid-run: another instance takes the MCP session over with its loaded tools, approvals and read state; the transcript has every call once", async () => {
    const dir = tmpdir("toolhost-fleet-");
    writeProject(dir);
    const { instances, lb } = await fleet(3, dir, false);
    let c = await connectClient(lb.url, { session: "agent-1", answer: "allow always" });
    const before = (await c.client.listTools()).tools.map((t) => t.name);
    expect(before).not.toContain("Inventory_lookup");
    const found = await call(c, "ToolSearch", { query: "select:Inventory_lookup" });
    expect(text(found)).toContain("Inventory_lookup");
    expect(text(await call(c, "Inventory_lookup", { part: "p-1" }))).toContain("stock of p-1: 42");
    expect((await call(c, "Read", { file_path: path.join(dir, "notes.txt") })).isError).toBeFalsy();
    const touch = { command: "touch approved.txt" };
    expect((await call(c, "Bash", touch)).isError).toBeFalsy();
    expect(c.asked).toHaveLength(1); // asked once, answered "allow always" (a session approval)
    const served = new Set(c.instances);
    expect(served.size, "affinity: one instance served the whole MCP session").toBe(1);
    const victim = instances.find((i) => i.name === [...served][0])!;
    await victim.kill("SIGKILL");

    // The MCP session outlives its instance: HAProxy sends the next request elsewhere (a refused connection is
    // retried on another server, a server marked down loses its sessions' affinity), and that instance takes
    // the session over from the store (plugins/mcp-serve/adopt.ts) — before, a 404 made the client initialize again.
    expect(text(await call(c, "Inventory_lookup", { part: "p-2" })), "the next call succeeds on another instance").toContain("stock of p-2: 42");
    expect(c.instances.at(-1)).not.toBe(victim.name);
    expect((await c.client.listTools()).tools.map((t) => t.name), "the loaded deferred tool is listed on the new instance").toContain("Inventory_lookup");
    const edit = await call(c, "Edit", { file_path: path.join(dir, "notes.txt"), old_string: "beta", new_string: "gamma" });
    expect(text(edit), "the read state came along: Edit does not ask for a new Read").not.toMatch(/has not been read/i);
    expect(edit.isError).toBeFalsy();
    expect(fs.readFileSync(path.join(dir, "notes.txt"), "utf8")).toBe("alpha\ngamma\n");
    fs.rmSync(path.join(dir, "approved.txt"));
    expect((await call(c, "Bash", touch)).isError, "the session approval came along: not asked again").toBeFalsy();
    expect(c.asked).toHaveLength(1);
    expect(fs.existsSync(path.join(dir, "approved.txt"))).toBe(true);
    await c.close();
    // A client that initializes again with its X-Toolhost-Session finds the same state.
    c = await connectClient(lb.url, { session: "agent-1", answer: "deny" });
    expect((await c.client.listTools()).tools.map((t) => t.name)).toContain("Inventory_lookup");
    await c.close();

    // Every answered call is in exactly one transcript (the killed instance's file as it was left).
    const lines = transcripts(instances).filter((l) => l.sessionId === "agent-1");
    const ids = lines.map((l) => l.toolUseId);
    expect(new Set(ids).size).toBe(ids.length);
    const summary = lines.map((l) => `${l.tool}:${l.status}`);
    expect(summary.filter((s) => s.startsWith("Inventory_lookup:ok"))).toHaveLength(2);
    expect(summary.filter((s) => s === "Bash:ok")).toHaveLength(2);
    expect(summary.filter((s) => s === "Edit:ok")).toHaveLength(1);
    expect(summary.filter((s) => s === "ToolSearch:ok")).toHaveLength(1);
    expect(summary.filter((s) => s === "Read:ok")).toHaveLength(1);
    expect(lines.filter((l) => l.instance === victim.name).length, "the four calls before the kill").toBe(4);
  });

  it("a background task lives on its instance: another instance answers 'runs on instance X', never a wrong result", async () => {
    const dir = tmpdir("toolhost-fleet-");
    writeProject(dir);
    const { instances } = await fleet(2, dir, false);
    const [a, b] = instances as [Instance, Instance];
    const onA = await connectClient(a.url, { session: "agent-2", answer: "allow" });
    const started = await call(onA, "Bash", { command: "sleep 30", run_in_background: true });
    const id = /ID: (\S+?)\./.exec(text(started))?.[1];
    expect(id, text(started)).toBeTruthy();
    const onB = await connectClient(b.url, { session: "agent-2", answer: "allow" });
    for (const tool of ["TaskOutput", "TaskStop"]) {
      const r = await call(onB, tool, { task_id: id });
      expect(r.isError).toBe(true);
      expect(text(r)).toContain(`runs on instance ${a.name}`);
    }
    // Its own instance still answers for it (and stops it).
    const stop = await call(onA, "TaskStop", { task_id: id });
    expect(stop.isError).toBeFalsy();
    await Promise.all([onA.close(), onB.close()]);
  });
});

describe.skipIf(skip)("stateless serve --http behind HAProxy (round robin)", () => {
  it("any instance serves any request: a session named by header, by Mcp-Session-Id, or by _meta", async () => {
    const dir = tmpdir("toolhost-fleet-");
    writeProject(dir);
    const { instances, lb } = await fleet(2, dir, true);
    // Named by header.
    const h = await connectClient(lb.url, { session: "st-1" });
    expect((await call(h, "Read", { file_path: path.join(dir, "notes.txt") })).isError).toBeFalsy();
    await call(h, "ToolSearch", { query: "select:Inventory_lookup" });
    const edit = await call(h, "Edit", { file_path: path.join(dir, "notes.txt"), old_string: "alpha", new_string: "delta" });
    expect(edit.isError, text(edit)).toBeFalsy();
    expect(text(await call(h, "Inventory_lookup", { part: "x" }))).toContain("stock of x: 42");
    expect(new Set(h.instances).size, "round robin: both instances answered").toBe(2);
    await h.close();

    // An ordinary MCP client: the session follows its Mcp-Session-Id across instances.
    const plain = await connectClient(lb.url);
    await call(plain, "ToolSearch", { query: "select:Inventory_lookup" });
    expect(text(await call(plain, "Inventory_lookup", { part: "y" }))).toContain("stock of y: 42");
    expect((await plain.client.listTools()).tools.map((t) => t.name)).toContain("Inventory_lookup");
    expect(new Set(plain.instances).size).toBe(2);

    // One instance dies: the other serves the same MCP session on, no re-initialize.
    await instances[0]!.kill("SIGKILL");
    expect(text(await call(plain, "Inventory_lookup", { part: "z" }))).toContain("stock of z: 42");
    await plain.close();

    // A client that cannot set headers: params._meta["toolhost/session"], no initialize at all.
    const raw = async (body: object) => {
      const r = await fetch(lb.url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify(body) });
      return (await r.json()) as { result?: { content: { text: string }[]; isError?: boolean }; error?: { message: string } };
    };
    const meta = { "toolhost/session": "meta-1" };
    const r1 = await raw({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "Read", arguments: { file_path: path.join(dir, "notes.txt") }, _meta: meta } });
    expect(r1.result?.isError).toBeFalsy();
    const r2 = await raw({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "Edit", arguments: { file_path: path.join(dir, "notes.txt"), old_string: "delta", new_string: "omega" }, _meta: meta } });
    expect(r2.result?.isError, JSON.stringify(r2)).toBeFalsy();
    const bad = await raw({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "Read", arguments: { file_path: "x" }, _meta: { "toolhost/session": "../etc/passwd" } } });
    expect(JSON.stringify(bad)).toMatch(/session id .* is refused/);
    const none = await raw({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "Read", arguments: { file_path: "x" } } });
    expect(JSON.stringify(none)).toMatch(/needs a session/);
  });
});

/*
 * The fleet bench's "404 unknown MCP session id" (issue 16): in stateful mode a request for an MCP session
 * reached an instance that had not opened it. HAProxy's `option redispatch 1` sends every retried request
 * (`retry-on conn-failure empty-response`: a keep-alive connection the instance closed as HAProxy reused
 * it, an instance that died) to another server, whatever the stick table says; a server marked down does
 * the same to every request of its sessions. The instance that gets such a request now takes the session
 * over from the store (plugins/mcp-serve/adopt.ts) instead of answering 404. Real processes: two serve
 * instances and redis-server; the request is sent to the other instance directly (what the balancer does).
 * The first describe here has the same behind HAProxy, with an instance killed.
 */
async function instances(dir: string): Promise<Instance[]> {
  const config = { plugins: [path.join(dir, "deferred-plugin")], permissions: { allow: ["Inventory_lookup"] }, sessions: { backend: "redis", url: redis.url, prefix: `takeover-${path.basename(dir)}:` } };
  const list = await Promise.all(["a", "b"].map((name) => startInstance({ name, cwd: dir, config })));
  for (const i of list) stops.push(() => i.kill("SIGTERM"));
  return list;
}

/** A client on `url` that continues MCP session `sessionId` (the SDK's reconnect: no initialize). */
async function resume(url: string, sessionId: string, headers: Record<string, string> = {}): Promise<{ client: Client; instances: string[] }> {
  const seen: string[] = [];
  const client = new Client({ name: "takeover-test", version: "1" });
  const fetchRec: typeof fetch = async (input, init) => {
    const r = await fetch(input, init);
    const inst = r.headers.get("x-toolhost-instance");
    if (inst) seen.push(inst);
    return r;
  };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { sessionId, requestInit: { headers }, fetch: fetchRec }));
  return { client, instances: seen };
}

const rawPost = (url: string, sid: string) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": sid, "mcp-protocol-version": "2025-06-18" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) }).then((r) => r.status);

describe.skipIf(typeof redisBin !== "string")("an MCP session reaching an instance that did not open it (stateful serve, Redis store)", () => {
  it("is taken over from the store — its loaded tools with it — not a 404; a DELETEd or unknown one is still a 404", async () => {
    const dir = tmpdir("toolhost-takeover-");
    writeProject(dir);
    const [a, b] = await instances(dir);
    const first = await connectClient(a!.url, { session: "agent-t" });
    expect(text(await first.client.callTool({ name: "ToolSearch", arguments: { query: "select:Inventory_lookup" } }))).toContain("Inventory_lookup");
    const sid = (first.client.transport as StreamableHTTPClientTransport).sessionId!;

    // The same MCP session's next request on instance b (as a balancer sends it when a is down).
    const moved = await resume(b!.url, sid, { "x-toolhost-session": "agent-t" });
    const r = await moved.client.callTool({ name: "Inventory_lookup", arguments: { part: "p-9" } });
    expect(text(r)).toContain("stock of p-9: 42");
    expect(moved.instances.at(-1)).toBe("b");
    expect((await moved.client.listTools()).tools.map((t) => t.name), "the loaded deferred tool is listed by b").toContain("Inventory_lookup");
    expect(b!.stderr()).toContain(`session ${sid} taken over from the session store (host session agent-t)`);

    // Without X-Toolhost-Session the toolhost session is mcp-<id>: found too.
    const plain = await connectClient(a!.url);
    const sid2 = (plain.client.transport as StreamableHTTPClientTransport).sessionId!;
    await plain.client.callTool({ name: "ToolSearch", arguments: { query: "select:Inventory_lookup" } });
    const moved2 = await resume(b!.url, sid2);
    expect(text(await moved2.client.callTool({ name: "Inventory_lookup", arguments: { part: "p-3" } }))).toContain("stock of p-3: 42");

    // A session the client ended is gone on every instance; an id no instance handed out is unknown.
    await (plain.client.transport as StreamableHTTPClientTransport).terminateSession();
    await plain.close();
    expect(await rawPost(a!.url, sid2)).toBe(404);
    expect(await rawPost(a!.url.replace(String(a!.port), String(b!.port)), "00000000-0000-4000-8000-000000000000")).toBe(404);
    for (const c of [first.client, moved.client, moved2.client]) await c.close();
  });
});
