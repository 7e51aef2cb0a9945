import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { createHost, type Host } from "../../core/index.ts";
import { REPO, tmpdir, writeTree } from "../helpers.ts";

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
});
async function host(opts: Parameters<typeof createHost>[0]) {
  const h = await createHost(opts);
  hosts.push(h);
  return h;
}
const TOOL = (name: string) => `export default { name: ${JSON.stringify(name)}, description: "d", inputSchema: { type: "object" }, call: () => "ok" };`;

describe("configuration discovery (cosmiconfig)", () => {
  const variants: Array<[string, Record<string, string | object>]> = [
    ["toolhost.config.json", { "toolhost.config.json": { plugins: ["./p"] } }],
    [".toolhostrc", { ".toolhostrc": JSON.stringify({ plugins: ["./p"] }) }],
    ["package.json#toolhost", { "package.json": { name: "proj", toolhost: { plugins: ["./p"] } } }],
    ["toolhost.config.ts", { "toolhost.config.ts": `const plugins: string[] = ["./p"];\nexport default { plugins };` }],
    ["toolhost.config.mjs", { "toolhost.config.mjs": `export default { plugins: ["./p"] };` }],
  ];
  for (const [label, files] of variants) {
    it(`finds ${label}`, async () => {
      const root = writeTree(tmpdir(), { ...files, "p/.claude-plugin/plugin.json": { name: "p", tools: ["./t.ts"] }, "p/t.ts": TOOL("from_config") });
      const h = await host({ cwd: root });
      expect(h.pool.tools.map((t) => t.name)).toContain("from_config");
    });
  }

  it("reports a config of the wrong shape by file and path, and an unknown key as a warning", async () => {
    const root = writeTree(tmpdir(), { "toolhost.config.json": { plugins: "./p", colour: "blue" } });
    const h = await host({ cwd: root });
    expect(h.problems()).toContainEqual(expect.objectContaining({ plugin: "config", file: path.join(root, "toolhost.config.json"), path: "/plugins", severity: "error" }));
    const root2 = writeTree(tmpdir(), { "toolhost.config.json": { colour: "blue" } });
    const h2 = await host({ cwd: root2 });
    expect(h2.problems()).toContainEqual(expect.objectContaining({ path: "/colour", severity: "warning" }));
  });

  it("reports a config file that does not parse", async () => {
    const root = writeTree(tmpdir(), { "toolhost.config.json": "{ nope" });
    const h = await host({ cwd: root });
    expect(h.problems()).toContainEqual(expect.objectContaining({ plugin: "config", severity: "error" }));
    expect(h.problems().find((p) => p.plugin === "config")!.file).toBe(path.join(root, "toolhost.config.json"));
  });

  it("finds an npm package that carries a manifest, by name", async () => {
    const root = writeTree(tmpdir(), {
      "toolhost.config.json": { plugins: ["@acme/toolhost-plugin", "not-installed-plugin"] },
      "node_modules/@acme/toolhost-plugin/package.json": { name: "@acme/toolhost-plugin", version: "1.0.0" },
      "node_modules/@acme/toolhost-plugin/toolhost.plugin.json": { name: "acme", tools: ["./tools.js"] },
      "node_modules/@acme/toolhost-plugin/tools.js": TOOL("acme_tool"),
    });
    const h = await host({ cwd: root });
    expect(h.pool.tools.find((t) => t.name === "acme_tool")).toMatchObject({ plugin: "acme", origin: "plugin" });
    expect(h.problems()).toContainEqual(expect.objectContaining({ plugin: "not-installed-plugin", path: "/plugins", message: expect.stringMatching(/neither a path nor an installed npm package/) }));
  });

  it("reads .claude/settings.json, settings.local.json and .mcp.json as sources with provenance", async () => {
    const root = writeTree(tmpdir(), {
      ".claude/settings.json": { permissions: { deny: ["Bash(rm *)"] }, hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "true" }] }] } },
      ".claude/settings.local.json": { permissions: { allow: ["Read"] } },
      ".mcp.json": { mcpServers: { memory: { command: "node", args: ["x.js"] } } },
    });
    const h = await host({ cwd: root });
    const byId = Object.fromEntries(h.plugins.map((p) => [p.id, p]));
    expect(byId["settings:project"]!.components.permissions).toMatchObject({ file: path.join(root, ".claude/settings.json"), jsonPath: "/permissions", value: { deny: ["Bash(rm *)"] } });
    expect(byId["settings:project"]!.components.hooks[0]!.value.PreToolUse).toHaveLength(1);
    expect(byId["settings:local"]!.components.permissions!.value.allow).toEqual(["Read"]);
    expect(byId["mcp.json"]!.components.mcpServers[0]!.value.memory).toEqual({ command: "node", args: ["x.js"] });
  });

  it("--plugin-dir loads a Claude Code plugin directory as-is", async () => {
    const root = writeTree(tmpdir(), {
      "cc/.claude-plugin/plugin.json": { name: "cc-plugin", version: "0.1.0", description: "A Claude Code plugin", author: { name: "A" }, hooks: "./hooks/hooks.json", agents: "./agents", skills: "./skills", commands: ["./commands/x.md"] },
      "cc/hooks/hooks.json": { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: "python3 ${CLAUDE_PLUGIN_ROOT}/hooks/pre.py", timeout: 10 }] }], Stop: [{ matcher: "*", hooks: [{ type: "command", command: "true" }] }] },
      "cc/.mcp.json": { github: { type: "http", url: "https://api.example.com/mcp" } },
      "cc/agents/a.md": "---\nname: a\n---\n",
    });
    const h = await host({ cwd: root, pluginDirs: ["cc"] });
    const lp = h.plugins.find((p) => p.id === "cc-plugin")!;
    expect(lp).toBeTruthy();
    expect(lp.problems.filter((p) => p.severity === "error")).toEqual([]);
    expect(h.problems().filter((p) => p.severity === "error")).toEqual([]);
    expect(lp.components.hooks).toHaveLength(1);
  });
});

describe("the package is importable as `toolhost`", () => {
  it("exports createHost, defineTool and definePlugin to a plain Node program", () => {
    const proj = writeTree(tmpdir(), {
      "package.json": { name: "consumer", type: "module" },
      "main.mjs": `import { createHost, defineTool, definePlugin } from "toolhost";
const tool = defineTool({ name: "hello", description: "Say hello.", inputSchema: { properties: { who: { type: "string" } } }, isReadOnly: true, call: (i) => "hello " + i.who });
const plugin = definePlugin({ name: "mine", apply(ctx) { ctx.hooks.build.tap("mine", (b) => b.hooks.collect.tap("mine", (c) => c.add({ ...tool, origin: "plugin", plugin: "mine" }))); } });
const host = await createHost({ cwd: process.cwd(), plugins: [plugin] });
const out = await host.execute("hello", { who: "world" }, { yes: true });
console.log(JSON.stringify({ text: out.result.content[0].text, names: host.pool.tools.map((t) => t.name) }));
await host.close();`,
    });
    fs.mkdirSync(path.join(proj, "node_modules"));
    fs.symlinkSync(REPO, path.join(proj, "node_modules", "toolhost"));
    const out = execFileSync(process.execPath, ["main.mjs"], { cwd: proj, encoding: "utf8" });
    const j = JSON.parse(out.trim().split("\n").pop()!);
    expect(j.text).toBe("hello world");
    expect(j.names).toContain("hello");
  });
});

describe("the package's types", () => {
  it("type-check a TypeScript consumer (types/ generated by the prepare script)", () => {
    const tsc = path.join(REPO, "node_modules", ".bin", "tsc");
    if (!fs.existsSync(path.join(REPO, "types", "core", "index.d.ts"))) execFileSync(tsc, ["-p", "tsconfig.types.json"], { cwd: REPO });
    const proj = writeTree(tmpdir(), {
      "package.json": { name: "c", type: "module" },
      "tsconfig.json": { compilerOptions: { module: "nodenext", moduleResolution: "nodenext", strict: true, noEmit: true, target: "es2022" } },
      "main.ts": `import { createHost, defineTool, definePlugin, type Tool } from "toolhost";
const t = defineTool<{ who: string }>({ name: "hello", description: "x", inputSchema: {}, call: (i) => "hi " + i.who });
const p = definePlugin({ name: "m", apply(ctx) { ctx.hooks.build.tap("m", (b) => b.hooks.collect.tap("m", (c) => c.add({ ...t, origin: "plugin", plugin: "m" } as Tool))); } });
const h = await createHost({ plugins: [p] });
const n: number = h.pool.generation;
// @ts-expect-error generation is a number
const bad: string = h.pool.generation;
export { n, bad };`,
    });
    fs.mkdirSync(path.join(proj, "node_modules"));
    fs.symlinkSync(REPO, path.join(proj, "node_modules", "toolhost"));
    execFileSync(tsc, ["-p", "."], { cwd: proj, encoding: "utf8" });
  });
});
