/**
 * Discoverability over MCP (issue 18 item 4), with the real SDK Client against a spawned `toolhost serve`,
 * over stdio and over Streamable HTTP: the server's instructions name the deferred tools (sorted, the same
 * text on every connection), a keyword ToolSearch hit makes the tool callable in that client's session with
 * exactly one tools/list_changed, and the other client's session is not affected.
 */
import path from "node:path";
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { NODE, SERVERS, stdio, TOOLHOST_BIN, tmpDir, waitFor, writeJson, writePolicyPlugin } from "../mcp/helpers.ts";

const ALLOW = ["mcp__memory__*", "ToolSearch"];

function project(): string {
  const dir = tmpDir("toolhost-discover-");
  writePolicyPlugin(dir, { allow: ALLOW });
  writeJson(path.join(dir, "toolhost.config.json"), {
    plugins: ["./policy-plugin"],
    permissions: { allow: ALLOW },
    mcpServers: { memory: stdio(SERVERS.memory, [], { env: { MEMORY_FILE_PATH: path.join(dir, "memory.jsonl") } }) },
  });
  return dir;
}

const text = (r: unknown) => ((r as { content: Array<{ text?: string }> }).content ?? []).map((c) => c.text ?? "").join("\n");

async function client(transport: Transport) {
  const c = new Client({ name: "discover-test", version: "1.0.0" });
  let changed = 0;
  c.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
  await c.connect(transport);
  return { c, changed: () => changed };
}

/** The whole discover → load → call sequence, asserted the same way on either transport. */
async function discoverAndCall(a: Awaited<ReturnType<typeof client>>, other?: Awaited<ReturnType<typeof client>>) {
  const instructions = a.c.getInstructions() ?? "";
  expect(instructions).toMatch(/Deferred tools/);
  expect(instructions).toContain("mcp__memory__read_graph");
  expect(instructions).toContain("mcp__memory__create_entities");
  const names = instructions.split("\n").filter((l) => l.startsWith("mcp__"));
  expect(names).toEqual([...names].sort());
  const listed = (await a.c.listTools()).tools.map((t) => t.name);
  expect(listed).toContain("ToolSearch");
  expect(listed).not.toContain("mcp__memory__read_graph");
  const before = a.changed();
  const found = await a.c.callTool({ name: "ToolSearch", arguments: { query: "read the whole knowledge graph", max_results: 3 } });
  expect(text(found)).toContain("mcp__memory__read_graph");
  await waitFor(() => a.changed() > before, 10_000, "list_changed after ToolSearch");
  const after = (await a.c.listTools()).tools.map((t) => t.name);
  expect(after).toContain("mcp__memory__read_graph");
  const r = await a.c.callTool({ name: "mcp__memory__read_graph", arguments: {} });
  expect(r.isError).toBeFalsy();
  // the same search again loads nothing new: no second notification
  await a.c.callTool({ name: "ToolSearch", arguments: { query: "read the whole knowledge graph", max_results: 3 } });
  await new Promise((res) => setTimeout(res, 400));
  expect(a.changed()).toBe(before + 1);
  if (other) {
    expect(other.changed()).toBe(0);
    expect((await other.c.listTools()).tools.map((t) => t.name)).not.toContain("mcp__memory__read_graph");
    expect(other.c.getInstructions()).toBe(instructions);
  }
}

describe("deferred tools are discoverable over MCP (stdio)", () => {
  let a: Awaited<ReturnType<typeof client>>;
  beforeAll(async () => {
    const dir = project();
    a = await client(new StdioClientTransport({ command: NODE, args: [TOOLHOST_BIN, "serve", "--cwd", dir, "--no-watch"], env: { ...process.env } as Record<string, string>, stderr: "pipe" }));
  }, 60_000);
  afterAll(async () => void (await a?.c.close()));

  it("instructions name them; a keyword hit loads one with exactly one list_changed", async () => {
    await discoverAndCall(a);
  }, 60_000);
});

describe("deferred tools are discoverable over MCP (Streamable HTTP, two clients)", () => {
  let proc: ChildProcess;
  let url: string;
  beforeAll(async () => {
    const dir = project();
    let err = "";
    proc = spawn(NODE, [TOOLHOST_BIN, "serve", "--http", "0", "--cwd", dir, "--no-watch"], { stdio: ["ignore", "pipe", "pipe"] });
    proc.stderr!.on("data", (d) => (err += d));
    url = await waitFor(() => /Streamable HTTP on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err)?.[1], 30_000, "serve --http to listen");
  }, 60_000);
  afterAll(async () => {
    proc?.kill("SIGTERM");
    await new Promise((r) => proc?.once("exit", r));
  });

  it("each client session loads on its own; one list_changed for the one that searched", async () => {
    const a = await client(new StreamableHTTPClientTransport(new URL(url)));
    const b = await client(new StreamableHTTPClientTransport(new URL(url)));
    try {
      await discoverAndCall(a, b);
    } finally {
      await a.c.close();
      await b.c.close();
    }
  }, 60_000);
});
