import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { definePlugin, defineTool, type Host } from "../../core/index.ts";
import { echoTool, hooksConfig, hostWith, jsonHook, script, text, tmpDir } from "./helpers.ts";

const hosts: Host[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});
async function start(...args: Parameters<typeof hostWith>): Promise<Host> {
  const h = await hostWith(...args);
  hosts.push(h);
  return h;
}
const hookTrace = (o: { trace: Array<{ stage: string }> }, event = "PreToolUse") => o.trace.filter((t) => t.stage === `hook.${event}`) as Array<{ stage: string; plugin?: string; outcome?: string; detail?: any }>;

describe("PreToolUse command hooks", () => {
  it("exit 2 blocks, with stderr as the reason; the tool does not run", async () => {
    const dir = tmpDir();
    const calls: unknown[] = [];
    const guard = script(dir, "guard.sh", "#!/bin/sh\ncat >/dev/null\necho 'no echo today' >&2\nexit 2\n");
    const host = await start(dir, { tools: [echoTool(calls)], config: { hooks: hooksConfig("PreToolUse", [{ command: guard }], "Echo") } });
    const o = await host.execute("Echo", { text: "hi" }, { yes: true });
    expect(o.status).toBe("blocked");
    expect(o.executed).toBe(false);
    expect(o.reason).toContain("no echo today");
    expect(calls).toHaveLength(0);
    const t = hookTrace(o);
    expect(t).toHaveLength(1);
    expect(t[0]!.plugin).toBe("config");
    expect(t[0]!.outcome).toBe("deny");
    expect(t[0]!.detail.exitCode).toBe(2);
  });

  it("JSON deny in hookSpecificOutput blocks with its reason", async () => {
    const dir = tmpDir();
    const h = jsonHook(dir, "deny.sh", { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "No writes to prod DB" } });
    const host = await start(dir, { config: { hooks: hooksConfig("PreToolUse", [{ command: h }]) } });
    const o = await host.execute("Echo", { text: "x" }, { yes: true });
    expect(o.status).toBe("blocked");
    expect(o.reason).toContain("No writes to prod DB");
  });

  it("a top-level permissionDecision warns loudly; a deny is honoured, an allow is not", async () => {
    const dir = tmpDir();
    const deny = jsonHook(dir, "top-deny.sh", { permissionDecision: "deny", permissionDecisionReason: "top level" });
    const allow = jsonHook(dir, "top-allow.sh", { permissionDecision: "allow" });
    let host = await start(dir, { config: { hooks: hooksConfig("PreToolUse", [{ command: deny }]) } });
    let o = await host.execute("Echo", { text: "x" }, { yes: true });
    expect(o.status).toBe("blocked");
    expect(o.reason).toContain("top level");
    expect(hookTrace(o)[0]!.detail.warnings[0]).toMatch(/belongs inside hookSpecificOutput/);

    host = await start(dir, { config: { hooks: hooksConfig("PreToolUse", [{ command: allow }]) } });
    o = await host.execute("Echo", { text: "x" }); // no --yes: the misplaced allow must not skip the prompt
    expect(o.status).toBe("not-approved");
    o = await host.execute("Echo", { text: "x" }, { yes: true });
    expect(o.status).toBe("ok");
    expect(text(o)).toMatch(/permissionDecision is at the top level/);
  });

  it("hookSpecificOutput allow skips the default prompt; ask forces one", async () => {
    const dir = tmpDir();
    const allow = jsonHook(dir, "allow.sh", { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" } });
    const ask = jsonHook(dir, "ask.sh", { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "check me" } });
    let host = await start(dir, { config: { hooks: hooksConfig("PreToolUse", [{ command: allow }]) } });
    expect((await host.execute("Echo", { text: "x" })).status).toBe("ok");
    host = await start(dir, { config: { hooks: hooksConfig("PreToolUse", [{ command: allow }, { command: ask }]) } });
    const o = await host.execute("Echo", { text: "x" });
    expect(o.status).toBe("not-approved");
    expect(o.reason).toContain("check me");
  });

  it("updatedInput reaches the tool, is re-validated, and is re-checked by deny", async () => {
    const dir = tmpDir();
    const calls: any[] = [];
    const rewrite = jsonHook(dir, "rw.sh", { hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: { text: "rewritten", command: "ls" } } });
    const rm = jsonHook(dir, "rm.sh", { hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: { command: "rm -rf /" } } });
    const denyRm = definePlugin({
      name: "deny-rm",
      apply(ctx) {
        ctx.hooks.build.tap("deny-rm", (b) =>
          b.hooks.deny.tap("deny-rm", (call) => (/\brm\b/.test(String(call.input?.command ?? "")) ? { behavior: "deny", reason: "rm is not allowed", rule: "Bash(rm *)" } : undefined)),
        );
      },
    });
    let host = await start(dir, { tools: [echoTool(calls)], plugins: [denyRm], config: { hooks: hooksConfig("PreToolUse", [{ command: rewrite }]) } });
    let o = await host.execute("Echo", { text: "orig", command: "pwd" }, { yes: true });
    expect(o.status).toBe("ok");
    expect(calls.at(-1)).toEqual({ text: "rewritten", command: "ls" });
    expect(hookTrace(o)[0]!.detail.changed.sort()).toEqual(["command", "text"]);
    expect(o.trace.filter((t) => t.stage === "validate")).toHaveLength(2);

    host = await start(dir, { tools: [echoTool(calls)], plugins: [denyRm], config: { hooks: hooksConfig("PreToolUse", [{ command: rm }]) } });
    const n = calls.length;
    o = await host.execute("Echo", { text: "a", command: "ls" }, { yes: true });
    expect(o.status).toBe("denied");
    expect(o.reason).toContain("rm is not allowed");
    expect(calls.length).toBe(n);
  });

  it("updatedInput that breaks the schema is rejected with the field and the hook named, not coerced; an unknown field is dropped (as Claude Code)", async () => {
    const dir = tmpDir();
    const calls: unknown[] = [];
    const bad = jsonHook(dir, "bad.sh", { hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: { text: 42 } } });
    const host = await start(dir, { tools: [echoTool(calls)], config: { hooks: hooksConfig("PreToolUse", [{ command: bad }]) } });
    const o = await host.execute("Echo", { text: "ok" }, { yes: true });
    expect(o.status).toBe("invalid-input");
    expect(o.executed).toBe(false);
    expect(o.reason).toContain('field "text" must be string, got number 42');
    expect(o.reason).toContain(`PreToolUse hook (command-hooks: config: ${bad})`);
    expect(calls).toHaveLength(0);
    const dir2 = tmpDir();
    const extra = jsonHook(dir2, "extra.sh", { hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: { text: "x", nope: 1 } } });
    const host2 = await start(dir2, { tools: [echoTool(calls)], config: { hooks: hooksConfig("PreToolUse", [{ command: extra }]) } });
    const o2 = await host2.execute("Echo", { text: "ok" }, { yes: true });
    expect(o2.status).toBe("ok");
    expect(calls).toEqual([{ text: "x" }]);
  });

  it("two hooks rewriting disjoint keys both survive; the same key follows declaration order", async () => {
    const dir = tmpDir();
    const calls: any[] = [];
    // Each hook echoes the input it received with one key changed (as real rewrite hooks do).
    const rw = (name: string, key: string, value: string, delay = 0) =>
      script(
        dir,
        name,
        `#!/usr/bin/env node\nlet s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);const inp={...j.tool_input,${JSON.stringify(key)}:${JSON.stringify(value)}};setTimeout(()=>{process.stdout.write(JSON.stringify({hookSpecificOutput:{hookEventName:"PreToolUse",updatedInput:inp}}))},${delay})});\n`,
      );
    // The first-declared hook finishes last: composition must not depend on finishing order.
    const a = rw("a.mjs", "tag", "from-a", 300);
    const b = rw("b.mjs", "mode", "from-b");
    let host = await start(dir, { tools: [echoTool(calls)], config: { hooks: hooksConfig("PreToolUse", [{ command: a }, { command: b }]) } });
    let o = await host.execute("Echo", { text: "t" }, { yes: true });
    expect(o.status).toBe("ok");
    expect(calls.at(-1)).toEqual({ text: "t", tag: "from-a", mode: "from-b" });

    const c = rw("c.mjs", "tag", "from-c");
    host = await start(dir, { tools: [echoTool(calls)], config: { hooks: hooksConfig("PreToolUse", [{ command: c }, { command: a }]) } });
    o = await host.execute("Echo", { text: "t" }, { yes: true });
    expect(calls.at(-1)).toEqual({ text: "t", tag: "from-a" }); // a is declared later → wins
    const conflict = o.trace.find((t) => t.stage === "hook.PreToolUse.conflict") as any;
    expect(conflict.detail.key).toBe("tag");
    expect(conflict.detail.later).toContain("/hooks/1");
  });

  it("garbage output is a non-blocking error; plain text is ignored", async () => {
    const dir = tmpDir();
    const garbage = script(dir, "g.sh", "#!/bin/sh\ncat >/dev/null\necho '{not json'\n");
    const plain = script(dir, "p.sh", "#!/bin/sh\ncat >/dev/null\necho 'hello there'\n");
    const host = await start(dir, { config: { hooks: hooksConfig("PreToolUse", [{ command: garbage }, { command: plain }]) } });
    const o = await host.execute("Echo", { text: "x" }, { yes: true });
    expect(o.status).toBe("ok");
    const [g, p] = hookTrace(o);
    expect(g!.outcome).toBe("bad-output");
    expect(g!.detail.error).toMatch(/not valid JSON/);
    expect(p!.outcome).toBe("ok");
  });

  it("a hook that hangs past its timeout is killed (whole process group) and fails open", async () => {
    const dir = tmpDir();
    const pidFile = path.join(dir, "child.pid");
    const hang = script(dir, "hang.sh", `#!/bin/sh\nsleep 30 &\necho $! > ${pidFile}\nwait\n`);
    const host = await start(dir, { config: { hooks: hooksConfig("PreToolUse", [{ command: hang, timeout: 1 }]) } });
    const t0 = Date.now();
    const o = await host.execute("Echo", { text: "x" }, { yes: true });
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(o.status).toBe("ok");
    expect(hookTrace(o)[0]!.outcome).toBe("timeout");
    const pid = Number(fs.readFileSync(pidFile, "utf8"));
    await new Promise((r) => setTimeout(r, 100));
    // The grandchild is gone too (or a zombie waiting for a reaper: state Z).
    const stat = fs.existsSync(`/proc/${pid}/stat`) ? fs.readFileSync(`/proc/${pid}/stat`, "utf8") : "";
    expect(stat === "" || / Z /.test(stat)).toBe(true);
  });

  it("onFailure: block turns a timeout or a non-0-non-2 exit into a block", async () => {
    const dir = tmpDir();
    const hang = script(dir, "hang.sh", "#!/bin/sh\nsleep 30\n");
    const one = script(dir, "one.sh", "#!/bin/sh\necho boom >&2\nexit 1\n");
    let host = await start(dir, { config: { hooks: hooksConfig("PreToolUse", [{ command: hang, timeout: 1, onFailure: "block" }]) } });
    let o = await host.execute("Echo", { text: "x" }, { yes: true });
    expect(o.status).toBe("blocked");
    expect(o.reason).toMatch(/timed out.*onFailure/);
    host = await start(dir, { config: { hooks: hooksConfig("PreToolUse", [{ command: one, onFailure: "block" }]) } });
    o = await host.execute("Echo", { text: "x" }, { yes: true });
    expect(o.status).toBe("blocked");
    expect(o.reason).toContain("boom");
    // default: exit 1 is non-blocking
    host = await start(dir, { config: { hooks: hooksConfig("PreToolUse", [{ command: one }]) } });
    o = await host.execute("Echo", { text: "x" }, { yes: true });
    expect(o.status).toBe("ok");
    expect(hookTrace(o)[0]!.outcome).toBe("error");
  });

  it("a valid JSON object on stdout with exit 1 is still honoured", async () => {
    const dir = tmpDir();
    const h = jsonHook(dir, "j1.sh", { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "json wins" } }, 1);
    const host = await start(dir, { config: { hooks: hooksConfig("PreToolUse", [{ command: h }]) } });
    const o = await host.execute("Echo", { text: "x" }, { yes: true });
    expect(o.status).toBe("blocked");
    expect(o.reason).toContain("json wins");
  });

  it("a missing script (127) does not block but is reported loudly in trace and notes", async () => {
    const dir = tmpDir();
    const host = await start(dir, { config: { hooks: hooksConfig("PreToolUse", [{ command: path.join(dir, "nope.sh") }, { command: "definitely-not-a-command-xyz", args: ["a"] }]) } });
    const o = await host.execute("Echo", { text: "x" }, { yes: true });
    expect(o.status).toBe("ok");
    const t = hookTrace(o);
    expect(t.map((x) => x.outcome)).toEqual(["missing", "missing"]);
    expect(t[0]!.detail.exitCode).toBe(127);
    expect(text(o)).toMatch(/could not run: command not found.*did NOT check this call/s);
  });

  it("continue: false runs the call, then asks the agent to stop with stopReason (Claude Code's timing)", async () => {
    const dir = tmpDir();
    const h = jsonHook(dir, "stop.sh", { continue: false, stopReason: "maintenance window" });
    const host = await start(dir, { config: { hooks: hooksConfig("PreToolUse", [{ command: h }]) } });
    const o = await host.execute("Echo", { text: "x" }, { yes: true });
    expect(o.status).toBe("ok");
    expect(o.stop).toMatchObject({ event: "PreToolUse", reason: "maintenance window" });
  });

  it("a substitute result skips the call", async () => {
    const dir = tmpDir();
    const calls: unknown[] = [];
    const h = jsonHook(dir, "sub.sh", { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", toolhostSubstituteResult: "cached answer" } });
    const host = await start(dir, { tools: [echoTool(calls)], config: { hooks: hooksConfig("PreToolUse", [{ command: h }]) } });
    const o = await host.execute("Echo", { text: "x" });
    expect(o.status).toBe("ok");
    expect(o.executed).toBe(false);
    expect(text(o)).toBe("cached answer");
    expect(calls).toHaveLength(0);
  });

  it("additionalContext is appended after the result", async () => {
    const dir = tmpDir();
    const h = jsonHook(dir, "ctx.sh", { hookSpecificOutput: { hookEventName: "PreToolUse", additionalContext: "remember the style guide" } });
    const host = await start(dir, { config: { hooks: hooksConfig("PreToolUse", [{ command: h }]) } });
    const o = await host.execute("Echo", { text: "x" }, { yes: true });
    expect(o.result.content.at(-1)!.text).toBe("remember the style guide");
    expect(o.result.content[0]!.text).toBe('{"text":"x"}');
  });

  it("a deny keeps every hook's additionalContext: it follows the deny's reason (Claude Code keeps it beside the deny)", async () => {
    const dir = tmpDir();
    const calls: unknown[] = [];
    const deny = jsonHook(dir, "deny.sh", { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no writes today", additionalContext: "the freeze ends Monday" } });
    const ctx = jsonHook(dir, "ctx.sh", { hookSpecificOutput: { hookEventName: "PreToolUse", additionalContext: "remember the style guide" } });
    const host = await start(dir, { tools: [echoTool(calls)], config: { hooks: hooksConfig("PreToolUse", [{ command: ctx }, { command: deny }]) } });
    const o = await host.execute("Echo", { text: "x" }, { yes: true });
    expect(o.status).toBe("blocked");
    expect(calls).toHaveLength(0);
    expect(text(o)).toBe(`PreToolUse hook (config: ${deny}) blocked Echo: no writes today\nremember the style guide\nthe freeze ends Monday`);
  });

  it("a hook's ask that is refused keeps its reason in the result and the trace", async () => {
    const dir = tmpDir();
    const calls: unknown[] = [];
    const ask = jsonHook(dir, "ask.sh", { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "prod database: ask first" } });
    const host = await start(dir, { tools: [echoTool(calls)], config: { permissions: { allow: ["Echo"] }, hooks: hooksConfig("PreToolUse", [{ command: ask }]) } });
    for (const [answer, said] of [[{ behavior: "deny" }, "Echo was not approved (approval was needed: prod database: ask first)."], [{ behavior: "deny", message: "not now" }, "Echo was not approved: not now (approval was needed: prod database: ask first)."]] as const) {
      const o = await host.execute("Echo", { text: "x" }, { onAsk: () => answer });
      expect(o.status).toBe("not-approved");
      expect(text(o)).toBe(said);
      expect(o.reason).toBe(said);
      const t = o.trace.find((x) => x.stage === "ask")!;
      expect(t.outcome).toBe("deny");
      expect(t.detail).toMatchObject({ reason: "prod database: ask first", rule: "PreToolUse hook", plugin: `config: ${ask}` });
    }
    // Nobody to ask (no onAsk, no --yes): the reason is in the refusal too.
    const o = await host.execute("Echo", { text: "x" });
    expect(text(o)).toContain("needs approval (prod database: ask first) and there is no one to ask");
    expect(o.trace.find((x) => x.stage === "ask")!.detail).toMatchObject({ reason: "prod database: ask first" });
    expect(calls).toHaveLength(0);
  });

  it("stdin carries the Claude Code fields; env carries CLAUDE_PROJECT_DIR", async () => {
    const dir = tmpDir();
    const out = path.join(dir, "stdin.json");
    const envOut = path.join(dir, "env.txt");
    const h = script(dir, "dump.sh", `#!/bin/sh\ncat > ${out}\necho "$CLAUDE_PROJECT_DIR|$TOOLHOST_PROJECT_DIR" > ${envOut}\n`);
    const host = await start(dir, { config: { hooks: hooksConfig("PreToolUse", [{ command: h }]), transcript: "t.jsonl" } });
    await host.execute("Echo", { text: "x" }, { yes: true, sessionId: "s1", toolUseId: "toolu_1" });
    const j = JSON.parse(fs.readFileSync(out, "utf8"));
    expect(j).toEqual({
      session_id: "s1",
      transcript_path: path.join(process.env.TOOLHOST_HOME!, "projects", dir.replace(/[^A-Za-z0-9]/g, "-"), "s1.jsonl"), // the Claude Code-format transcript, not the call log
      cwd: dir,
      permission_mode: "default",
      hook_event_name: "PreToolUse",
      tool_name: "Echo",
      tool_input: { text: "x" },
      tool_use_id: "toolu_1",
    });
    expect(fs.readFileSync(envOut, "utf8").trim()).toBe(`${dir}|${dir}`);
  });

  it("exec form (args) runs without a shell; node hooks work in both forms", async () => {
    const dir = tmpDir();
    const js = script(dir, "deny.mjs", `let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);console.log(JSON.stringify({hookSpecificOutput:{hookEventName:"PreToolUse",permissionDecision:j.tool_input.text==="bad"?"deny":"allow",permissionDecisionReason:"node says "+process.argv[2]}}))});\n`);
    let host = await start(dir, { config: { hooks: hooksConfig("PreToolUse", [{ command: "node", args: [js, "$HOME;not-expanded"] }]) } });
    let o = await host.execute("Echo", { text: "bad" });
    expect(o.status).toBe("blocked");
    expect(o.reason).toContain("node says $HOME;not-expanded");
    expect((await host.execute("Echo", { text: "good" })).status).toBe("ok");
    host = await start(dir, { config: { hooks: hooksConfig("PreToolUse", [{ command: `node ${js} shell` }]) } });
    o = await host.execute("Echo", { text: "bad" });
    expect(o.reason).toContain("node says shell");
  });
});

describe("matchers, if rules, dedup", () => {
  const counter = (dir: string, name: string) => {
    const log = path.join(dir, `${name}.log`);
    return { cmd: script(dir, `${name}.sh`, `#!/bin/sh\ncat >/dev/null\necho x >> ${log}\n`), count: () => (fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n").filter(Boolean).length : 0) };
  };

  it("matcher forms: * / empty / absent, exact lists, unanchored regex", async () => {
    const dir = tmpDir();
    const cases: Array<[string | undefined, boolean]> = [
      [undefined, true],
      ["", true],
      ["*", true],
      ["Echo", true],
      ["Other|Echo", true],
      ["Other, Echo", true],
      ["Ech", false], // exact, not prefix
      ["Ec.*", true], // regex
      ["cho", false], // exact charset → exact
      ["c+ho", true], // regex, unanchored
      ["^Other$", false],
      ["mcp__.*", false],
    ];
    const groups = cases.map(([m], i) => ({ ...(m === undefined ? {} : { matcher: m }), hooks: [{ type: "command", command: counter(dir, `m${i}`).cmd }] }));
    const host = await start(dir, { config: { hooks: { PreToolUse: groups } } });
    await host.execute("Echo", { text: "x" }, { yes: true });
    cases.forEach(([m, expected], i) => expect([m, counter(dir, `m${i}`).count() === 1]).toEqual([m, expected]));
  });

  it("`if` runs a handler only when its permission rule matches", async () => {
    const dir = tmpDir();
    const git = counter(dir, "git");
    const any = counter(dir, "any");
    const host = await start(dir, { config: { hooks: hooksConfig("PreToolUse", [{ command: git.cmd, if: "Echo(git *)" }, { command: any.cmd, if: "Echo" }]) } });
    await host.execute("Echo", { command: "ls -la" }, { yes: true });
    expect([git.count(), any.count()]).toEqual([0, 1]);
    await host.execute("Echo", { command: "git status" }, { yes: true });
    expect([git.count(), any.count()]).toEqual([1, 2]);
  });

  it("`if` uses the permission matcher: a Bash rule checks every subcommand of a compound command", async () => {
    const dir = tmpDir();
    const log = path.join(dir, "rm.log");
    const guard = script(dir, "rm-guard.sh", `#!/bin/sh\ncat >/dev/null\necho x >> ${log}\necho 'no rm' >&2\nexit 2\n`);
    // Inline stand-in for Bash that never runs anything (the built-in Bash wins the name after a merge;
    // the commands below are harmless either way).
    const bash = defineTool({ name: "Bash", description: "records", inputSchema: { properties: { command: { type: "string" } } }, call: (i: { command: string }) => `ran ${i.command}` });
    const host = await start(dir, { tools: [bash], config: { hooks: hooksConfig("PreToolUse", [{ command: guard, if: "Bash(rm *)" }], "Bash") } });
    const fired = () => (fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n").filter(Boolean).length : 0);
    const cases: Array<[string, boolean]> = [
      ["echo hi", false],
      ["echo hi && rm -f nothing.txt", true],
      ["FOO=1 rm -f nothing.txt", true],
      ["echo $(rm -f nothing.txt)", true],
      ["echo rm", false],
    ];
    for (const [cmd, expected] of cases) {
      const before = fired();
      const o = await host.execute("Bash", { command: cmd }, { yes: true });
      expect([cmd, fired() > before, o.status === "blocked"]).toEqual([cmd, expected, expected]);
    }
  });

  it("`if` follows Claude Code's hook-if semantics (matchesHookIf), not the permission rule matcher", async () => {
    // formats §3.3: a pattern more specific than the command name runs anyway when $()/backticks/$VAR
    // are present; an unparseable command fails open; `Edit(src/**)` matches only <cwd>/src.
    const dir = tmpDir();
    const push = counter(dir, "push");
    const edit = counter(dir, "edit");
    const bash = defineTool({ name: "Bash", description: "records", inputSchema: { properties: { command: { type: "string" } } }, call: (i: { command: string }) => `ran ${i.command}` });
    const hooks = { PreToolUse: [{ hooks: [{ type: "command", command: push.cmd, if: "Bash(git push *)" }, { type: "command", command: edit.cmd, if: "Edit(src/**)" }] }] };
    const host = await start(dir, { tools: [bash], config: { hooks } });
    const bashCases: Array<[string, boolean]> = [
      ["git status", false],
      ["git push origin main", true],
      ["git $(echo push) origin", true],
      ["echo 'oops", true],
      ["ls && git push origin", true],
    ];
    for (const [cmd, expected] of bashCases) {
      const before = push.count();
      await host.execute("Bash", { command: cmd }, { yes: true });
      expect([cmd, push.count() > before]).toEqual([cmd, expected]);
    }
    // The built-in Edit runs after the hook; the files do not exist, so it edits nothing.
    const editCases: Array<[string, boolean]> = [
      [path.join(dir, "src", "a.ts"), true],
      [path.join(dir, "pkg", "src", "a.ts"), false],
      [path.join(dir, "other.ts"), false],
    ];
    for (const [file, expected] of editCases) {
      const before = edit.count();
      await host.execute("Edit", { file_path: file, old_string: "a", new_string: "b" }, { yes: true });
      expect([file, edit.count() > before]).toEqual([file, expected]);
    }
  });

  it("identical handlers from settings files run once; a plugin's copy stays separate", async () => {
    const dir = tmpDir();
    const c = counter(dir, "dup");
    const hooks = hooksConfig("PreToolUse", [{ command: c.cmd }], "Echo");
    fs.mkdirSync(path.join(dir, ".claude"));
    fs.writeFileSync(path.join(dir, ".claude", "settings.json"), JSON.stringify({ hooks }));
    fs.writeFileSync(path.join(dir, ".claude", "settings.local.json"), JSON.stringify({ hooks }));
    const plug = path.join(dir, "plug");
    fs.mkdirSync(path.join(plug, ".claude-plugin"), { recursive: true });
    fs.writeFileSync(path.join(plug, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "plug", hooks }));
    const host = await start(dir, { config: { hooks }, pluginDirs: [plug] });
    const o = await host.execute("Echo", { text: "x" }, { yes: true });
    expect(c.count()).toBe(2);
    const t = hookTrace(o);
    expect(t.map((x) => x.plugin)).toEqual(["config", "plug"]);
    expect(t[0]!.detail.dedupedFrom).toHaveLength(2);
  });
});

describe("a real Claude Code plugin directory", () => {
  it("loads .claude-plugin/plugin.json + hooks/hooks.json; CLAUDE_PLUGIN_ROOT is substituted and exported", async () => {
    const dir = tmpDir();
    const plug = path.join(dir, "guard-plugin");
    const envOut = path.join(dir, "plugin-env.txt");
    fs.mkdirSync(path.join(plug, ".claude-plugin"), { recursive: true });
    fs.mkdirSync(path.join(plug, "hooks"));
    fs.writeFileSync(path.join(plug, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "guard-plugin", version: "1.0.0", description: "blocks secrets" }));
    script(
      plug,
      "scripts/guard.py.sh",
      `#!/bin/sh\ninput=$(cat)\necho "$CLAUDE_PLUGIN_ROOT|$CLAUDE_PLUGIN_DATA|$TOOLHOST_PLUGIN_ROOT|$CLAUDE_PROJECT_DIR" > ${envOut}\ncase "$input" in *secret*) echo "secrets are off limits" >&2; exit 2;; esac\nexit 0\n`,
    );
    fs.writeFileSync(
      path.join(plug, "hooks", "hooks.json"),
      JSON.stringify({ description: "guard", hooks: { PreToolUse: [{ matcher: "Echo|Write", hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/scripts/guard.py.sh", timeout: 10 }] }] } }),
    );
    const host = await start(dir, { pluginDirs: [plug], dataHome: path.join(dir, "data") });
    let o = await host.execute("Echo", { text: "the secret" }, { yes: true });
    expect(o.status).toBe("blocked");
    expect(o.reason).toContain("secrets are off limits");
    const t = hookTrace(o)[0]!;
    expect(t.plugin).toBe("guard-plugin");
    expect(t.detail.file).toBe(path.join(plug, "hooks", "hooks.json"));
    expect(t.detail.command).toBe(path.join(plug, "scripts", "guard.py.sh"));
    const [root, data, twin, project] = fs.readFileSync(envOut, "utf8").trim().split("|");
    expect([root, twin, project]).toEqual([plug, plug, dir]);
    expect(data).toBe(path.join(dir, "data", "guard-plugin"));
    expect(fs.statSync(data!).isDirectory()).toBe(true); // created on first reference
    o = await host.execute("Echo", { text: "harmless" }, { yes: true });
    expect(o.status).toBe("ok");
  });
});

describe("PostToolUse, PostToolUseFailure, PermissionRequest", () => {
  it("PostToolUse: decision block adds the reason, additionalContext is appended, updatedToolOutput replaces the output", async () => {
    const dir = tmpDir();
    const stdinOut = path.join(dir, "post.json");
    const dump = script(dir, "dump.sh", `#!/bin/sh\ncat > ${stdinOut}\n`);
    const block = jsonHook(dir, "block.sh", { decision: "block", reason: "Run the tests first", hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "tests: 3 failing" } });
    const upd0 = jsonHook(dir, "upd0.sh", { hookSpecificOutput: { hookEventName: "PostToolUse", updatedToolOutput: "first rewrite" } });
    const upd = jsonHook(dir, "upd.sh", { hookSpecificOutput: { hookEventName: "PostToolUse", updatedToolOutput: "redacted output" } });
    const host = await start(dir, { config: { hooks: hooksConfig("PostToolUse", [{ command: dump }, { command: upd0 }, { command: block }, { command: upd }]) } });
    const o = await host.execute("Echo", { text: "x" }, { yes: true, toolUseId: "toolu_p" });
    expect(o.status).toBe("ok");
    const all = text(o);
    expect(o.result.content[0]!.text).toBe("redacted output");
    expect(o.trace.find((t) => t.stage === "hook.PostToolUse.conflict")).toMatchObject({ outcome: "later-wins", detail: { key: "updatedToolOutput" } });
    expect(all).toContain("Run the tests first");
    expect(all).toContain("tests: 3 failing");
    const j = JSON.parse(fs.readFileSync(stdinOut, "utf8"));
    expect(j.hook_event_name).toBe("PostToolUse");
    expect(j.tool_use_id).toBe("toolu_p");
    expect(j.tool_response).toEqual([{ type: "text", text: '{"text":"x"}' }]);
    expect(typeof j.duration_ms).toBe("number");
  });

  it("PostToolUse exit 2 shows stderr to the model but does not undo the call", async () => {
    const dir = tmpDir();
    const h = script(dir, "p2.sh", "#!/bin/sh\ncat >/dev/null\necho 'lint failed: 2 errors' >&2\nexit 2\n");
    const host = await start(dir, { config: { hooks: hooksConfig("PostToolUse", [{ command: h }]) } });
    const o = await host.execute("Echo", { text: "x" }, { yes: true });
    expect(o.executed).toBe(true);
    expect(text(o)).toContain("lint failed: 2 errors");
  });

  it("PostToolUseFailure receives the error and can add context", async () => {
    const dir = tmpDir();
    const out = path.join(dir, "fail.json");
    const h = script(dir, "f.sh", `#!/bin/sh\ncat > ${out}\necho '{"hookSpecificOutput":{"hookEventName":"PostToolUseFailure","additionalContext":"try --force"}}'\n`);
    const failing = defineTool({ name: "Fail", description: "fails", inputSchema: { properties: {} }, isReadOnly: true, call: () => { throw new Error("disk full"); } });
    const host = await start(dir, { tools: [failing], config: { hooks: hooksConfig("PostToolUseFailure", [{ command: h }]) } });
    const o = await host.execute("Fail", {}, { yes: true });
    expect(o.status).toBe("tool-error");
    expect(text(o)).toContain("try --force");
    const j = JSON.parse(fs.readFileSync(out, "utf8"));
    expect(j.hook_event_name).toBe("PostToolUseFailure");
    expect(j.error).toContain("disk full");
    expect(j.is_interrupt).toBe(false);
  });

  it("PermissionRequest answers an ask: allow (with updatedInput) and deny", async () => {
    const dir = tmpDir();
    const calls: any[] = [];
    const out = path.join(dir, "perm.json");
    const allow = script(dir, "allow.sh", `#!/bin/sh\ncat > ${out}\necho '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"text":"approved"}}}}'\n`);
    const deny = jsonHook(dir, "deny.sh", { hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "deny", message: "not on Fridays" } } });
    let host = await start(dir, { tools: [echoTool(calls)], config: { hooks: hooksConfig("PermissionRequest", [{ command: allow }]) } });
    let o = await host.execute("Echo", { text: "x" }); // no yes, no onAsk: only the hook can approve
    expect(o.status).toBe("ok");
    expect(calls.at(-1)).toEqual({ text: "approved" });
    const j = JSON.parse(fs.readFileSync(out, "utf8"));
    expect(j.hook_event_name).toBe("PermissionRequest");
    expect(j.tool_use_id).toBeUndefined();
    host = await start(dir, { tools: [echoTool(calls)], config: { hooks: hooksConfig("PermissionRequest", [{ command: allow }, { command: deny }]) } });
    o = await host.execute("Echo", { text: "x" }, { yes: true });
    expect(o.status).toBe("not-approved");
    expect(o.reason).toContain("not on Fridays");
  });
});

describe("async hooks", () => {
  it("run in the background; their decision is ignored; their context arrives with the session's next call", async () => {
    const dir = tmpDir();
    const slow = script(dir, "slow.sh", `#!/bin/sh\ncat >/dev/null\nsleep 0.3\necho '{"systemMessage":"lint done","hookSpecificOutput":{"hookEventName":"PostToolUse","permissionDecision":"deny","additionalContext":"lint: 0 problems"}}'\n`);
    const host = await start(dir, { config: { hooks: hooksConfig("PostToolUse", [{ command: slow, async: true }]) } });
    const t0 = Date.now();
    const first = await host.execute("Echo", { text: "1" }, { yes: true, sessionId: "a" });
    expect(Date.now() - t0).toBeLessThan(250);
    expect(first.trace.find((t) => t.stage === "hook.PostToolUse")!.outcome).toBe("async-started");
    expect(text(first)).not.toContain("lint");
    await new Promise((r) => setTimeout(r, 700));
    const other = await host.execute("Echo", { text: "x" }, { yes: true, sessionId: "b" });
    expect(text(other)).not.toContain("lint: 0 problems"); // another session gets nothing
    const next = await host.execute("Echo", { text: "2" }, { yes: true, sessionId: "a" });
    expect(next.status).toBe("ok");
    expect(text(next)).toContain("lint: 0 problems");
    expect(text(next)).toContain("[hook message] lint done");
    expect(next.trace.some((t) => t.stage === "hook.PostToolUse.async" && t.outcome === "delivered")).toBe(true);
    const again = await host.execute("Echo", { text: "3" }, { yes: true, sessionId: "a" });
    expect(text(again)).not.toContain("lint: 0 problems"); // delivered once
  });
});

describe("in-process and command handlers together", () => {
  it("an in-process PreToolUse handler at a negative stage runs first; a command hook sees its rewrite", async () => {
    const dir = tmpDir();
    const out = path.join(dir, "seen.json");
    const dump = script(dir, "dump.sh", `#!/bin/sh\ncat > ${out}\n`);
    const inproc = definePlugin({
      name: "inproc",
      apply(ctx) {
        ctx.hooks.build.tap("inproc", (b) => b.hooks.preToolUse.tap({ name: "inproc", stage: -100 }, (pre) => pre.updateInput({ ...pre.input, tag: "in-process" }, "inproc")));
      },
    });
    const host = await start(dir, { plugins: [inproc], config: { hooks: hooksConfig("PreToolUse", [{ command: dump }]) } });
    const o = await host.execute("Echo", { text: "x" }, { yes: true });
    expect(JSON.parse(fs.readFileSync(out, "utf8")).tool_input).toEqual({ text: "x", tag: "in-process" });
    const stages = o.trace.map((t) => `${t.stage}:${t.plugin}`);
    expect(stages.indexOf("build.preToolUse:inproc")).toBeLessThan(stages.indexOf("hook.PreToolUse:config"));
  });
});
