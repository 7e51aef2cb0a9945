/** The exported matcher API (used by the command-hooks plugin's `if`), rule grammar errors, helpers. */
import fc from "fast-check";
import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { formatRule, matchesHookIf, matchesRule, parseRule } from "../../lib/rules/match.ts";
import { globSource } from "../../lib/rules/paths.ts";
import { narrowRule } from "../../plugins/permissions/index.ts";
import { exampleCall } from "../../plugins/permissions/examples.ts";
import { tempProject } from "./helpers.ts";

const cwd = tempProject({ "src/a.ts": "x" });

describe("parseRule", () => {
  it.each([
    ["", /empty rule/],
    ["Bash(npm test", /missing the closing "\)"/],
    ["Bash()", /empty parentheses; write "Bash"/],
    ["Bash npm)", /"\)" without "\("/],
    ["(npm)", /no tool name/],
    ["Ba sh(x)", /not a tool name/],
    ["WebFetch(example.com)", /domain:host/],
    ["WebFetch(domain:)", /empty domain/],
    ["mcp__*(x)", /cannot take a specifier/],
  ])("rejects %j with a clear message", (text, re) => {
    expect(() => parseRule(text)).toThrow(re);
  });

  it.each([
    ["Bash", "tool", "Bash", undefined],
    ["Bash(*)", "tool", "Bash", undefined],
    ["Bash(git:*)", "bash", "Bash", "git:*"],
    ["Bash(run_in_background:true)", "param", "Bash", "run_in_background:true"],
    ["Read(./.env)", "path", "Read", "./.env"],
    ["Write(x)", "path", "Write", "x"],
    ["WebFetch(domain:*)", "tool", "WebFetch", undefined],
    ["WebFetch(domain:a.com)", "domain", "WebFetch", "domain:a.com"],
    ["Task(Explore)", "agent", "Agent", "Explore"],
    ["Agent(model:opus)", "param", "Agent", "model:opus"],
    ["Skill(deploy *)", "skill", "Skill", "deploy *"],
    ["mcp__github", "tool", "mcp__github", undefined],
    ["mcp__github__*", "tool", "mcp__github__*", undefined],
    ["  Bash(ls)  ", "bash", "Bash", "ls"],
  ])("parses %j", (text, kind, tool, spec) => {
    const r = parseRule(text);
    expect({ kind: r.kind, tool: r.tool, specifier: r.specifier }).toEqual({ kind, tool, specifier: spec });
    expect(formatRule(r)).toBe(spec === undefined ? tool : `${tool}(${spec})`);
  });
});

describe("matchesRule (hook `if` usage)", () => {
  const m = (rule: string, toolName: string, input: unknown, behavior?: "allow" | "deny" | "ask") => matchesRule(rule, { toolName, input }, { cwd, behavior });
  it("Bash rules check every subcommand and strip VAR=x", () => {
    expect(m("Bash(git *)", "Bash", { command: "cd x && git push" })).toBe(true);
    expect(m("Bash(git *)", "Bash", { command: "FOO=1 git status" })).toBe(true);
    expect(m("Bash(git *)", "Bash", { command: "ls" })).toBe(false);
    expect(m("Bash(git *)", "Bash", { command: "ls && git status" }, "allow")).toBe(false);
  });
  it("Edit(*.ts) matches Edit/Write of .ts files at any depth, not Read", () => {
    expect(m("Edit(*.ts)", "Edit", { file_path: "src/a.ts" })).toBe(true);
    expect(m("Edit(*.ts)", "Write", { file_path: "deep/er/b.ts" })).toBe(true);
    expect(m("Edit(*.ts)", "Edit", { file_path: "src/a.js" })).toBe(false);
    expect(m("Edit(*.ts)", "Read", { file_path: "src/a.ts" })).toBe(false);
  });
  it("MCP rules", () => {
    expect(m("mcp__db__query", "mcp__db__query", {})).toBe(true);
    expect(m("mcp__db", "mcp__db__query", {})).toBe(true);
    expect(m("mcp__db", "mcp__dbx__query", {})).toBe(false);
  });
  it("rulesRoot anchors /path rules", () => {
    const root = tempProject();
    expect(matchesRule("Read(/conf/**)", { toolName: "Read", input: { file_path: `${root}/conf/x` } }, { cwd, rulesRoot: root })).toBe(true);
    expect(matchesRule("Read(/conf/**)", { toolName: "Read", input: { file_path: `${cwd}/conf/x` } }, { cwd, rulesRoot: root })).toBe(false);
  });
  it("accepts a parsed rule", () => {
    expect(matchesRule(parseRule("Bash(npm *)"), { toolName: "Bash", input: { command: "npm i" } }, { cwd })).toBe(true);
  });
  it("never throws on odd input", () => {
    for (const input of [null, undefined, 42, "str", [], { command: 5 }, { file_path: {} }]) {
      expect(() => m("Bash(x *)", "Bash", input)).not.toThrow();
      expect(() => m("Read(x)", "Read", input)).not.toThrow();
      expect(() => m("WebFetch(domain:a.com)", "WebFetch", input)).not.toThrow();
    }
  });
});

describe("glob → regex", () => {
  it("agrees with picomatch (dot: true) on segment globs (a trailing /** also matching the directory itself, as picomatch does for literal parents)", () => {
    const part = fc.constantFrom("a", "b", "x.ts", ".env", "*", "*.ts", "**", "?", "[ab]", "{a,b}");
    const seg = fc.constantFrom("a", "b", "x.ts", ".env", "c.js", "ab");
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 4 }), fc.array(seg, { minLength: 1, maxLength: 5 }), (parts, segs) => {
        const glob = `/r/${parts.join("/")}`;
        const p = `/r/${segs.join("/")}`;
        const ours = new RegExp(`^(?:${globSource(glob)})$`).test(p);
        expect(ours).toBe((picomatch(glob, { dot: true })(p) || (glob.endsWith("/**") && picomatch(glob.replace(/(\/\*\*)+$/, ""), { dot: true })(p))));
      }),
      { numRuns: 300 },
    );
  });
});

describe("allow always narrowing", () => {
  it("Bash: one exact rule per part; files: the path; WebFetch: the domain; others: the tool", () => {
    expect(narrowRule({ behavior: "allow", rule: "Bash", destination: "session", tool: "Bash", input: { command: "npm ci && npm test" } }, cwd)).toEqual(["Bash(npm ci)", "Bash(npm test)"]);
    expect(narrowRule({ behavior: "allow", rule: "Bash", destination: "session", tool: "Bash", input: { command: "rm *.tmp" } }, cwd)).toEqual([]);
    expect(narrowRule({ behavior: "allow", rule: "Edit", destination: "session", tool: "Edit", input: { file_path: "src/a.ts" } }, cwd)).toEqual([`Edit(/${cwd}/src/a.ts)`]);
    expect(narrowRule({ behavior: "allow", rule: "WebFetch", destination: "session", tool: "WebFetch", input: { url: "https://a.b.com/x" } }, cwd)).toEqual(["WebFetch(domain:a.b.com)"]);
    expect(narrowRule({ behavior: "allow", rule: "Agent", destination: "session", tool: "Agent", input: {} }, cwd)).toEqual(["Agent"]);
    expect(narrowRule({ behavior: "allow", rule: "Bash(make *)", destination: "session" }, cwd)).toEqual(["Bash(make *)"]);
  });
});

describe("rule examples", () => {
  it("turns string examples into calls by rule kind", () => {
    expect(exampleCall("git push", parseRule("Bash(git *)"))).toEqual({ toolName: "Bash", input: { command: "git push" } });
    expect(exampleCall(".env", parseRule("Read(.env)"))).toEqual({ toolName: "Read", input: { file_path: ".env" } });
    expect(exampleCall("a.com", parseRule("WebFetch(domain:a.com)"))).toEqual({ toolName: "WebFetch", input: { url: "https://a.com/" } });
    expect(exampleCall("mcp__x__y", parseRule("mcp__x"))).toEqual({ toolName: "mcp__x__y", input: {} });
    expect(exampleCall({ tool: "Agent", input: { model: "opus" } }, parseRule("Agent(model:opus)"))).toEqual({ toolName: "Agent", input: { model: "opus" } });
    expect(exampleCall("x", parseRule("Agent(model:opus)"))).toMatch(/cannot be turned into/);
    expect(exampleCall(5, parseRule("Bash(x)"))).toMatch(/must be a string/);
  });
});

describe("matchesHookIf (Claude Code's hook `if`)", () => {
  const c = (command: string) => ({ toolName: "Bash", input: { command } });
  it("fails open on unparseable commands and runs specific patterns when expansions are present", () => {
    expect(matchesHookIf("Bash(git push *)", c("echo 'oops"), { cwd })).toBe(true);
    expect(matchesHookIf("Bash(git push *)", c("git $(echo push) origin"), { cwd })).toBe(true);
    expect(matchesHookIf("Bash(git *)", c("ls $HOME"), { cwd })).toBe(false);
    expect(matchesHookIf("Bash(git push *)", c("ls && git push"), { cwd })).toBe(true);
    expect(matchesHookIf("Bash(git push *)", c("git status"), { cwd })).toBe(false);
  });
  it("anchors single-segment dir patterns to cwd and matches only the rule's family", () => {
    expect(matchesHookIf("Edit(src/**)", { toolName: "Edit", input: { file_path: "src/a.ts" } }, { cwd })).toBe(true);
    expect(matchesHookIf("Edit(src/**)", { toolName: "Edit", input: { file_path: "pkg/src/a.ts" } }, { cwd })).toBe(false);
    expect(matchesHookIf("Edit(*.ts)", { toolName: "Read", input: { file_path: "src/a.ts" } }, { cwd })).toBe(false);
    expect(matchesHookIf("mcp__db", { toolName: "mcp__db__query", input: {} }, { cwd })).toBe(true);
  });
  it("a bare tool name names that tool only, while a bare Read deny rule covers the read family", () => {
    const grep = { toolName: "Grep", input: { pattern: "x" } };
    const write = { toolName: "Write", input: { file_path: "a.txt", content: "" } };
    expect(matchesHookIf("Read", grep, { cwd })).toBe(false);
    expect(matchesHookIf("Edit", write, { cwd })).toBe(false);
    expect(matchesHookIf("Read", { toolName: "Read", input: { file_path: "a" } }, { cwd })).toBe(true);
    expect(matchesRule("Read", grep, { cwd })).toBe(true);
    expect(matchesRule("Read", { toolName: "Glob", input: { pattern: "*" } }, { cwd })).toBe(true);
    expect(matchesRule("Edit", write, { cwd })).toBe(true);
    expect(matchesRule("Read", grep, { cwd, behavior: "allow" })).toBe(false);
    expect(matchesRule("Edit", { toolName: "Read", input: { file_path: "a" } }, { cwd })).toBe(false);
  });
});
