/**
 * Hook input fields and environment Claude Code 2.1.328 sends (recorded: test/conformance/recordings/
 * hook-input-events.json, hook-input-effort.json, session-env-file.json, permission-request-suggestions.json):
 * `prompt_id` from the session's last reported prompt, `effort` / CLAUDE_EFFORT from CLAUDE_CODE_EFFORT_LEVEL,
 * one CLAUDE_ENV_FILE per SessionStart hook, PermissionRequest `permission_suggestions`. Real hook processes.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Host } from "../../core/index.ts";
import { hostWith, script, text, tmpDir } from "./helpers.ts";

const hosts: Host[] = [];
const savedEffort = process.env.CLAUDE_CODE_EFFORT_LEVEL;
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
  if (savedEffort === undefined) delete process.env.CLAUDE_CODE_EFFORT_LEVEL;
  else process.env.CLAUDE_CODE_EFFORT_LEVEL = savedEffort;
});

/** A hook that saves its stdin and two env vars to `<dir>/<name>.<n>.json`; with `write`, appends it to CLAUDE_ENV_FILE. */
function recorder(dir: string, name: string, write = ""): string {
  return script(
    path.join(dir, "bin"),
    `${name}.sh`,
    `#!/bin/sh\nn=$(ls '${dir}' | grep -c '^${name}\\.[0-9]*\\.json$')\nf='${dir}/${name}.'$n\ncat > "$f.json"\nprintf '%s|%s' "$CLAUDE_EFFORT" "$CLAUDE_ENV_FILE" > "$f.env"\n${write ? `printf '%s\\n' '${write}' >> "$CLAUDE_ENV_FILE"\n` : ""}exit 0\n`,
  );
}
const saved = (dir: string, name: string, n = 0) => JSON.parse(fs.readFileSync(path.join(dir, `${name}.${n}.json`), "utf8"));
const env = (dir: string, name: string, n = 0) => fs.readFileSync(path.join(dir, `${name}.${n}.env`), "utf8").split("|");

async function start(dir: string, map: Record<string, string[]>, extra: Record<string, unknown> = {}): Promise<Host> {
  const hooks = Object.fromEntries(Object.entries(map).map(([ev, cmds]) => [ev, cmds.map((command) => ({ matcher: "*", hooks: [{ type: "command", command }] }))]));
  const h = await hostWith(dir, { config: { hooks, permissions: { allow: ["Echo"] } }, ...extra });
  hosts.push(h);
  return h;
}

describe("hook input fields", () => {
  it("prompt_id: the session's last UserPromptSubmit (the embedder's promptId, else a new one) on every later event; none on SessionStart", async () => {
    const dir = tmpDir();
    const rec = (n: string) => recorder(dir, n);
    const h = await start(dir, { SessionStart: [rec("ss")], UserPromptSubmit: [rec("ups")], PreToolUse: [rec("pre")], Stop: [rec("stop")], SessionEnd: [rec("end")] });
    await h.event("SessionStart", { source: "startup" }, { sessionId: "s1" });
    await h.execute("Echo", { text: "before any prompt" }, { sessionId: "s1" });
    await h.event("UserPromptSubmit", { prompt: "go", promptId: "p-1" }, { sessionId: "s1" });
    await h.execute("Echo", { text: "x" }, { sessionId: "s1" });
    await h.execute("Echo", { text: "other session" }, { sessionId: "s2" });
    await h.event("Stop", { lastAssistantMessage: "done" }, { sessionId: "s1" });
    await h.event("UserPromptSubmit", { prompt: "again" }, { sessionId: "s1" });
    await h.execute("Echo", { text: "y" }, { sessionId: "s1" });
    await h.event("SessionEnd", { reason: "other" }, { sessionId: "s1" });
    expect("prompt_id" in saved(dir, "ss")).toBe(false);
    expect("prompt_id" in saved(dir, "pre", 0)).toBe(false);
    expect(saved(dir, "ups", 0)).toMatchObject({ prompt_id: "p-1", prompt: "go" });
    expect("promptId" in saved(dir, "ups", 0)).toBe(false);
    expect(saved(dir, "pre", 1).prompt_id).toBe("p-1");
    expect("prompt_id" in saved(dir, "pre", 2)).toBe(false); // s2 never reported a prompt
    expect(saved(dir, "stop").prompt_id).toBe("p-1");
    const second = saved(dir, "ups", 1).prompt_id;
    expect(second).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-/);
    expect(saved(dir, "pre", 3).prompt_id).toBe(second);
    expect(saved(dir, "end").prompt_id).toBe(second);
    // Claude Code's field order (recorded: hook-input-events).
    expect(Object.keys(saved(dir, "pre", 1)).slice(0, 5)).toEqual(["session_id", "transcript_path", "cwd", "prompt_id", "permission_mode"]);
  });

  it("effort and CLAUDE_EFFORT follow CLAUDE_CODE_EFFORT_LEVEL, on the events Claude Code sends them on; without it, neither", async () => {
    const dir = tmpDir();
    const rec = (n: string) => recorder(dir, n);
    process.env.CLAUDE_CODE_EFFORT_LEVEL = "low";
    const h = await start(dir, { SessionStart: [rec("ss")], UserPromptSubmit: [rec("ups")], PreToolUse: [rec("pre")], PostToolUse: [rec("post")], Stop: [rec("stop")] });
    await h.event("SessionStart", {}, { sessionId: "s" });
    await h.event("UserPromptSubmit", { prompt: "go" }, { sessionId: "s" });
    await h.execute("Echo", { text: "x" }, { sessionId: "s" });
    await h.event("Stop", {}, { sessionId: "s" });
    for (const n of ["pre", "post", "stop"]) {
      expect(saved(dir, n).effort, n).toEqual({ level: "low" });
      expect(env(dir, n)[0], n).toBe("low");
    }
    for (const n of ["ss", "ups"]) {
      expect("effort" in saved(dir, n), n).toBe(false);
      expect(env(dir, n)[0], n).toBe("");
    }
    expect(Object.keys(saved(dir, "pre")).indexOf("effort")).toBe(Object.keys(saved(dir, "pre")).indexOf("permission_mode") + 1);
    process.env.CLAUDE_CODE_EFFORT_LEVEL = "bogus";
    await h.execute("Echo", { text: "y" }, { sessionId: "s" });
    expect("effort" in saved(dir, "pre", 1)).toBe(false);
    expect(env(dir, "pre", 1)[0]).toBe("");
  });

  it("SessionStart hooks each get their own CLAUDE_ENV_FILE, and the session-env service lists what they wrote", async () => {
    const dir = tmpDir();
    const h = await start(dir, { SessionStart: [recorder(dir, "a", "export A=1"), recorder(dir, "b"), recorder(dir, "c", "export C=3")], PreToolUse: [recorder(dir, "pre")] });
    await h.event("SessionStart", { source: "startup" }, { sessionId: "sess/1" });
    const files = ["a", "b", "c"].map((n) => env(dir, n)[1]!);
    expect(files.map((f) => path.basename(f))).toEqual(["sessionstart-hook-0.sh", "sessionstart-hook-1.sh", "sessionstart-hook-2.sh"]);
    expect(new Set(files.map((f) => path.dirname(f))).size).toBe(1);
    expect(path.dirname(files[0]!)).toBe(path.join(process.env.TOOLHOST_HOME!, "session-env", "sess-1"));
    const svc = h.service<{ filesFor(id: string): string[] }>("command-hooks.session-env")!;
    expect(svc.filesFor("sess/1")).toEqual([files[0], files[2]]);
    expect(fs.readFileSync(files[2]!, "utf8")).toBe("export C=3\n");
    await h.execute("Echo", { text: "x" }, { sessionId: "sess/1" });
    expect(env(dir, "pre")[1]).toBe(""); // only SessionStart hooks get it (recorded)
  });

  it("Bash runs what the session's SessionStart hooks wrote to CLAUDE_ENV_FILE before each command, in hook order; other sessions do not", async () => {
    const dir = tmpDir();
    const hooks = { SessionStart: [recorder(dir, "a", "export A=one B=first"), recorder(dir, "b", "export B=second")].map((command) => ({ hooks: [{ type: "command", command }] })) };
    const h = await hostWith(dir, { bundled: true, config: { hooks } });
    hosts.push(h);
    await h.event("SessionStart", { source: "startup" }, { sessionId: "env-1" });
    const allow = () => ({ behavior: "allow" as const });
    const r = await h.execute("Bash", { command: 'echo "A=$A B=$B"' }, { sessionId: "env-1", onAsk: allow });
    expect(text(r)).toBe("A=one B=second");
    expect(text(await h.execute("Bash", { command: 'echo "A=$A"' }, { sessionId: "env-2", onAsk: allow }))).toBe("A=");
  });

  it("PermissionRequest carries Claude Code's permission_suggestions", async () => {
    const dir = tmpDir();
    const outside = tmpDir("toolhost-outside-");
    fs.writeFileSync(path.join(outside, "o.txt"), "o\n");
    const h = await hostWith(dir, { bundled: true, config: { hooks: { PermissionRequest: [{ matcher: "*", hooks: [{ type: "command", command: recorder(dir, "pr") }] }] } } });
    hosts.push(h);
    const deny = () => ({ behavior: "deny" as const });
    await h.execute("Bash", { command: "node -e 1" }, { onAsk: deny });
    await h.execute("Write", { file_path: path.join(dir, "w.txt"), content: "w\n" }, { onAsk: deny });
    await h.execute("Read", { file_path: path.join(outside, "o.txt") }, { onAsk: deny });
    expect(saved(dir, "pr", 0).permission_suggestions).toEqual([{ type: "addRules", rules: [{ toolName: "Bash", ruleContent: "node -e 1" }], behavior: "allow", destination: "localSettings" }]);
    expect(saved(dir, "pr", 1).permission_suggestions).toEqual([{ type: "setMode", mode: "acceptEdits", destination: "session" }]);
    expect(saved(dir, "pr", 2).permission_suggestions).toEqual([{ type: "addRules", rules: [{ toolName: "Read", ruleContent: `/${outside}/**` }], behavior: "allow", destination: "session" }]);
  });
});
