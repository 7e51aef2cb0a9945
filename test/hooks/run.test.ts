import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { directExec, parseStdout, runHandler } from "../../plugins/command-hooks/run.ts";
import { compileMatcher, type Handler } from "../../plugins/command-hooks/handlers.ts";
import { interpret } from "../../plugins/command-hooks/interpret.ts";
import { composeInputs } from "../../plugins/command-hooks/aggregate.ts";
import { script, tmpDir } from "./helpers.ts";

const handler = (over: Partial<Handler>): Handler => ({
  event: "PreToolUse", index: 0, plugin: "p", pluginKind: "plugin", file: "/f", jsonPath: "/hooks/PreToolUse/0/hooks/0", matches: () => true,
  rulesRoot: "/", command: "true", timeout: 5, onFailure: "continue", env: {}, async: false, type: "command", allowedEnvVars: [], duplicates: [], ...over,
});

describe("shell-form fast path (directExec)", () => {
  const dir = tmpDir();
  const withShebang = script(dir, "a.sh", "#!/bin/sh\necho a\n");
  const noShebang = script(dir, "plain.sh", "echo plain\n");
  it("execs plain commands whose first word is an executable with #! or ELF", () => {
    expect(directExec(`${withShebang} one two`, dir)).toEqual({ file: withShebang, args: ["one", "two"] });
    expect(directExec("./a.sh", dir)).toEqual({ file: withShebang, args: [] });
    expect(directExec("node x.js --flag", dir)?.file).toMatch(/\/node$/);
  });
  it("leaves everything else to sh -c", () => {
    for (const c of ["exit 2", "echo hi", "true", `${withShebang} $HOME`, `${withShebang} "q"`, `${withShebang}; rm x`, `${withShebang} > out`, `FOO=1 ${withShebang}`, "~/x.sh", noShebang, path.join(dir, "missing.sh"), "no-such-cmd-xyz a", `${withShebang} *`]) {
      expect([c, directExec(c, dir)]).toEqual([c, undefined]);
    }
  });
  it("a script without #! still runs (through sh), a missing one exits 127", async () => {
    const r = await runHandler(handler({ command: noShebang }), "{}", { cwd: dir, projectDir: dir });
    expect([r.status, r.stdout.trim()]).toEqual(["ok", "plain"]);
    const m = await runHandler(handler({ command: path.join(dir, "missing.sh") }), "{}", { cwd: dir, projectDir: dir });
    expect([m.status, m.exitCode]).toEqual(["missing", 127]);
  });
});

describe("stdout parsing and exit codes", () => {
  it("JSON only when stdout starts with {", () => {
    expect(parseStdout('  {"a":1}')).toEqual({ json: { a: 1 } });
    expect(parseStdout("ok {}")).toEqual({});
    expect(parseStdout("{bad").badJson).toMatch(/not valid JSON/);
    expect(parseStdout("[1]")).toEqual({});
  });
  it("exit 2 + invalid JSON still blocks; exit 2 reason is stderr", () => {
    const e = interpret("PreToolUse", handler({}), { status: "block", exitCode: 2, stdout: "{oops", stderr: "nope\n", badJson: "bad", ms: 1 });
    expect([e.decision, e.reason]).toEqual(["deny", "nope"]);
  });
  it("a JSON allow cannot override exit 2, and its reason is not used as the block reason", () => {
    const e = interpret("PreToolUse", handler({}), { status: "block", exitCode: 2, stdout: "", stderr: "real reason\n", json: { hookSpecificOutput: { permissionDecision: "allow", permissionDecisionReason: "looks fine" } }, ms: 1 });
    expect([e.decision, e.reason]).toEqual(["deny", "real reason"]);
  });
  it("exit 2 on PermissionRequest is ignored with a warning", () => {
    const e = interpret("PermissionRequest", handler({ event: "PermissionRequest" }), { status: "block", exitCode: 2, stdout: "", stderr: "x", ms: 1 });
    expect(e.decision).toBeUndefined();
    expect(e.warnings[0]).toMatch(/ignored on PermissionRequest/);
  });
  it("legacy top-level decision approve/block maps to allow/deny", () => {
    const run = (json: Record<string, unknown>) => interpret("PreToolUse", handler({}), { status: "ok", exitCode: 0, stdout: "", stderr: "", json, ms: 1 });
    expect(run({ decision: "approve" }).decision).toBe("allow");
    expect(run({ decision: "block", reason: "r" })).toMatchObject({ decision: "deny", reason: "r" });
    expect(run({ hookSpecificOutput: { permissionDecision: "maybe" } }).warnings[0]).toMatch(/must be allow, deny, ask or defer/);
  });
});

describe("matcher compilation", () => {
  it("invalid regex never fires and reports why", () => {
    const m = compileMatcher("Bash(");
    expect(m.error).toMatch(/not a valid regular expression/);
    expect(m.test("Bash(")).toBe(false);
  });
  it("legacy names in exact lists match the canonical tool", () => {
    expect(compileMatcher("Task").test("Agent")).toBe(true);
    expect(compileMatcher("Bash|KillShell").test("TaskStop")).toBe(true);
  });
});

describe("composeInputs", () => {
  const eff = (i: number, updatedInput: Record<string, unknown>, decision?: "deny") =>
    ({ handler: handler({ index: i, jsonPath: `/h/${i}` }), run: {} as any, warnings: [], updatedInput, decision }) as any;
  it("applies per-key diffs in declaration order; removals count; denies contribute nothing", () => {
    const base = { a: 1, b: 2, c: 3 };
    const c = composeInputs(base, [eff(0, { a: 10, b: 2, c: 3 }), eff(1, { a: 1, b: 2 }), eff(2, { a: 1, b: 2, c: 3, d: 4 }), eff(3, { z: 1 }, "deny")]);
    expect(c.input).toEqual({ a: 10, b: 2, d: 4 });
    expect(c.conflicts).toEqual([]);
  });
  it("same key changed twice: later wins, conflict recorded; identical values are not a conflict", () => {
    const c = composeInputs({ a: 1 }, [eff(0, { a: 2 }), eff(1, { a: 3 }), eff(2, { a: 3 })]);
    expect(c.input).toEqual({ a: 3 });
    expect(c.conflicts.map((x) => [x.earlier.index, x.later.index])).toEqual([[0, 1]]);
  });
});

describe("environment", () => {
  it("OTEL_* is stripped; plugin vars are exported", async () => {
    const dir = tmpDir();
    process.env.OTEL_TEST_VAR = "secret";
    const s = script(dir, "env.sh", "#!/bin/sh\necho \"[$OTEL_TEST_VAR][$CLAUDE_PLUGIN_ROOT]\"\n");
    const r = await runHandler(handler({ command: s, env: { CLAUDE_PLUGIN_ROOT: "/root/x" } }), "{}", { cwd: dir, projectDir: dir });
    delete process.env.OTEL_TEST_VAR;
    expect(r.stdout.trim()).toBe("[][/root/x]");
    fs.rmSync(dir, { recursive: true });
  });
});

describe('"shell": "powershell" (recorded: hook-shell-powershell)', () => {
  it("without pwsh or powershell on PATH: a non-blocking failure in Claude Code's words, naming the hook; nothing runs", async () => {
    const dir = tmpDir();
    const marker = path.join(dir, "ran");
    const h = handler({ shell: "powershell", command: `touch '${marker}'`, plugin: "settings:project", file: "/p/.claude/settings.json" });
    const r = await runHandler(h, "{}", { cwd: dir, projectDir: dir, env: { PATH: dir } });
    expect([r.status, r.exitCode, fs.existsSync(marker)]).toEqual(["error", 1, false]);
    expect(r.stderr).toBe(`Failed to run: hook (settings:project /p/.claude/settings.json/hooks/PreToolUse/0/hooks/0) has shell: 'powershell' but no PowerShell executable (pwsh or powershell) was found on PATH. Install PowerShell, or remove "shell": "powershell" to run it with sh.`);
    const e = interpret("PreToolUse", h, r);
    expect([e.failure, e.decision]).toEqual([r.message, undefined]);
  });
  it("with pwsh on PATH it runs pwsh -NoProfile -NonInteractive -Command <command>", async () => {
    const dir = tmpDir();
    script(dir, "pwsh", `#!/bin/sh\nprintf '%s|' "$@"\n`);
    const r = await runHandler(handler({ shell: "powershell", command: "Write-Output hi" }), "{}", { cwd: dir, projectDir: dir, env: { PATH: `${dir}:/usr/bin:/bin` } });
    expect([r.status, r.stdout]).toEqual(["ok", "-NoProfile|-NonInteractive|-Command|Write-Output hi|"]);
  });
});
