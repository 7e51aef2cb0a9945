/**
 * The one dispatch path, proven: for every tool source (built-in, plugin module, MCP, LSP,
 * ToolSearch-loaded, and a call arriving over MCP through `toolhost serve`), every execution stage
 * and every execution hook fires, in order, on the same executor.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createHost, definePlugin, type Host } from "../core/index.ts";
import { REPO, tmpdir, writeTree } from "./helpers.ts";

const HOOKS = ["repairInput", "validateInput", "deny", "permission", "preToolUse", "call", "postToolUse", "shape", "persist"] as const;
const fired = new Map<string, string[]>();

const observer = definePlugin({
  name: "observer",
  apply(ctx) {
    ctx.hooks.build.tap("observer", (b) => {
      const note = (hook: string, toolUseId: string) => fired.set(toolUseId, [...(fired.get(toolUseId) ?? []), hook]);
      b.hooks.repairInput.tap("observer", (input, call) => (note("repairInput", call.toolUseId), input));
      b.hooks.validateInput.tap("observer", (call) => void note("validateInput", call.toolUseId));
      b.hooks.deny.tap("observer", (call) => void note("deny", call.toolUseId));
      b.hooks.permission.tap({ name: "observer", stage: -1000 }, (call) => void note("permission", call.toolUseId));
      b.hooks.preToolUse.tap("observer", (pre) => void note("preToolUse", pre.call.toolUseId));
      b.hooks.call.tap("observer", (call) => void note("call", call.toolUseId));
      b.hooks.postToolUse.tap("observer", (post) => void note("postToolUse", post.call.toolUseId));
      b.hooks.postToolUseFailure.tap("observer", (post) => void note("postToolUse", post.call.toolUseId));
      b.hooks.shape.tap("observer", (r, call) => (note("shape", call.toolUseId), r));
      b.hooks.persist.tap("observer", (rec) => void note("persist", rec.call.toolUseId));
    });
  },
});

let root: string;
let host: Host;

beforeAll(async () => {
  root = tmpdir();
  const memory = path.join(REPO, "node_modules/@modelcontextprotocol/server-memory/dist/index.js");
  writeTree(root, {
    "notes.txt": "hello\n",
    "src/a.ts": "export const answer: number = 42;\n",
    "tsconfig.json": { compilerOptions: { strict: true, target: "es2022", module: "nodenext" } },
    "plugins/mod/.claude-plugin/plugin.json": { name: "mod", tools: ["./tools.mjs"] },
    "plugins/mod/tools.mjs": `export default { name: "shout", description: "Upper-case text.", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] }, call: (i) => i.text.toUpperCase() };`,
    "toolhost.config.json": {
      plugins: ["./plugins/mod"],
      mcpServers: { memory: { command: process.execPath, args: [memory], env: { MEMORY_FILE_PATH: path.join(root, "memory.jsonl") } } },
      permissions: { allow: ["shout", "mcp__memory__*", "ToolSearch", "LSP"] },
      transcript: "transcript.jsonl",
    },
  });
  host = await createHost({ cwd: root, plugins: [observer], pluginDirs: [path.join(REPO, "plugins/lsp/examples/typescript")] });
}, 60_000);
afterAll(async () => {
  await host?.close();
});

function expectEveryStage(o: Awaited<ReturnType<Host["execute"]>>, toolUseId: string) {
  expect(o.status, JSON.stringify(o.result)).toBe("ok");
  expect(fired.get(toolUseId)).toEqual([...HOOKS]);
  const core = o.trace.filter((t) => t.plugin === "toolhost").map((t) => t.stage);
  expect(core).toEqual(["lookup", "repairInput", "validate", "validateInput", "call"]);
  expect(o.generation).toBe(host.pool.generation);
}

describe("one dispatch path for every tool source", () => {
  it("built-in tool (Read)", async () => {
    const o = await host.execute("Read", { file_path: "notes.txt" }, { toolUseId: "builtin-1" });
    expect(host.pool.byName.get("Read")!.origin).toBe("builtin");
    expectEveryStage(o, "builtin-1");
  });

  it("plugin module tool", async () => {
    const o = await host.execute("shout", { text: "hi" }, { toolUseId: "plugin-1" });
    expect(host.pool.byName.get("shout")!.origin).toBe("plugin");
    expect(o.result.content[0]!.text).toBe("HI");
    expectEveryStage(o, "plugin-1");
  });

  it("MCP tool (server-memory over stdio)", async () => {
    const o = await host.execute("mcp__memory__read_graph", {}, { toolUseId: "mcp-1", autoLoadDeferred: true });
    expect(host.pool.byName.get("mcp__memory__read_graph")!.origin).toBe("mcp");
    expectEveryStage(o, "mcp-1");
  });

  it("ToolSearch-loaded deferred tool", async () => {
    const name = "mcp__memory__search_nodes";
    expect(host.explain(name).status).toBe("deferred");
    const direct = await host.execute(name, { query: "x" }, { sessionId: "ts" });
    expect(direct.status).toBe("unknown-tool");
    const search = await host.execute("ToolSearch", { query: `select:${name}` }, { sessionId: "ts", toolUseId: "search-1" });
    expectEveryStage(search, "search-1");
    const o = await host.execute(name, { query: "x" }, { sessionId: "ts", toolUseId: "loaded-1" });
    expectEveryStage(o, "loaded-1");
  });

  it("LSP tool (typescript-language-server)", async () => {
    const o = await host.execute("LSP", { operation: "documentSymbol", filePath: "src/a.ts", line: 1, character: 14 }, { toolUseId: "lsp-1" });
    expect(host.pool.byName.get("LSP")!.origin).toBe("lsp");
    expectEveryStage(o, "lsp-1");
  });
});

describe("calls arriving over MCP take the same path", () => {
  it("toolhost serve: built-in, plugin, MCP and ToolSearch-loaded calls all run every stage", async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [path.join(REPO, "bin/toolhost.mjs"), "serve", "--cwd", root, "--no-watch"], env: { ...process.env } as Record<string, string>, stderr: "pipe" }); // keeps the suite's trusted TOOLHOST_HOME
    const client = new Client({ name: "contract", version: "1.0.0" });
    await client.connect(transport);
    try {
      const listed = (await client.listTools()).tools.map((t) => t.name);
      expect(listed).toEqual(expect.arrayContaining(["Read", "shout", "ToolSearch"]));
      await client.callTool({ name: "Read", arguments: { file_path: "notes.txt" } });
      await client.callTool({ name: "shout", arguments: { text: "wire" } });
      await client.callTool({ name: "ToolSearch", arguments: { query: "select:mcp__memory__read_graph" } });
      const r = await client.callTool({ name: "mcp__memory__read_graph", arguments: {} });
      expect(r.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const lines = fs.readFileSync(path.join(root, "transcript.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    const wire = lines.filter((l) => l.source === "mcp");
    expect(wire.map((l) => l.tool)).toEqual(["Read", "shout", "ToolSearch", "mcp__memory__read_graph"]);
    for (const l of wire) {
      expect(l.status).toBe("ok");
      const core = l.trace.filter((t: { plugin: string }) => t.plugin === "toolhost").map((t: { stage: string }) => t.stage);
      expect(core).toEqual(["lookup", "repairInput", "validate", "validateInput", "call"]);
      const taps = new Set(l.trace.map((t: { stage: string }) => t.stage));
      for (const stage of ["build.repairInput", "build.deny", "build.permission", "build.shape"]) expect(taps, `${l.tool}: ${stage}`).toContain(stage);
    }
  });
});
