import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createHost, definePlugin, defineTool, type Host, type Tool, type ToolOrigin } from "../../core/index.ts";
import { REPO, tmpdir, writeTree } from "../helpers.ts";

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
});
async function host(opts: Parameters<typeof createHost>[0]) {
  const h = await createHost({ bundled: false, ...opts });
  hosts.push(h);
  return h;
}

function source(id: string, tools: Array<Partial<Tool> & { name: string }>, origin: ToolOrigin = "plugin") {
  return definePlugin({
    name: id,
    apply(ctx) {
      ctx.hooks.build.tap(id, (b) =>
        b.hooks.collect.tap(id, (c) => {
          for (const t of tools) c.add({ description: `${t.name} tool`, inputSchema: { type: "object", properties: {} }, call: () => "ok", origin, plugin: id, ...t } as Tool);
        }),
      );
    },
  });
}

const CORE = path.join(REPO, "core", "index.ts");

describe("pool assembly", () => {
  it("orders built-ins as one contiguous prefix, then by origin, plugin and name", async () => {
    const h = await host({
      plugins: [
        source("zeta", [{ name: "b_tool" }, { name: "a_tool" }]),
        source("mcpish", [{ name: "mcp__s__x" }], "mcp"),
        source("core-tools", [{ name: "Write" }, { name: "Read" }], "builtin"),
        source("alpha", [{ name: "c_tool" }]),
      ],
    });
    expect(h.pool.tools.map((t) => t.name)).toEqual(["Read", "Write", "c_tool", "a_tool", "b_tool", "mcp__s__x"]);
  });

  it("records which rule and plugin excluded a tool", async () => {
    const denier = definePlugin({
      name: "denier",
      apply(ctx) {
        ctx.hooks.build.tap("denier", (b) => b.hooks.exclude.tap("denier", (t) => (t.name === "rm_all" ? { name: t.name, reason: "denied by rule", rule: "rm_all", file: "/x/settings.json" } : undefined)));
      },
    });
    const h = await host({ plugins: [source("src", [{ name: "rm_all" }, { name: "ls" }]), denier] });
    expect(h.pool.tools.map((t) => t.name)).toEqual(["ls"]);
    expect(h.pool.excluded).toEqual([{ name: "rm_all", reason: "denied by rule", rule: "rm_all", plugin: undefined, file: "/x/settings.json", toolPlugin: "src" }]);
    const e = h.explain("rm_all");
    expect(e).toMatchObject({ status: "excluded", rule: "rm_all", file: "/x/settings.json" });
  });

  it("a built-in name is owned; any other duplicate serves neither tool (names are owned, issue 14)", async () => {
    const h = await host({ plugins: [source("zz", [{ name: "Read" }]), source("aa", [{ name: "Read" }]), source("core", [{ name: "Read" }], "builtin")] });
    expect(h.pool.tools).toHaveLength(1);
    expect(h.pool.tools[0]!.plugin).toBe("core");
    const losers = h.pool.excluded.filter((x) => x.name === "Read");
    expect(losers.map((x) => x.toolPlugin).sort()).toEqual(["aa", "zz"]);
    expect(losers[0]!.rule).toBe("name: built-in");
    expect(losers[0]!.reason).toMatch(/built-in tool name, owned by plugin core \(builtin\)/);
    const h2 = await host({ plugins: [source("zz", [{ name: "T" }]), source("aa", [{ name: "T" }])] });
    expect(h2.pool.tools).toEqual([]);
    expect(h2.problems().filter((p) => p.severity === "error").map((p) => p.plugin).sort()).toEqual(["aa", "aa", "zz", "zz"]);
  });

  it("excludes a tool whose input schema does not compile, with the reason", async () => {
    const h = await host({ plugins: [source("s", [{ name: "bad", inputSchema: { type: "object", properties: { a: { type: "no-such-type" } } } }, { name: "good" }])] });
    expect(h.pool.tools.map((t) => t.name)).toEqual(["good"]);
    expect(h.explain("bad")).toMatchObject({ status: "excluded", rule: "schema" });
    expect(h.explain("bad").reason).toMatch(/input schema does not compile/);
  });

  it("defineTool adds additionalProperties: false unless the author opts out", () => {
    expect(defineTool({ name: "a", description: "", inputSchema: { properties: {} }, call: () => "" }).inputSchema).toEqual({ type: "object", properties: {}, additionalProperties: false });
    expect(defineTool({ name: "a", description: "", inputSchema: { type: "object", additionalProperties: true }, call: () => "" }).inputSchema.additionalProperties).toBe(true);
  });

  it("a snapshot is immutable and carries generation and fingerprint", async () => {
    const h = await host({ plugins: [source("s", [{ name: "x" }])] });
    expect(Object.isFrozen(h.pool)).toBe(true);
    expect(Object.isFrozen(h.pool.tools)).toBe(true);
    expect(() => (h.pool.tools as Tool[]).push({} as Tool)).toThrow();
    const before = h.pool;
    const r = await h.rebuild("test");
    expect(r.pool.generation).toBe(before.generation + 1);
    expect(r.pool.fingerprint).toBe(before.fingerprint);
    expect(r.diff).toMatchObject({ added: [], removed: [], changed: [], fingerprintChanged: false });
  });
});

describe("fingerprint", () => {
  function pluginDir(root: string, name: string, tools: string[]) {
    writeTree(root, {
      [`${name}/.claude-plugin/plugin.json`]: { name, tools: ["./tools.ts"] },
      [`${name}/tools.ts`]: `import { defineTool } from ${JSON.stringify(CORE)};\n` + tools.map((t) => `export const ${t} = defineTool({ name: ${JSON.stringify(t)}, description: "the ${t} tool", inputSchema: { properties: { q: { type: "string" } } }, call: () => "${t}" });`).join("\n"),
    });
    return path.join(root, name);
  }

  it("is the same for the same inputs, whatever the plugin discovery order, and changes with a description", async () => {
    const root = tmpdir();
    const a = pluginDir(root, "plug-a", ["alpha", "beta"]);
    const b = pluginDir(root, "plug-b", ["gamma"]);
    const h1 = await host({ cwd: root, bundled: true, pluginDirs: [a, b] });
    const h2 = await host({ cwd: root, bundled: true, pluginDirs: [b, a] });
    expect(h1.pool.tools.filter((t) => t.origin === "plugin").map((t) => t.name)).toEqual(["alpha", "beta", "gamma"]);
    expect(h2.pool.tools.map((t) => t.name)).toEqual(h1.pool.tools.map((t) => t.name));
    expect(h2.pool.fingerprint).toBe(h1.pool.fingerprint);
    expect(h1.pool.tools.find((t) => t.name === "alpha")).toMatchObject({ origin: "plugin", plugin: "plug-a", file: path.join(a, "tools.ts") });
    fs.writeFileSync(path.join(b, "tools.ts"), fs.readFileSync(path.join(b, "tools.ts"), "utf8").replace("the gamma tool", "the GAMMA tool"));
    const r = await h1.rebuild("edit");
    expect(r.ok).toBe(true);
    expect(r.pool.fingerprint).not.toBe(h2.pool.fingerprint);
    expect(r.diff!.changed).toEqual(["gamma"]);
  });
});

describe("one bad plugin never takes the others down", () => {
  it("a broken manifest is reported by file and JSON path while the rest loads", async () => {
    const root = tmpdir();
    writeTree(root, {
      "good/.claude-plugin/plugin.json": { name: "good", tools: ["./t.ts"] },
      "good/t.ts": `export default { name: "good_tool", description: "d", inputSchema: { type: "object" }, call: () => "ok" };`,
      "bad/.claude-plugin/plugin.json": { name: "bad", keywords: "oops" },
    });
    const h = await host({ cwd: root, bundled: true, pluginDirs: [path.join(root, "good"), path.join(root, "bad")] });
    expect(h.pool.tools.map((t) => t.name)).toContain("good_tool");
    expect(h.problems()).toContainEqual(expect.objectContaining({ plugin: "bad", file: path.join(root, "bad/.claude-plugin/plugin.json"), path: "/keywords", severity: "error" }));
  });

  it("a plugin whose apply throws, or whose tap throws, is attributed; the others go on", async () => {
    const crashApply = definePlugin({ name: "crash-apply", apply() { throw new Error("kaput"); } });
    const crashTap = definePlugin({ name: "crash-tap", apply(ctx) { ctx.hooks.build.tap("x", (b) => b.hooks.collect.tap("x", () => { throw new Error("collect exploded"); })); } });
    const h = await host({ plugins: [crashApply, crashTap, source("fine", [{ name: "ok_tool" }])] });
    expect(h.pool.tools.map((t) => t.name)).toEqual(["ok_tool"]);
    const probs = h.problems();
    expect(probs).toContainEqual(expect.objectContaining({ plugin: "crash-apply", message: "activating plugin failed: kaput" }));
    expect(probs).toContainEqual(expect.objectContaining({ plugin: "crash-tap", path: "build.collect", message: "[plugin crash-tap] build.collect: collect exploded" }));
  });

  it("a tool module that fails to import is reported with file and path", async () => {
    const root = writeTree(tmpdir(), { "p/.claude-plugin/plugin.json": { name: "p", tools: ["./t.ts"] }, "p/t.ts": "export const x = ;" });
    const h = await host({ cwd: root, bundled: true, pluginDirs: [path.join(root, "p")] });
    expect(h.problems()).toContainEqual(expect.objectContaining({ plugin: "p", file: path.join(root, "p/t.ts"), path: "/tools/0" }));
  });
});

describe("the one rebuild path", () => {
  it("keeps the last good pool when a rebuild brings new errors, and recovers when fixed", async () => {
    const root = tmpdir();
    writeTree(root, {
      "p/.claude-plugin/plugin.json": { name: "p", tools: ["./t.ts"] },
      "p/t.ts": `export default { name: "t1", description: "d", inputSchema: { type: "object" }, call: () => "ok" };`,
    });
    const h = await host({ cwd: root, bundled: true, pluginDirs: [path.join(root, "p")] });
    const good = h.pool;
    const failed: unknown[] = [];
    h.hooks.rebuildFailed.tap("test", (_i, p) => void failed.push(p));
    fs.writeFileSync(path.join(root, "p/.claude-plugin/plugin.json"), '{"name": "p", "tools": 7}');
    const r = await h.rebuild("broken edit");
    expect(r.ok).toBe(false);
    expect(h.pool).toBe(good);
    expect(r.failures).toContainEqual(expect.objectContaining({ plugin: "p", path: "/tools" }));
    expect(failed).toHaveLength(1);
    expect((await h.execute("t1", {}, { yes: true })).status).toBe("ok");
    fs.writeFileSync(path.join(root, "p/.claude-plugin/plugin.json"), '{"name": "p", "tools": ["./t.ts"]}');
    const r2 = await h.rebuild("fixed");
    expect(r2.ok).toBe(true);
    expect(h.pool).not.toBe(good);
  });

  it("coalesces invalidate bursts and fires poolChanged once per changing generation", async () => {
    let n = 0;
    const h = await host({ debounceMs: 20, plugins: [definePlugin({ name: "dyn", apply(ctx) { ctx.hooks.build.tap("dyn", (b) => b.hooks.collect.tap("dyn", (c) => c.add({ name: `t${n}`, description: "d", inputSchema: { type: "object" }, call: () => "", origin: "plugin", plugin: "dyn" }))); } })] });
    const starts: number[] = [];
    const changes: number[] = [];
    h.hooks.rebuildStart.tap("t", (i) => void starts.push(i.generation));
    h.hooks.poolChanged.tap("t", (p) => void changes.push(p.generation));
    n = 1;
    for (let i = 0; i < 50; i++) h.invalidate(`burst ${i}`);
    await new Promise((r) => setTimeout(r, 200));
    expect(starts).toHaveLength(1);
    expect(changes).toEqual(starts);
    h.invalidate("no change");
    await new Promise((r) => setTimeout(r, 150));
    expect(starts).toHaveLength(2);
    expect(changes).toHaveLength(1);
  });

  it("a removed plugin's host taps go silent and it is not applied to the next build", async () => {
    const root = tmpdir();
    writeTree(root, {
      "p/.claude-plugin/plugin.json": { name: "p", main: "./main.ts" },
      "p/main.ts": `export default { name: "p", apply(ctx) { globalThis.__seen = []; ctx.hooks.rebuildStart.tap("p", (i) => globalThis.__seen.push(i.generation)); ctx.hooks.build.tap("p", (b) => b.hooks.collect.tap("p", (c) => c.add({ name: "from_p", description: "d", inputSchema: { type: "object" }, call: () => "", origin: "plugin", plugin: "p" }))); } };`,
    });
    const dirs = [path.join(root, "p")];
    const h = await host({ cwd: root, pluginDirs: dirs });
    expect(h.pool.tools.map((t) => t.name)).toEqual(["from_p"]);
    await h.rebuild("again");
    const seen = (globalThis as { __seen?: number[] }).__seen!;
    expect(seen).toEqual([2]);
    dirs.pop();
    await h.rebuild("removed"); // generation 3 starts before the removal is known
    expect(h.pool.tools).toEqual([]);
    await h.rebuild("after removal");
    expect(seen).toEqual([2, 3]);
  });
});

describe("tool sets (a task-type router)", () => {
  it("keeps only the active set's tools and says why the others are out", async () => {
    const root = tmpdir();
    const h = await createHost({ cwd: root, config: { toolSets: { review: ["read_*", "grep"] }, toolSet: "review" }, plugins: [source("s", [{ name: "read_file" }, { name: "grep" }, { name: "write_file" }])] });
    hosts.push(h);
    expect(h.pool.tools.map((t) => t.name)).toEqual(["grep", "read_file"]);
    expect(h.explain("write_file")).toMatchObject({ status: "excluded", rule: "toolSet: review", plugin: "modes" });
  });
});
