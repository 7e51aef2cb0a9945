/**
 * `toolhost serve` and session events (issue 15 items 4, 5): SessionStart runs when a client initializes
 * and its context reaches the client in the server's instructions; a hook's stop request reaches the
 * client as a result that tells its model to stop (with `_meta["toolhost/stop"]`); PostToolBatch runs
 * after every tools/call. A real `toolhost serve` child and the SDK client over stdio; real hook processes.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { NODE, TOOLHOST_BIN, tmpDir, writeJson } from "./helpers.ts";
import { jsonHook, script } from "../hooks/helpers.ts";

const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});

async function connect(dir: string): Promise<Client> {
  const client = new Client({ name: "events-client", version: "1.0.0" });
  const transport = new StdioClientTransport({ command: NODE, args: [TOOLHOST_BIN, "serve", "--cwd", dir, "--no-watch"], env: { ...process.env } as Record<string, string>, stderr: "pipe" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

const group = (command: string, matcher?: string) => [{ ...(matcher ? { matcher } : {}), hooks: [{ type: "command", command }] }];

describe("toolhost serve: session events", () => {
  it("SessionStart's context is in the initialize instructions; the hook saw source startup", async () => {
    const dir = tmpDir("toolhost-serve-events-");
    const seen = path.join(dir, "seen.json");
    const hook = script(dir, "ss.sh", `#!/bin/sh\ncat > '${seen}'\necho '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"branch main, 3 open TODOs"}}'\n`);
    writeJson(path.join(dir, "toolhost.config.json"), { hooks: { SessionStart: group(hook) } });
    const client = await connect(dir);
    expect(client.getInstructions()).toContain("SessionStart hook additional context: branch main, 3 open TODOs");
    expect(JSON.parse(fs.readFileSync(seen, "utf8"))).toMatchObject({ hook_event_name: "SessionStart", source: "startup", cwd: dir });
  });

  it("a PreToolUse continue:false runs the tool, then tells the client's model to stop; PostToolBatch runs after each call", async () => {
    const dir = tmpDir("toolhost-serve-events-");
    const batchLog = path.join(dir, "batch.log");
    const ptb = script(dir, "ptb.sh", `#!/bin/sh\ncat >> '${batchLog}'\necho >> '${batchLog}'\n`);
    writeJson(path.join(dir, "toolhost.config.json"), {
      permissions: { allow: ["Write"] },
      hooks: { PreToolUse: group(jsonHook(dir, "stop.sh", { continue: false, stopReason: "quota reached" }), "Write"), PostToolBatch: group(ptb) },
    });
    const client = await connect(dir);
    const target = path.join(dir, "made.txt");
    const r = (await client.callTool({ name: "Write", arguments: { file_path: target, content: "x" } })) as { content: Array<{ text: string }>; isError?: boolean; _meta?: Record<string, unknown> };
    expect(fs.existsSync(target)).toBe(true);
    expect(r.isError).toBe(true);
    expect(r.content[0]!.text).toMatch(/A PreToolUse hook stopped this run \(quota reached\)/);
    expect(r._meta?.["toolhost/stop"]).toMatchObject({ event: "PreToolUse", reason: "quota reached", kind: "continue" });
    await client.callTool({ name: "Read", arguments: { file_path: target } });
    const batches = fs.readFileSync(batchLog, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(batches.map((b) => b.tool_calls.map((c: { tool_name: string }) => c.tool_name))).toEqual([["Write"], ["Read"]]);
  });
});
