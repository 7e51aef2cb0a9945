/**
 * "Always" at the terminal prompt of `toolhost call` (a real pseudo-terminal): the narrowed rule is written to
 * the project's .claude/settings.local.json as Claude Code does, so the next process — with no terminal
 * and no --yes — runs the same command unasked, and a different command is still not approved.
 */
import fs from "node:fs";
import path from "node:path";
import pty from "node-pty";
import { describe, expect, it } from "vitest";
import { BIN, runCli, tmpdir, until } from "../helpers.ts";

describe("Always at the terminal prompt", () => {
  it("persists the rule to .claude/settings.local.json; a later process is not asked", async () => {
    const proj = tmpdir("toolhost-always-");
    const term = pty.spawn(process.execPath, [BIN, "call", "Bash", JSON.stringify({ command: "touch made" }), "--cwd", proj, "--session", "al1"], { cwd: proj, env: { ...process.env } as Record<string, string>, cols: 200, rows: 40 });
    let out = "";
    let code: number | undefined;
    term.onData((d) => (out += d));
    term.onExit((e) => (code = e.exitCode));
    await until(() => /\[a\]lways/.test(out) || code !== undefined, 120_000);
    expect(out).toContain("Allow Bash?");
    term.write("a\r");
    await until(() => code !== undefined, 120_000);
    expect(code, out).toBe(0);
    expect(fs.existsSync(path.join(proj, "made"))).toBe(true);
    const settings = JSON.parse(fs.readFileSync(path.join(proj, ".claude/settings.local.json"), "utf8"));
    expect(settings.permissions.allow).toEqual(["Bash(touch made)"]);
    fs.rmSync(path.join(proj, "made"));
    // another process, another session, no terminal, no --yes: the persisted rule answers
    const again = await runCli(["call", "Bash", JSON.stringify({ command: "touch made" }), "--cwd", proj], { cwd: proj });
    expect(again.code, again.stderr).toBe(0);
    expect(fs.existsSync(path.join(proj, "made"))).toBe(true);
    const other = await runCli(["call", "Bash", JSON.stringify({ command: "touch other" }), "--cwd", proj], { cwd: proj });
    expect(other.code).toBe(2);
  }, 300_000);
});
