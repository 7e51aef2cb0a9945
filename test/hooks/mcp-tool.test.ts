/**
 * mcp_tool hook handlers (formats §3.4): a real stdio MCP server (test/fixtures/mcp/hook-server.mjs)
 * configured in .mcp.json, hooks in .claude/settings.json, through host.execute with the built-in tools.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createHost, resultText, type Host } from "../../core/index.ts";
import { substituteInput } from "../../plugins/command-hooks/run.ts";
import { tmpdir, writeTree } from "../helpers.ts";

const SERVER = path.resolve(import.meta.dirname, "../fixtures/mcp/hook-server.mjs");
const hosts: Host[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function project(hooks: Record<string, unknown>): Promise<{ h: Host; cwd: string }> {
  const cwd = fs.realpathSync(tmpdir("th-mcphook-"));
  dirs.push(cwd);
  writeTree(cwd, { ".mcp.json": { mcpServers: { guard: { command: process.execPath, args: [SERVER] } } }, ".claude/settings.json": { hooks } });
  const h = await createHost({ cwd });
  hosts.push(h);
  return { h, cwd };
}
const pre = (hook: Record<string, unknown>) => ({ PreToolUse: [{ matcher: "Write", hooks: [{ type: "mcp_tool", server: "guard", ...hook }] }] });

describe("mcp_tool hooks", () => {
  it("a PreToolUse mcp_tool hook denies with its reason; input paths are filled from the hook input", async () => {
    const { h, cwd } = await project(pre({ tool: "guard", input: { path: "${tool_input.file_path}", tool: "${tool_name}" } }));
    const o = await h.execute("Write", { file_path: "secret.txt", content: "x" }, { yes: true });
    expect(o.status).toBe("blocked");
    expect(o.reason).toContain(`guard: Write may not touch ${path.join(cwd, "secret.txt")}`);
    expect(fs.existsSync(path.join(cwd, "secret.txt"))).toBe(false);
    const ok = await h.execute("Write", { file_path: "notes.txt", content: "x" }, { yes: true });
    expect(ok.status).toBe("ok");
  });

  it("a PostToolUse mcp_tool hook adds context", async () => {
    const { h, cwd } = await project({ PostToolUse: [{ matcher: "Write", hooks: [{ type: "mcp_tool", server: "guard", tool: "note", input: { path: "${tool_input.file_path}" } }] }] });
    const o = await h.execute("Write", { file_path: "a.txt", content: "x" }, { yes: true });
    expect(resultText(o.result)).toContain(`note: wrote ${path.join(cwd, "a.txt")}`);
  });

  it("failures are non-blocking by default and block with onFailure: block; a missing tool says so", async () => {
    const soft = await project(pre({ tool: "broken" }));
    const s = await soft.h.execute("Write", { file_path: "a.txt", content: "x" }, { yes: true, trace: true } as never);
    expect(s.status).toBe("ok");
    const hard = await project(pre({ tool: "garbage", onFailure: "block" }));
    const b = await hard.h.execute("Write", { file_path: "a.txt", content: "x" }, { yes: true });
    expect(b.status).not.toBe("ok");
    expect(b.reason).toMatch(/not valid JSON/);
    const missing = await project(pre({ tool: "nope", onFailure: "block" }));
    const m = await missing.h.execute("Write", { file_path: "a.txt", content: "x" }, { yes: true });
    expect(m.reason).toMatch(/no MCP tool "nope" on server "guard"/);
  });

  it("a hook that outlives its timeout: the call goes on (fails open) unless onFailure: block", async () => {
    const soft = await project(pre({ tool: "slow", timeout: 1 }));
    const o = await soft.h.execute("Write", { file_path: "a.txt", content: "x" }, { yes: true });
    expect(o.status).toBe("ok");
    expect(o.trace.find((t) => t.stage === "hook.PreToolUse")?.outcome).toBe("timeout");
    const hard = await project(pre({ tool: "slow", timeout: 1, onFailure: "block" }));
    const b = await hard.h.execute("Write", { file_path: "a.txt", content: "x" }, { yes: true });
    expect(b.status).not.toBe("ok");
    expect(b.reason).toMatch(/timed out after 1 s/);
  });

  it("a handler without server or tool is a load error naming the JSON path; prompt hooks still warn", async () => {
    const { h } = await project({ PreToolUse: [{ hooks: [{ type: "mcp_tool", tool: "guard" }, { type: "prompt", prompt: "is this ok?" }] }] });
    const ps = h.problems();
    expect(ps.some((p) => p.path === "/hooks/PreToolUse/0/hooks/0/server" && p.severity === "error")).toBe(true);
    expect(ps.some((p) => p.path === "/hooks/PreToolUse/0/hooks/1/type" && /"prompt" and "agent" need a model/.test(p.message))).toBe(true);
  });

  it("substituteInput keeps a whole-string reference's JSON type and fills embedded ones", () => {
    const ev = { tool_name: "Edit", tool_input: { file_path: "/a.ts", edits: [1, 2] } };
    expect(substituteInput({ p: "${tool_input.file_path}", all: "${tool_input.edits}", msg: "edit of ${tool_input.file_path} by ${tool_name}", n: 3, miss: "${nope.x}" }, ev)).toEqual({
      p: "/a.ts",
      all: [1, 2],
      msg: "edit of /a.ts by Edit",
      n: 3,
      miss: "",
    });
  });
});
