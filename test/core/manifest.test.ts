import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadPlugin } from "../../core/index.ts";
import { tmpdir, writeTree } from "../helpers.ts";

const load = (root: string) => loadPlugin({ kind: "plugin-dir", path: root }, { projectDir: root, dataHome: path.join(root, ".data") });
const errors = (lp: ReturnType<typeof load>) => lp.problems.filter((p) => p.severity === "error");
const warnings = (lp: ReturnType<typeof load>) => lp.problems.filter((p) => p.severity === "warning");

describe("manifest loading", () => {
  it("loads a minimal manifest", () => {
    const root = writeTree(tmpdir(), { ".claude-plugin/plugin.json": { name: "my-tools" } });
    const lp = load(root);
    expect(lp.id).toBe("my-tools");
    expect(lp.failed).toBe(false);
    expect(lp.problems).toEqual([]);
  });

  it("loads a directory without a manifest, named after the directory", () => {
    const root = writeTree(tmpdir(), { "hooks/hooks.json": { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "true" }] }] } } });
    const lp = load(root);
    expect(lp.id).toBe(path.basename(root));
    expect(lp.components.hooks).toHaveLength(1);
    expect(lp.components.hooks[0]!.file).toBe(path.join(root, "hooks/hooks.json"));
  });

  it("loads the full Claude Code example with inline hooks, mcpServers, lspServers, userConfig and substitutes plugin variables", () => {
    const root = writeTree(tmpdir(), {
      ".claude-plugin/plugin.json": {
        name: "my-tools",
        version: "1.2.0",
        description: "Formatter + Go code intelligence",
        author: { name: "Team", email: "team@example.com" },
        keywords: ["format", "go"],
        hooks: { PostToolUse: [{ matcher: "Write|Edit", hooks: [{ type: "command", command: "node", args: ["${CLAUDE_PLUGIN_ROOT}/fmt.js"] }] }] },
        mcpServers: { db: { command: "${CLAUDE_PLUGIN_ROOT}/bin/db-mcp", args: ["--stdio"], env: { DATA: "${CLAUDE_PLUGIN_DATA}", X: "${DB_URL:-sqlite://x}" } } },
        lspServers: { gopls: { command: "gopls", extensionToLanguage: { ".go": "go" } } },
        userConfig: { api_token: { type: "string", title: "API token", description: "Token", sensitive: true } },
      },
    });
    const lp = load(root);
    expect(errors(lp)).toEqual([]);
    const hook = (lp.components.hooks[0]!.value.PostToolUse![0] as { hooks: Array<{ args: string[] }> }).hooks[0]!;
    expect(hook.args[0]).toBe(`${root}/fmt.js`);
    const db = lp.components.mcpServers[0]!.value.db as { command: string; env: Record<string, string> };
    expect(db.command).toBe(`${root}/bin/db-mcp`);
    expect(db.env.DATA).toBe(lp.dataDir);
    expect(db.env.X).toBe("${DB_URL:-sqlite://x}"); // env expansion belongs to the MCP plugin
    expect(lp.components.lspServers[0]!.value.gopls).toBeTruthy();
    expect(lp.env.CLAUDE_PLUGIN_ROOT).toBe(root);
    expect(lp.env.TOOLHOST_PLUGIN_ROOT).toBe(root);
    expect(lp.env.CLAUDE_PROJECT_DIR).toBe(root);
    expect(lp.env.TOOLHOST_PLUGIN_DATA).toBe(lp.dataDir);
  });

  it("reads hooks/hooks.json in both shapes, and once when the manifest also names it", () => {
    const bare = writeTree(tmpdir(), {
      ".claude-plugin/plugin.json": { name: "hookify", hooks: "./hooks/hooks.json", agents: "./agents", skills: "./skills" },
      "hooks/hooks.json": { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: "python3 ${CLAUDE_PLUGIN_ROOT}/hooks/pretooluse.py", timeout: 10 }] }] },
    });
    const lp = load(bare);
    expect(errors(lp)).toEqual([]);
    expect(lp.components.hooks).toHaveLength(1);
    expect(JSON.stringify(lp.components.hooks[0]!.value)).toContain(`python3 ${bare}/hooks/pretooluse.py`);
    const wrapped = writeTree(tmpdir(), {
      ".claude-plugin/plugin.json": { name: "w" },
      "hooks/hooks.json": { description: "guards", hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "true" }] }] } },
    });
    const lw = load(wrapped);
    expect(errors(lw)).toEqual([]);
    expect(Object.keys(lw.components.hooks[0]!.value)).toEqual(["PreToolUse"]);
  });

  it("accepts .mcp.json with and without the mcpServers wrapper, and .lsp.json", () => {
    for (const mcp of [{ mcpServers: { gh: { command: "gh-mcp" } } }, { gh: { command: "gh-mcp" } }]) {
      const root = writeTree(tmpdir(), { ".claude-plugin/plugin.json": { name: "p" }, ".mcp.json": mcp, ".lsp.json": { ts: { command: "typescript-language-server", args: ["--stdio"], extensionToLanguage: { ".ts": "typescript" } } } });
      const lp = load(root);
      expect(errors(lp)).toEqual([]);
      expect(Object.keys(lp.components.mcpServers[0]!.value)).toEqual(["gh"]);
      expect(Object.keys(lp.components.lspServers[0]!.value)).toEqual(["ts"]);
    }
  });

  it("fails the plugin on a known key of the wrong type, naming file and JSON path", () => {
    const root = writeTree(tmpdir(), { ".claude-plugin/plugin.json": { name: "p", keywords: "go", hooks: 5 } });
    const lp = load(root);
    expect(lp.failed).toBe(true);
    const e = errors(lp);
    expect(e.map((p) => p.path).sort()).toEqual(["/hooks", "/keywords"]);
    expect(e[0]!.file).toBe(path.join(root, ".claude-plugin/plugin.json"));
    expect(e.find((p) => p.path === "/keywords")!.message).toBe("must be array");
    expect(e.find((p) => p.path === "/hooks")!.message).toBe("has the wrong type (expected a path string, an array of paths, or an inline object)");
    expect(e.every((p) => p.plugin === "p")).toBe(true);
  });

  it("requires name, and author.name when author is given", () => {
    const root = writeTree(tmpdir(), { ".claude-plugin/plugin.json": { author: { email: "x" } } });
    const lp = load(root);
    expect(errors(lp).map((p) => [p.path, p.message])).toEqual(
      expect.arrayContaining([
        ["/", 'is missing required field "name"'],
        ["/author", 'is missing required field "name"'],
      ]),
    );
  });

  it("warns on unknown keys (with a suggestion) and ignores them; hook events are read as written (command-hooks checks them)", () => {
    const root = writeTree(tmpdir(), {
      ".claude-plugin/plugin.json": { name: "p", descripton: "typo", custom: 1, hooks: { PreTooluse: [], PreToolUse: [{ hooks: [{ type: "command", command: "true" }] }] } },
    });
    const lp = load(root);
    expect(lp.failed).toBe(false);
    const w = warnings(lp).map((p) => `${p.path}: ${p.message}`);
    expect(w).toContain('/descripton: unknown manifest key "descripton" is ignored (did you mean "description"?)');
    expect(w.some((m) => m.startsWith("/custom: unknown manifest key"))).toBe(true);
    expect(w.some((m) => m.includes("hook event"))).toBe(false); // core knows no hook events (test/hooks/validate.test.ts)
    expect(Object.keys(lp.components.hooks[0]!.value)).toEqual(["PreTooluse", "PreToolUse"]);
  });

  it("only warns when metadata has the wrong type", () => {
    const lp = load(writeTree(tmpdir(), { ".claude-plugin/plugin.json": { name: "p", metadata: "x" } }));
    expect(lp.failed).toBe(false);
  });

  it("reports invalid JSON with the file", () => {
    const root = writeTree(tmpdir(), { ".claude-plugin/plugin.json": "{ name: oops" });
    const lp = load(root);
    expect(lp.failed).toBe(true);
    expect(errors(lp)[0]).toMatchObject({ file: path.join(root, ".claude-plugin/plugin.json"), path: "/" });
    expect(errors(lp)[0]!.message).toMatch(/invalid JSON/);
  });

  it("refuses paths that escape the plugin root: .., absolute, symlinks out", () => {
    const outside = writeTree(tmpdir(), { "evil.json": { hooks: {} }, "evil.ts": "export default {}" });
    const root = writeTree(tmpdir(), { ".claude-plugin/plugin.json": { name: "p", hooks: ["../evil.json", path.join(outside, "evil.json"), "./link.json"], tools: ["./ok.ts", "./missing.ts"] }, "ok.ts": "export {}" });
    fs.symlinkSync(path.join(outside, "evil.json"), path.join(root, "link.json"));
    const lp = load(root);
    expect(lp.failed).toBe(true);
    const byPath = Object.fromEntries(errors(lp).map((p) => [p.path, p.message]));
    expect(byPath["/hooks/0"]).toMatch(/escapes the plugin root/);
    expect(byPath["/hooks/1"]).toMatch(/absolute path .* is not allowed/);
    expect(byPath["/hooks/2"]).toMatch(/is a symlink to .* outside the plugin root/);
    expect(byPath["/tools/1"]).toMatch(/does not exist/);
    expect(byPath["/tools/0"]).toBeUndefined();
  });

  it("a symlink that stays inside the root is fine", () => {
    const root = writeTree(tmpdir(), { ".claude-plugin/plugin.json": { name: "p", tools: ["./link.ts"] }, "real/t.ts": "export {}" });
    fs.symlinkSync(path.join(root, "real/t.ts"), path.join(root, "link.ts"));
    expect(load(root).failed).toBe(false);
  });

  it("a standalone manifest file's root is its nearest package root", () => {
    const root = writeTree(tmpdir(), { "package.json": { name: "pkg" }, "manifests/x.json": { name: "x", main: "./plugins/x/index.ts" }, "plugins/x/index.ts": "export default {}" });
    const lp = loadPlugin({ kind: "bundled", path: path.join(root, "manifests/x.json") }, { projectDir: root });
    expect(lp.failed).toBe(false);
    expect(lp.root).toBe(root);
    expect(lp.components.main!.file).toBe(path.join(root, "plugins/x/index.ts"));
  });

  it("reports a plugin path that does not exist", () => {
    const lp = loadPlugin({ kind: "config", path: "/nonexistent/plugin", from: "/x/toolhost.config.json" }, { projectDir: "/" });
    expect(lp.failed).toBe(true);
    expect(lp.problems[0]).toMatchObject({ file: "/x/toolhost.config.json", path: "/plugins" });
  });
});

/** The published schema: core's base with the sub-schemas plugins own (only the permissions plugin's `permissions` so far). */
async function publishedSchema() {
  const { manifestSchema } = await import("../../core/manifest/schema.ts");
  const { PERMISSIONS_SCHEMA } = await import("../../plugins/permissions/schema.ts");
  return { ...manifestSchema, properties: { ...manifestSchema.properties, permissions: PERMISSIONS_SCHEMA } };
}

describe("published schema", () => {
  it("every bundled manifest passes the schema and is on the bundled list (start-up does not re-check them)", async () => {
    const { validatorFor } = await import("../../lib/validators.ts");
    const { BUNDLED_MANIFESTS } = await import("../../plugins/bundled.ts");
    const dir = path.join(__dirname, "../../manifests");
    const files = fs.readdirSync(dir).filter((f) => f.endsWith(".json")).sort();
    expect([...BUNDLED_MANIFESTS].sort()).toEqual(files);
    const { $id: _, ...schema } = await publishedSchema(); // the shared ajv already holds the base under this $id
    const validate = validatorFor(schema);
    for (const f of files) expect(validate(JSON.parse(fs.readFileSync(path.join(dir, f), "utf8"))), `${f}: ${JSON.stringify(validate.errors)}`).toBe(true);
  });
  it("manifest.schema.json is byte-identical to core/manifest/schema.ts with the contributed sub-schemas", async () => {
    const published = fs.readFileSync(path.join(__dirname, "../../manifest.schema.json"), "utf8");
    expect(published).toBe(JSON.stringify(await publishedSchema(), null, 2) + "\n");
  });
});

describe("permission lists: the permissions plugin's sub-schema", () => {
  const bad = { allow: "Bash", tests: [{ match: [] }] };
  const expected = (plugin: string, file: string, base: string) => [
    expect.objectContaining({ plugin, file, path: `${base}/allow`, message: "must be array", severity: "error" }),
    expect.objectContaining({ plugin, file, path: `${base}/tests/0`, message: 'is missing required field "rule"', severity: "error" }),
  ];

  it("a manifest's, the toolhost config's and a settings file's lists are checked through host.validateManifest, and fail their source", async () => {
    const { createHost } = await import("../../core/index.ts");
    const root = writeTree(tmpdir(), {
      "plugin/.claude-plugin/plugin.json": { name: "bad-rules", permissions: bad },
      "toolhost.config.json": { permissions: bad },
      ".claude/settings.json": { permissions: { ...bad, allow: 1 } },
    });
    const host = await createHost({ cwd: root, pluginDirs: [path.join(root, "plugin")], dataHome: path.join(root, ".data") });
    try {
      const problems = host.problems();
      expect(problems).toEqual(expect.arrayContaining(expected("bad-rules", path.join(root, "plugin/.claude-plugin/plugin.json"), "/permissions")));
      expect(problems).toEqual(expect.arrayContaining(expected("config", path.join(root, "toolhost.config.json"), "/permissions")));
      expect(problems).toContainEqual(expect.objectContaining({ plugin: "settings:project", file: path.join(root, ".claude/settings.json"), path: "/permissions/allow", message: "must be array" }));
      expect(host.plugins.map((p) => p.id)).not.toContain("bad-rules");
      expect(host.plugins.some((p) => p.kind === "config" || p.id === "settings:project")).toBe(false);
    } finally {
      await host.close();
    }
  });

  it("a list of the wrong type in the embedder's inline config is reported, not thrown", async () => {
    const { createHost, INLINE_CONFIG } = { ...(await import("../../core/index.ts")), ...(await import("../../core/manifest/config.ts")) };
    const root = tmpdir();
    const host = await createHost({ cwd: root, config: { permissions: { allow: 5 as never } }, dataHome: path.join(root, ".data") });
    try {
      expect(host.problems()).toContainEqual(expect.objectContaining({ plugin: "config", file: INLINE_CONFIG, path: "/permissions/allow", message: "must be array" }));
    } finally {
      await host.close();
    }
  });

  it("core alone asks only for an object (without bundled plugins nobody reads the lists)", () => {
    const root = writeTree(tmpdir(), { ".claude-plugin/plugin.json": { name: "p", permissions: bad } });
    expect(load(root).problems).toEqual([]);
    const arr = writeTree(tmpdir(), { ".claude-plugin/plugin.json": { name: "p", permissions: [] } });
    expect(errors(load(arr))).toEqual([expect.objectContaining({ path: "/permissions", message: "must be object" })]);
  });
});

describe("a server or hook group named __proto__", () => {
  it("is read as a key like any other (assigning it would have set the map's prototype and dropped it silently)", () => {
    const root = tmpdir();
    fs.mkdirSync(path.join(root, ".claude-plugin"), { recursive: true });
    fs.writeFileSync(path.join(root, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "p" }));
    // written by hand: JSON.stringify of an object literal cannot make an own "__proto__" key
    fs.writeFileSync(path.join(root, ".mcp.json"), '{"mcpServers": {"__proto__": {"command": "node", "args": ["${CLAUDE_PLUGIN_ROOT}/a.js"]}, "b": {"command": "node"}}}');
    const lp = loadPlugin({ kind: "plugin-dir", path: root }, { projectDir: root });
    const map = lp.components.mcpServers[0]!.value as Record<string, { args?: string[] }>;
    expect(Object.keys(map)).toEqual(["__proto__", "b"]);
    expect(Object.getPrototypeOf(map)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(map, "__proto__")!.value.args).toEqual([`${root}/a.js`]);
  });
});
