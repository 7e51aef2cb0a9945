import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO, runCli, tmpdir, writeTree } from "../helpers.ts";

const CORE = path.join(REPO, "core", "index.ts");
let root: string;

beforeAll(() => {
  root = tmpdir();
  writeTree(root, {
    "toolhost.config.json": { plugins: ["./plugins/demo"], toolSets: { review: ["echo", "peek"] } },
    "plugins/demo/.claude-plugin/plugin.json": { name: "demo", description: "demo tools", tools: ["./tools.ts"] },
    "plugins/demo/tools.ts": `import { defineTool } from ${JSON.stringify(CORE)};
export const echo = defineTool({ name: "echo", description: "Echo text back.", isReadOnly: true, inputSchema: { properties: { text: { type: "string" }, fail: { type: "boolean" } }, required: ["text"] },
  call: (i) => i.fail ? { content: [{ type: "text", text: "failed: " + i.text }], isError: true } : "echo: " + i.text });
export const peek = defineTool({ name: "peek", description: "Look.", isReadOnly: true, inputSchema: {}, call: () => "peeked" });
export const poke = defineTool({ name: "poke", description: "Change something.", inputSchema: {}, call: () => "poked" });`,
    "broken/.claude-plugin/plugin.json": { name: "broken", keywords: "not-an-array" },
  });
});

describe("toolhost CLI", () => {
  it("--help lists every command; each command has --help; unknown commands are usage errors", async () => {
    const r = await runCli(["--help"]);
    expect(r.code).toBe(0);
    for (const c of ["tools", "explain", "call", "check"]) {
      expect(r.stdout).toMatch(new RegExp(`\\n  ${c}\\s`));
      const h = await runCli([c, "--help"]);
      expect(h.code).toBe(0);
      expect(h.stdout).toMatch(new RegExp(`^Usage: toolhost ${c}`));
    }
    const u = await runCli(["frobnicate"]);
    expect(u.code).toBe(3);
    expect(u.stderr).toMatch(/unknown command "frobnicate"/);
  });

  it("tools --json has the contract shape and is stable across runs", async () => {
    const a = await runCli(["tools", "--json", "--cwd", root]);
    expect(a.code).toBe(0);
    const j = a.json();
    expect(Object.keys(j)).toEqual(expect.arrayContaining(["generation", "fingerprint", "tools", "excluded", "errors"]));
    expect(j.generation).toBe(1);
    expect(j.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    const echo = j.tools.find((t: { name: string }) => t.name === "echo");
    expect(echo).toEqual(expect.objectContaining({ name: "echo", origin: "plugin", plugin: "demo", deferred: false, readOnly: true }));
    for (const t of j.tools) expect(Object.keys(t)).toEqual(expect.arrayContaining(["name", "origin", "plugin", "deferred", "readOnly"]));
    const b = await runCli(["tools", "--json", "--cwd", root]);
    expect(b.stdout).toBe(a.stdout);
  });

  it("tools prints a readable table with a summary line", async () => {
    const r = await runCli(["tools", "--cwd", root]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^NAME\s+ORIGIN\s+PLUGIN\s+STATUS\s+READ-ONLY/m);
    expect(r.stdout).toMatch(/^echo\s+plugin\s+demo\s+loaded\s+yes/m);
    expect(r.stdout).toMatch(/\d+ tools: \d+ loaded, \d+ deferred, \d+ excluded, 0 errors, \d+ warnings · generation 1 · fingerprint [0-9a-f]{12}/);
  });

  it("a broken plugin never stops the CLI: the rest is listed and the error names file and path", async () => {
    const r = await runCli(["tools", "--json", "--cwd", root, "--plugin-dir", path.join(root, "broken")]);
    expect(r.code).toBe(0);
    const j = r.json();
    expect(j.tools.map((t: { name: string }) => t.name)).toContain("echo");
    expect(j.errors).toContainEqual({ plugin: "broken", file: path.join(root, "broken/.claude-plugin/plugin.json"), path: "/keywords", message: "must be array" });
  });

  it("--mode plan keeps read-only tools and explain names the rule and plugin", async () => {
    const r = await runCli(["tools", "--json", "--cwd", root, "--mode", "plan"]);
    const j = r.json();
    expect(j.tools.map((t: { name: string }) => t.name)).not.toContain("poke");
    expect(j.excluded).toContainEqual({ name: "poke", reason: "plan mode keeps read-only tools only", rule: "mode: plan", plugin: "modes", file: null, toolPlugin: "demo" });
    const e = await runCli(["explain", "poke", "--json", "--cwd", root, "--mode", "plan"]);
    expect(e.code).toBe(0);
    expect(e.json()).toMatchObject({ name: "poke", status: "excluded", reason: "plan mode keeps read-only tools only", rule: "mode: plan", plugin: "modes", file: null });
  });

  it("--mode takes a known permission mode (manual = default); anything else is a usage error, exit 3", async () => {
    const bad = await runCli(["tools", "--json", "--cwd", root, "--mode", "yolo"]);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/--mode must be one of default, acceptEdits, plan, dontAsk, bypassPermissions/);
    const manual = await runCli(["tools", "--json", "--cwd", root, "--mode", "manual"]);
    expect(manual.code).toBe(0);
    expect(manual.json().mode).toMatchObject({ name: "default", source: "option" });
  });

  it("explain reports loaded and unknown tools", async () => {
    const loaded = await runCli(["explain", "echo", "--json", "--cwd", root]);
    expect(loaded.json()).toMatchObject({ name: "echo", status: "loaded", tool: { origin: "plugin", plugin: "demo" } });
    const unknown = await runCli(["explain", "ech", "--json", "--cwd", root]);
    expect(unknown.code).toBe(1);
    expect(unknown.json()).toMatchObject({ name: "ech", status: "unknown", rule: null, plugin: null, file: null });
    expect(unknown.json().reason).toMatch(/similar: echo/);
    const human = await runCli(["explain", "poke", "--cwd", root, "--mode", "plan"]);
    expect(human.stdout).toMatch(/poke: excluded\n\s+reason: plan mode keeps read-only tools only\n\s+rule:\s+mode: plan\n\s+plugin: modes/);
  });

  it("check validates a plugin directory and exits non-zero on errors", async () => {
    const ok = await runCli(["check", "plugins/demo", "--json", "--cwd", root]);
    expect(ok.code).toBe(0);
    expect(ok.json()).toMatchObject({ ok: true, plugin: "demo", errors: [] });
    const bad = await runCli(["check", "broken", "--json", "--cwd", root]);
    expect(bad.code).toBe(1);
    expect(bad.json().errors).toContainEqual({ plugin: "broken", file: path.join(root, "broken/.claude-plugin/plugin.json"), path: "/keywords", message: "must be array" });
    const human = await runCli(["check", "broken", "--cwd", root]);
    expect(human.stdout).toMatch(/✗ plugin broken: 1 errors/);
  });

  it("call: exit codes 0 ok, 1 tool error, 3 unknown tool or invalid input", async () => {
    const ok = await runCli(["call", "echo", '{"text":"hi"}', "--json", "--yes", "--cwd", root]);
    expect(ok.code).toBe(0);
    const j = ok.json();
    expect(j).toMatchObject({ decision: "allow", executed: true, result: { content: [{ type: "text", text: "echo: hi" }], isError: false } });
    expect(j.trace.map((t: { stage: string }) => t.stage)).toEqual(expect.arrayContaining(["lookup", "validate", "call"]));
    const err = await runCli(["call", "echo", '{"text":"x","fail":true}', "--yes", "--cwd", root]);
    expect(err.code).toBe(1);
    expect(err.stderr).toContain("failed: x");
    const unknown = await runCli(["call", "nope", "{}", "--json", "--cwd", root]);
    expect(unknown.code).toBe(3);
    expect(unknown.json().result.isError).toBe(true);
    const invalid = await runCli(["call", "echo", '{"txt":"hi"}', "--json", "--yes", "--cwd", root]);
    expect(invalid.code).toBe(3);
    expect(invalid.json().result.content[0].text).toMatch(/Invalid input for echo: missing required field "text"; unexpected field "txt"/);
  });

  it("call: without --yes an ask is not executed when there is no terminal (exit 2); --dry-run runs every stage but the call", async () => {
    const asked = await runCli(["call", "poke", "{}", "--json", "--cwd", root]);
    expect(asked.code).toBe(2);
    expect(asked.json()).toMatchObject({ decision: "ask", executed: false });
    const dry = await runCli(["call", "poke", "{}", "--json", "--dry-run", "--yes", "--cwd", root]);
    expect(dry.code).toBe(0);
    expect(dry.json()).toMatchObject({ executed: false });
    expect(dry.json().trace.map((t: { stage: string }) => t.stage)).not.toContain("call");
  });
});
