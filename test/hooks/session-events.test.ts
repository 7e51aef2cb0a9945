/**
 * Session and turn events for embedders (issue 15 items 4 and 5): host.event runs Claude Code's hooks with
 * its input and output semantics, host.endTurn fires PostToolBatch after a single call, and stop signals
 * reach the outcome with Claude Code's timing — each compared with a recording of Claude Code 2.1.328
 * (test/conformance/events/*.json). Real hook processes throughout.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Host } from "../../core/index.ts";
import { runCli } from "../helpers.ts";
import { hostWith, jsonHook, script, tmpDir } from "./helpers.ts";

const FIX = path.resolve(__dirname, "../conformance/events");
const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(FIX, `${name}.json`), "utf8"));
const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
});

/** A hook that saves its stdin to `<dir>/<name>.<n>.json` and then prints `out` / exits `code`. */
function recorder(dir: string, name: string, out: unknown = "", code = 0, stderr = ""): string {
  const body = typeof out === "string" ? out : JSON.stringify(out);
  return script(path.join(dir, "bin"), `${name}.sh`, `#!/bin/sh\nn=$(ls '${dir}' | grep -c '^${name}\\.')\ncat > '${dir}/${name}.'$n'.json'\nprintf '%s' '${body.replace(/'/g, "'\\''")}'\n${stderr ? `printf '%s' '${stderr}' >&2\n` : ""}exit ${code}\n`);
}
const saved = (dir: string, name: string, n = 0) => JSON.parse(fs.readFileSync(path.join(dir, `${name}.${n}.json`), "utf8"));
const hooks = (map: Record<string, Array<{ matcher?: string; command: string }>>) =>
  Object.fromEntries(Object.entries(map).map(([ev, hs]) => [ev, hs.map((h) => ({ ...(h.matcher ? { matcher: h.matcher } : {}), hooks: [{ type: "command", command: h.command }] }))]));

async function start(dir: string, map: Record<string, Array<{ matcher?: string; command: string }>>, extra: Record<string, unknown> = {}): Promise<Host> {
  const h = await hostWith(dir, { config: { hooks: hooks(map) }, ...extra });
  hosts.push(h);
  return h;
}

describe("host.event", () => {
  it("SessionStart: Claude Code's stdin (no permission_mode), matcher on source, JSON and plain-stdout context framed as Claude Code frames them", async () => {
    const dir = tmpDir();
    const h = await start(dir, {
      SessionStart: [
        { command: recorder(dir, "json", { hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "SS-CONTEXT-JSON" } }) },
        { command: recorder(dir, "plain", "SS-PLAIN-STDOUT") },
        { matcher: "resume", command: recorder(dir, "resume-only", "never") },
      ],
    });
    const out = await h.event("SessionStart", { source: "startup" }, { sessionId: "s1" });
    expect(out.context).toEqual(["SessionStart hook additional context: SS-CONTEXT-JSON", "SessionStart:startup hook success: SS-PLAIN-STDOUT"]);
    expect(fixture("context").modelSaw).toContain(out.context[0]);
    expect(fixture("ups-json-ctx").modelSaw).toContain(out.context[1]);
    expect(fs.existsSync(path.join(dir, "resume-only.0.json"))).toBe(false);
    const stdin = saved(dir, "json");
    expect(Object.keys(stdin)).toEqual(Object.keys(fixture("basic").hooks["SessionStart-0"].stdin));
    expect(stdin).toMatchObject({ session_id: "s1", cwd: dir, hook_event_name: "SessionStart", source: "startup" });
  });

  it("UserPromptSubmit: plain stdout and additionalContext are context; a block erases the prompt with Claude Code's message; exit 2 names the command; continue:false stops", async () => {
    const dir = tmpDir();
    const ctx = await start(dir, { UserPromptSubmit: [{ command: recorder(dir, "plain", "UPS-PLAIN-STDOUT") }, { command: recorder(dir, "json", { hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "UPS-JSON-CTX" } }) }] });
    const ok = await ctx.event("UserPromptSubmit", { prompt: "go" });
    expect(ok.context).toEqual(["UserPromptSubmit hook success: UPS-PLAIN-STDOUT", "UserPromptSubmit hook additional context: UPS-JSON-CTX"]);
    expect([...fixture("context").modelSaw, ...fixture("ups-json-ctx").modelSaw]).toEqual(expect.arrayContaining(ok.context));
    expect(Object.keys(saved(dir, "plain"))).toEqual(Object.keys(fixture("basic").hooks["UserPromptSubmit-0"].stdin));
    expect(ok.blocked).toBeUndefined();

    const b = await start(tmpDir(), { UserPromptSubmit: [{ command: jsonHook(dir, "block.sh", { decision: "block", reason: "UPS-BLOCK-REASON" }) }] });
    expect((await b.event("UserPromptSubmit", { prompt: "go" })).blocked?.message).toBe(fixture("ups-block").result.result);

    const cmd = recorder(dir, "exit2", "", 2, "UPS-EXIT2-STDERR");
    const e2 = await start(tmpDir(), { UserPromptSubmit: [{ command: cmd }] });
    expect((await e2.event("UserPromptSubmit", { prompt: "go" })).blocked?.message).toBe(fixture("ups-exit2").result.result.replace("node $ORACLE/hook.mjs", cmd));

    const st = await start(tmpDir(), { UserPromptSubmit: [{ command: jsonHook(dir, "stop.sh", { continue: false, stopReason: "UPS-STOP-REASON" }) }] });
    const stopped = await st.event("UserPromptSubmit", { prompt: "go" });
    expect(stopped.stop).toMatchObject({ event: "UserPromptSubmit", reason: "UPS-STOP-REASON", kind: "continue" });
    expect(fixture("ups-continue-false").result.result).toBe(`Operation stopped by hook: ${stopped.stop!.reason}`);
  });

  it("Stop: a block makes the agent go on with Claude Code's feedback text; stop_hook_active and last_assistant_message reach the hook", async () => {
    const dir = tmpDir();
    const h = await start(dir, { Stop: [{ command: recorder(dir, "stop", { decision: "block", reason: "STOP-BLOCK-REASON" }) }] });
    const first = await h.event("Stop", { lastAssistantMessage: "done" });
    expect(first.blocked?.message.replace("\n", "\\n")).toBe(fixture("stop-block").modelSaw[0]);
    await h.event("Stop", { lastAssistantMessage: "done", stopHookActive: true });
    const rec = fixture("stop-block").hooks;
    for (const n of [0, 1]) {
      const mine = saved(dir, "stop", n);
      expect(mine.stop_hook_active).toBe(rec[`Stop-${n}`].stdin.stop_hook_active);
      expect(mine.last_assistant_message).toBe(rec[`Stop-${n}`].stdin.last_assistant_message);
    }
  });

  it("Stop: stop_hook_active follows the previous block; the cap-th block in a row is overridden with Claude Code's message (recorded: stop-block-repeat)", async () => {
    const dir = tmpDir();
    const saved0 = process.env.CLAUDE_CODE_STOP_HOOK_BLOCK_CAP;
    process.env.CLAUDE_CODE_STOP_HOOK_BLOCK_CAP = "3";
    try {
      const h = await start(dir, { Stop: [{ command: recorder(dir, "stop", { decision: "block", reason: "keep going" }) }] });
      const outs = [];
      for (let i = 0; i < 4; i++) outs.push(await h.event("Stop", { lastAssistantMessage: "done" }, { sessionId: "s" }));
      expect(outs.map((o) => !!o.blocked)).toEqual([true, true, false, true]);
      expect(outs[2]!.messages).toEqual(["A hook blocked the turn from ending 3 consecutive times—overriding and ending turn. For Stop/SubagentStop hooks, check stop_hook_active in the input and return success while it's true. Set CLAUDE_CODE_STOP_HOOK_BLOCK_CAP to raise this limit."]);
      expect(outs[2]!.trace.find((t) => t.stage === "hook.Stop.block-cap")).toMatchObject({ outcome: "overridden", detail: { consecutiveBlocks: 3, cap: 3 } });
      expect([0, 1, 2, 3].map((n) => saved(dir, "stop", n).stop_hook_active)).toEqual([false, true, true, false]);
      // A new prompt starts the count again; another session has its own.
      await h.event("UserPromptSubmit", { prompt: "again" }, { sessionId: "s" });
      await h.event("Stop", {}, { sessionId: "s" });
      await h.event("Stop", {}, { sessionId: "other" });
      expect([4, 5].map((n) => saved(dir, "stop", n).stop_hook_active)).toEqual([false, false]);
    } finally {
      if (saved0 === undefined) delete process.env.CLAUDE_CODE_STOP_HOOK_BLOCK_CAP;
      else process.env.CLAUDE_CODE_STOP_HOOK_BLOCK_CAP = saved0;
    }
  });

  it("SessionEnd exit 2 and SessionStart exit 2 do not block: stderr is a message for the user, stdout is dropped", async () => {
    const dir = tmpDir();
    const h = await start(dir, { SessionStart: [{ command: recorder(dir, "ss", "SS-STDOUT-ON-EXIT2", 2, "SS-EXIT2-STDERR") }], SessionEnd: [{ command: recorder(dir, "end", "", 2, "bye") }] });
    const ss = await h.event("SessionStart", {});
    expect(ss).toMatchObject({ context: [], messages: [expect.stringContaining("SS-EXIT2-STDERR")] });
    expect(ss.blocked).toBeUndefined();
    expect(fixture("ss-exit2").modelSaw.join("\n")).not.toContain("SS-STDOUT-ON-EXIT2");
    expect((await h.event("SessionEnd", { reason: "other" })).messages).toEqual([expect.stringContaining("bye")]);
    expect(saved(dir, "end").reason).toBe("other");
  });
});

describe("host.endTurn", () => {
  it("fires PostToolBatch after a single host.execute call, once; executeBatch's calls are not reported twice", async () => {
    const dir = tmpDir();
    const h = await start(dir, { PostToolBatch: [{ command: recorder(dir, "ptb", { hookSpecificOutput: { hookEventName: "PostToolBatch", additionalContext: "PTB-CONTEXT" } }) }] });
    await h.execute("Echo", { text: "one" }, { sessionId: "s", toolUseId: "toolu_one" });
    const turn = await h.endTurn({ sessionId: "s" });
    expect(turn).toMatchObject({ calls: 1, context: ["PTB-CONTEXT"] });
    const stdin = saved(dir, "ptb");
    expect(stdin.tool_calls).toEqual([expect.objectContaining({ tool_name: "Echo", tool_input: { text: "one" }, tool_use_id: "toolu_one" })]);
    expect(fixture("basic").hooks["PostToolBatch-0"].stdin.tool_calls).toHaveLength(1);
    expect((await h.endTurn({ sessionId: "s" })).calls).toBe(0);
    await h.executeBatch([{ name: "Echo", input: { text: "b" } }], { sessionId: "s" });
    expect((await h.endTurn({ sessionId: "s" })).calls).toBe(0);
    expect(fs.readdirSync(dir).filter((f) => f.startsWith("ptb."))).toHaveLength(2);
  });
});

describe("stop signals on the outcome (Claude Code's timing)", () => {
  it("PreToolUse continue:false: the tool still runs, then outcome.stop; PostToolUse continue:false: outcome.stop, result kept from the model", async () => {
    const dir = tmpDir();
    const ran: unknown[] = [];
    const pre = await start(dir, { PreToolUse: [{ command: jsonHook(dir, "pre.sh", { continue: false, stopReason: "pre says stop" }) }] }, {});
    const o = await pre.execute("Echo", { text: "x" }, { yes: true });
    expect(o).toMatchObject({ status: "ok", executed: true, stop: { event: "PreToolUse", reason: "pre says stop", kind: "continue" } });
    expect(fixture("pre-continue-false")).toMatchObject({ filesMade: ["made.txt"], modelRequests: 1, result: { terminal_reason: "hook_stopped" } });
    const post = await start(tmpDir(), { PostToolUse: [{ command: jsonHook(dir, "post.sh", { continue: false, stopReason: "post says stop" }) }] });
    const p = await post.execute("Echo", { text: "y" }, { yes: true });
    expect(p).toMatchObject({ status: "ok", stop: { event: "PostToolUse", reason: "post says stop" } });
    expect(p.result.content.map((c) => c.text).join("\n")).not.toContain("post says stop");
    expect(fixture("post-continue-false")).toMatchObject({ modelRequests: 1, result: { terminal_reason: "hook_stopped" } });
    expect(ran).toEqual([]);
  });

  it("PermissionRequest interrupt:true denies and stops; onAsk may interrupt too", async () => {
    const dir = tmpDir();
    const h = await start(dir, { PermissionRequest: [{ command: jsonHook(dir, "pr.sh", { hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "deny", message: "no, and stop", interrupt: true } } }) }] }, {
      tools: [{ name: "Echo", description: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } }, call: () => "ran" }],
    });
    const o = await h.execute("Echo", { text: "x" });
    expect(o).toMatchObject({ status: "not-approved", executed: false, stop: { event: "PermissionRequest", reason: "no, and stop", kind: "interrupt" } });
    const h2 = await start(tmpDir(), {});
    const o2 = await h2.execute("Echo", { text: "x" }, { onAsk: () => ({ behavior: "deny", message: "user pressed Esc", interrupt: true }) });
    expect(o2.stop).toMatchObject({ source: "onAsk", kind: "interrupt" });
  });

  it("toolhost call --json carries stop; the exit code keeps its meaning", async () => {
    const dir = tmpDir();
    fs.writeFileSync(path.join(dir, "toolhost.config.json"), JSON.stringify({ hooks: hooks({ PreToolUse: [{ command: jsonHook(dir, "pre.sh", { continue: false, stopReason: "halt" }) }] }) }));
    const r = await runCli(["call", "Read", JSON.stringify({ file_path: path.join(dir, "toolhost.config.json") }), "--json", "--cwd", dir, "--config", path.join(dir, "toolhost.config.json")]);
    expect(r.code).toBe(0);
    expect(r.json().stop).toMatchObject({ event: "PreToolUse", reason: "halt" });
    expect(r.stderr).toContain("halt");
  });
});

describe("hooks on events toolhost does not run", () => {
  it("are listed by check, tools and hooks, never silently", async () => {
    const dir = tmpDir();
    const cfg = path.join(dir, "toolhost.config.json");
    fs.writeFileSync(cfg, JSON.stringify({ hooks: hooks({ TeammateIdle: [{ command: "echo idle" }], SessionStart: [{ command: "echo hi" }] }) }));
    const tools = await runCli(["tools", "--json", "--cwd", dir, "--config", cfg]);
    expect(tools.json().warnings).toContainEqual(expect.objectContaining({ path: "/hooks/TeammateIdle", message: expect.stringMatching(/TeammateIdle hook is not run: toolhost has no subagents/) }));
    const check = await runCli(["check", "--cwd", dir, "--config", cfg]);
    expect(check.stdout + check.stderr).toMatch(/TeammateIdle hook is not run/);
    const rows = (await runCli(["hooks", "--json", "--cwd", dir, "--config", cfg])).json<Array<{ event: string; runs: string }>>();
    expect(rows.map((r) => [r.event, r.runs])).toEqual([
      ["TeammateIdle", expect.stringMatching(/^not run: /)],
      ["SessionStart", expect.stringMatching(/^when the embedder reports it \(host\.event\); toolhost serve: on client initialize/)],
    ]);
  });
});
