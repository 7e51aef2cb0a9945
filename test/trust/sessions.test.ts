/**
 * Item 4 of issue 14: approvals are scoped. On one `toolhost serve --http`, client C's "allow always"
 * does not let client B run the same call unasked (two real MCP SDK clients over Streamable HTTP);
 * in the library a session approval belongs to its sessionId, and a persisted one to the project
 * whose settings.local.json it was written to — and explain says where each allow came from.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createHost } from "../../core/index.ts";
import { BIN, tmpdir, until, writeTree } from "../helpers.ts";

function client(name: string, answer: string) {
  const c = new Client({ name, version: "1" }, { capabilities: { elicitation: {} } });
  const asked: string[] = [];
  c.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push(String(req.params.message));
    return answer === "decline" ? { action: "decline" } : { action: "accept", content: { decision: answer } };
  });
  return { c, asked };
}

const text = (r: unknown) => ((r as { content: Array<{ text?: string }> }).content ?? []).map((x) => x.text ?? "").join("\n");

describe("one serve --http, two clients", () => {
  let proc: ChildProcess;
  let url = "";
  let dir: string;
  beforeAll(async () => {
    dir = tmpdir("toolhost-sessions-");
    let err = "";
    proc = spawn(process.execPath, [BIN, "serve", "--http", "0", "--cwd", dir, "--no-watch"], { stdio: ["ignore", "pipe", "pipe"] });
    proc.stderr!.on("data", (d) => (err += d));
    await until(() => /Streamable HTTP on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.test(err), 30_000);
    url = /Streamable HTTP on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err)![1]!;
  });
  afterAll(async () => {
    proc?.kill("SIGTERM");
    await new Promise((r) => proc?.once("exit", r));
  });

  it("C's allow always is C's: B is asked for the same call, C is not asked again", async () => {
    const C = client("C", "allow always");
    const B = client("B", "decline");
    await C.c.connect(new StreamableHTTPClientTransport(new URL(url)));
    await B.c.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      const args = { command: "touch approved.txt" };
      const rc = await C.c.callTool({ name: "Bash", arguments: args });
      expect(rc.isError).toBeFalsy();
      expect(C.asked).toHaveLength(1);
      fs.rmSync(path.join(dir, "approved.txt"));
      const rb = await B.c.callTool({ name: "Bash", arguments: args });
      expect(B.asked).toHaveLength(1);
      expect(rb.isError).toBe(true);
      expect(text(rb)).toMatch(/declined/);
      expect(fs.existsSync(path.join(dir, "approved.txt"))).toBe(false);
      const again = await C.c.callTool({ name: "Bash", arguments: args });
      expect(again.isError).toBeFalsy();
      expect(C.asked).toHaveLength(1);
      expect(fs.existsSync(path.join(dir, "approved.txt"))).toBe(true);
    } finally {
      await Promise.all([C.c.close(), B.c.close()]);
    }
  });
});

describe("the library", () => {
  it("a session approval applies to its session only, and explain says so", async () => {
    const dir = tmpdir("toolhost-sessions-");
    const asks: string[] = [];
    const host = await createHost({ cwd: dir, watch: false, onAsk: (r) => (asks.push(r.sessionId ?? ""), r.sessionId === "s1" ? "allowAlways" : "deny") });
    try {
      const input = { command: "touch a.txt" };
      expect((await host.execute("Bash", input, { sessionId: "s1" })).executed).toBe(true);
      expect((await host.execute("Bash", input, { sessionId: "s1" })).executed).toBe(true);
      expect((await host.execute("Bash", input, { sessionId: "s2" })).executed).toBe(false);
      expect(asks).toEqual(["s1", "s2"]);
      const grants = host.explain("Bash").grants ?? [];
      expect(grants).toEqual([expect.objectContaining({ rule: "Bash(touch a.txt)", plugin: "session", applies: "only in session s1" })]);
    } finally {
      await host.close();
    }
  });

  it("a persisted approval (localSettings) applies in the project it was written to, not elsewhere", async () => {
    const a = tmpdir("toolhost-persist-a-");
    const b = tmpdir("toolhost-persist-b-");
    const ha = await createHost({ cwd: a, watch: false });
    ha.hooks.addPermissionRule.call({ behavior: "allow", rule: "Bash(touch kept.txt)", destination: "localSettings" });
    await ha.rebuild("test");
    const hb = await createHost({ cwd: b, watch: false });
    try {
      expect(JSON.parse(fs.readFileSync(path.join(a, ".claude", "settings.local.json"), "utf8")).permissions.allow).toEqual(["Bash(touch kept.txt)"]);
      expect((await ha.execute("Bash", { command: "touch kept.txt" }, { dryRun: true })).decision).toBe("allow");
      expect((await hb.execute("Bash", { command: "touch kept.txt" }, { dryRun: true })).decision).toBe("ask");
      expect(ha.explain("Bash").grants).toEqual([expect.objectContaining({ plugin: "settings:local", file: path.join(a, ".claude", "settings.local.json"), path: "/permissions/allow/0" })]);
    } finally {
      await Promise.all([ha.close(), hb.close()]);
    }
  });
});
void writeTree;
