/**
 * `toolhost check` catches what loads but never works, `toolhost rules` lists the effective rules with file
 * and line, and `watch` reports AGENTS.md rule changes — each through the real CLI in a child process.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, runCli, tmpdir, waitFor, write, writeJson } from "../helpers.ts";

const check = (args: string[], cwd: string) => runCli(["check", ...args, "--cwd", cwd], { cwd });

describe("toolhost check", () => {
  it("fails a directory with a misnamed manifest or nothing to load, naming the file", async () => {
    const cwd = tmpdir("th-check-");
    writeJson(path.join(cwd, "misnamed/.claude-plugin/plugins.json"), { name: "misnamed" });
    write(path.join(cwd, "empty/README.md"), "# nothing here\n");
    const a = await check(["misnamed", "--json"], cwd);
    expect(a.code).toBe(1);
    const ja = a.json();
    expect(ja.errors[0]).toMatchObject({ plugin: "misnamed", file: path.join(cwd, "misnamed") });
    expect(ja.errors[0].message).toContain("nothing to load");
    expect(ja.warnings[0]).toMatchObject({ file: path.join(cwd, "misnamed/.claude-plugin/plugins.json") });
    expect(ja.warnings[0].message).toContain("rename .claude-plugin/plugins.json");
    const b = await check(["empty"], cwd);
    expect(b.code).toBe(1);
    expect(b.stdout).toMatch(/error: \[empty\] .*nothing to load/);
  });

  it("a key typo warns (exit 0) and fails with --strict; a missing hook script and a matcher naming no tool are found", async () => {
    const cwd = tmpdir("th-check-");
    const root = path.join(cwd, "p");
    writeJson(path.join(root, ".claude-plugin/plugin.json"), { name: "p", permisions: { deny: ["Bash(rm *)"] } });
    writeJson(path.join(root, "hooks/hooks.json"), {
      hooks: {
        PreToolUse: [{ matcher: "Bsh", hooks: [{ type: "command", command: "echo ok" }] }],
        PostToolUse: [{ matcher: "Write|Edit", hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/scripts/fmt.sh" }] }],
      },
    });
    const plain = await check(["p", "--json"], cwd);
    const j = plain.json();
    expect(j.warnings.map((w: { path: string }) => w.path)).toEqual(expect.arrayContaining(["/permisions", "/hooks/PreToolUse/0/matcher"]));
    expect(j.warnings.find((w: { path: string }) => w.path === "/hooks/PreToolUse/0/matcher").message).toContain('did you mean "Bash"');
    expect(j.errors).toEqual([expect.objectContaining({ path: "/hooks/PostToolUse/0/hooks/0/command", file: path.join(root, "hooks/hooks.json") })]);
    expect(j.errors[0].message).toContain(path.join(root, "scripts/fmt.sh"));
    expect(plain.code).toBe(1);

    write(path.join(root, "scripts/fmt.sh"), "#!/bin/sh\nexit 0\n");
    expect((await check(["p"], cwd)).code).toBe(0);
    const strict = await check(["p", "--strict"], cwd);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain("--strict: warnings fail");
  });

  it("--json lists what loaded and scores each tool against the design checklist; a package name works", async () => {
    const cwd = tmpdir("th-check-");
    const root = path.join(cwd, "node_modules/glossary-plugin");
    writeJson(path.join(root, "package.json"), { name: "glossary-plugin", version: "1.0.0" });
    writeJson(path.join(root, ".claude-plugin/plugin.json"), {
      name: "glossary",
      tools: ["./tools.mjs"],
      permissions: { deny: ["Bash(rm *)", "Tiny"], tests: [{ rule: "Bash(rm *)", match: ["rm -rf x"], not_match: ["ls"] }] },
    });
    write(
      path.join(root, "tools.mjs"),
      `export default [{ name: "LookUp", description: "Look up a term in the team glossary. Use this when the user asks what an internal term means.", isReadOnly: true,
        inputSchema: { type: "object", properties: { word: { type: "string", description: "the term" }, limit: { type: "number", default: 5 } }, required: ["word", "limit"] }, call: () => "x" },
       { name: "Tiny", description: "tiny", inputSchema: { type: "object", properties: {} }, call: () => "x" }];\n`,
    );
    const r = await check(["glossary-plugin", "--json"], cwd);
    const j = r.json();
    expect(j.plugin).toBe("glossary");
    expect(j.loaded.rules).toEqual([expect.objectContaining({ behavior: "deny", rule: "Bash(rm *)", path: "/permissions/deny/0" }), expect.objectContaining({ rule: "Tiny" })]);
    expect(j.loaded.ruleExamples).toBe(2);
    expect(j.loaded.tools).toEqual([{ name: "LookUp", plugin: "glossary", deferred: false }, expect.objectContaining({ name: "Tiny", excluded: expect.stringContaining("Tiny") })]);
    const look = j.design.find((d: { tool: string }) => d.tool === "LookUp");
    const failed = look.checks.filter((c: { ok: boolean }) => !c.ok).map((c: { check: string }) => c.check);
    expect(failed).toEqual(["every parameter described", "minimal required", "parallel safety declared"]);
    const human = await check(["glossary-plugin"], cwd);
    expect(human.stdout).toContain('design 5/8 LookUp:\n  - every parameter described: describe "limit"');
    const none = await check(["no-such-package"], cwd);
    expect(none.code).toBe(3);
    expect(none.stderr).toContain("neither a path nor a package installed");
  });
});

describe("toolhost rules", () => {
  it("lists every rule in evaluation order with file and line, AGENTS.md rules included, and decides a given call", async () => {
    const cwd = tmpdir("th-rules-");
    write(path.join(cwd, ".claude/settings.json"), JSON.stringify({ permissions: { allow: ["Bash(npm test)"], ask: ["Bash(git push *)"], deny: ["Bash(rm -rf *)", "Read(./.env)"] } }, null, 2));
    write(path.join(cwd, "AGENTS.md"), "# Rules\n\n- Never run `git push --force`.\n");
    const r = await runCli(["rules", "Bash", '{"command":"git push --force origin main"}', "--json", "--cwd", cwd], { cwd });
    expect(r.code).toBe(0);
    const j = r.json();
    const settings = path.join(cwd, ".claude/settings.json");
    expect(j.rules.map((x: { behavior: string; rule: string; line: number }) => `${x.behavior} ${x.rule} ${x.line}`)).toEqual([
      "deny Bash(rm -rf *) 10",
      "deny Read(./.env) 11",
      "deny Bash(git push --force *) 3",
      "ask Bash(git push *) 7",
      "allow Bash(npm test) 4", // (the tests' scratch trust store trusts their workspaces)
    ]);
    expect(j.rules[0]).toMatchObject({ plugin: "settings:project", file: settings, path: "/permissions/deny/0" });
    expect(j.rules[2]).toMatchObject({ plugin: "agents-md", file: path.join(cwd, "AGENTS.md"), text: "Never run `git push --force`." });
    expect(j.call).toMatchObject({ tool: "Bash", decision: "deny", status: "denied", plugin: "agents-md", rule: "Bash(git push --force *)" });
    const bad = await runCli(["rules", "Bash", "{nope", "--cwd", cwd], { cwd });
    expect(bad.code).toBe(3);
  });
});

describe("toolhost watch and AGENTS.md", () => {
  it("an AGENTS.md edit that adds a deny rule is reported as a rules change", async () => {
    const cwd = tmpdir("th-watch-agents-");
    write(path.join(cwd, "AGENTS.md"), "# Notes\n\nBe kind.\n");
    const child = spawn(process.execPath, [BIN, "watch", "--json", "--cwd", cwd], { stdio: ["ignore", "pipe", "pipe"] });
    const lines: Array<Record<string, any>> = [];
    let buf = "";
    child.stdout.on("data", (d: Buffer) => {
      buf += d.toString();
      for (let i; (i = buf.indexOf("\n")) >= 0; buf = buf.slice(i + 1)) if (buf.slice(0, i).trim()) lines.push(JSON.parse(buf.slice(0, i)));
    });
    try {
      await waitFor(() => lines.find((l) => l.event === "generation"), 30_000, "the first generation");
      write(path.join(cwd, "AGENTS.md"), "# Notes\n\nBe kind.\n\n- Never run `git push --force`.\n");
      const g = await waitFor(() => lines.find((l) => l.event === "generation" && l.rules?.added?.length), 20_000, "a rules change");
      expect(g.rules.added).toEqual(["deny Bash(git push --force *) [agents-md AGENTS.md:5]"]);
    } finally {
      child.kill("SIGTERM");
    }
  });
});
