/**
 * Filters fail closed (issue 14 §6): an unknown tool set, mode or tool-set member is an error that keeps
 * the last good pool (a first build serves nothing rather than everything); every tool schema is closed
 * (`additionalProperties: false`) unless its author opts out, whatever form the tool is written in; tools
 * that cannot run in this mode or for this client are hidden, and `explain` says why.
 * Real plugin directories, the real quirky MCP server fixture, the real CLI, `toolhost serve` with real
 * SDK clients over stdio.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createHost, definePlugin, type Host, type Tool } from "../../core/index.ts";
import { BIN, REPO, runCli, tmpdir, writeTree } from "../helpers.ts";

const QUIRKY = path.join(REPO, "test", "fixtures", "mcp", "quirky-server.mjs");
const CORE = path.join(REPO, "core", "index.ts");
const hosts: Host[] = [];
afterAll(async () => {
  for (const h of hosts.splice(0)) await h.close();
});
async function host(opts: Parameters<typeof createHost>[0]): Promise<Host> {
  const h = await createHost(opts);
  hosts.push(h);
  return h;
}
const writeConfig = (dir: string, cfg: object) => fs.writeFileSync(path.join(dir, "toolhost.config.json"), JSON.stringify(cfg, null, 2));
const names = (h: Host) => [...h.pool.byName.keys()].sort();

describe("an unknown tool set, mode or member fails closed", () => {
  it("first build with a misspelled toolSet: no tools, an error naming file and field with a suggestion (CLI)", async () => {
    const dir = tmpdir("toolhost-filters-");
    writeConfig(dir, { toolSets: { review: ["Read", "Grep"] }, toolSet: "revew" });
    const t = await runCli(["tools", "--json", "--cwd", dir]);
    const j = t.json();
    expect(j.tools).toEqual([]);
    const err = j.errors.find((e: { path: string }) => e.path === "/toolSet");
    expect(err).toMatchObject({ plugin: "modes", file: path.join(dir, "toolhost.config.json") });
    expect(err.message).toMatch(/unknown tool set "revew" \(did you mean "review"\?\).*fails closed/);
    const c = await runCli(["check", "--cwd", dir]);
    expect(c.code).toBe(1);
    expect(c.stdout).toMatch(/error: \[modes\] .*toolhost\.config\.json \/toolSet: unknown tool set "revew"/);
    const e = await runCli(["explain", "Read", "--cwd", dir, "--json"]);
    expect(e.json()).toMatchObject({ status: "excluded", rule: "toolSet: revew (unknown)", plugin: "modes" });
  });

  it("a rebuild with a misspelled toolSet keeps the previous pool instead of switching the filter off; fixing it recovers", async () => {
    const dir = tmpdir("toolhost-filters-");
    writeConfig(dir, { toolSets: { review: ["Read", "Grep"], edit: ["Read", "Edit"] }, toolSet: "review" });
    const h = await host({ cwd: dir });
    expect(names(h)).toEqual(["Grep", "Read"]);
    const good = h.pool;
    writeConfig(dir, { toolSets: { review: ["Read", "Grep"], edit: ["Read", "Edit"] }, toolSet: "edti" });
    const r = await h.rebuild("typo");
    expect(r.ok).toBe(false);
    expect(h.pool).toBe(good);
    expect(r.failures![0]).toMatchObject({ plugin: "modes", file: path.join(dir, "toolhost.config.json"), path: "/toolSet" });
    expect(r.failures![0]!.message).toMatch(/did you mean "edit"/);
    writeConfig(dir, { toolSets: { review: ["Read", "Grep"], edit: ["Read", "Edit"] }, toolSet: "edit" });
    expect((await h.rebuild("fixed")).ok).toBe(true);
    expect(names(h)).toEqual(["Edit", "Read"]);
  });

  it("an unknown tool-set member is an error with a suggestion; in a rebuild it keeps the previous pool", async () => {
    const dir = tmpdir("toolhost-filters-");
    writeConfig(dir, { toolSets: { review: ["Read", "Grep"] }, toolSet: "review" });
    const h = await host({ cwd: dir });
    const good = h.pool;
    writeConfig(dir, { toolSets: { review: ["Read", "Grpe"] }, toolSet: "review" });
    const r = await h.rebuild("member typo");
    expect(r.ok).toBe(false);
    expect(h.pool).toBe(good);
    expect(r.failures![0]).toMatchObject({ plugin: "modes", path: "/toolSets/review/1", severity: "error" });
    expect(r.failures![0]!.message).toMatch(/unknown tool "Grpe" \(did you mean "Grep"\?\)/);
    // a first build with it: the member matches nothing (the set only shrinks) and the error is reported
    const h2 = await host({ cwd: dir });
    expect(names(h2)).toEqual(["Read"]);
    expect(h2.problems()).toContainEqual(expect.objectContaining({ path: "/toolSets/review/1", severity: "error" }));
  });

  it("an unknown mode: a first build serves nothing; host.setMode to one keeps the previous pool", async () => {
    const dir = tmpdir("toolhost-filters-");
    const bad = await host({ cwd: dir, mode: "plna" });
    expect(bad.pool.tools).toEqual([]);
    const p = bad.problems().find((x) => x.plugin === "modes")!;
    expect(p).toMatchObject({ severity: "error" });
    expect(p.message).toMatch(/unknown permission mode "plna" \(did you mean "plan"\?\)/);
    expect(bad.explain("Read")).toMatchObject({ status: "excluded", rule: "mode: plna (unknown)" });
    const h = await host({ cwd: dir, mode: "plan" });
    const good = h.pool;
    const failed: unknown[] = [];
    h.hooks.rebuildFailed.tap("test", (_i, f) => void failed.push(f));
    h.setMode("acceptEdtis");
    await h.rebuild("after setMode");
    expect(h.pool).toBe(good);
    expect(failed.length).toBeGreaterThan(0);
    expect(h.pool.byName.has("Write")).toBe(false); // still the plan-mode pool
  });
});

describe("every tool schema is closed unless its author opts out", () => {
  let h: Host;
  let dir: string;
  beforeAll(async () => {
    dir = tmpdir("toolhost-schemas-");
    writeTree(dir, {
      "toolhost.config.json": { plugins: ["./p"], mcpServers: { quirky: { command: process.execPath, args: [QUIRKY], alwaysLoad: true } }, permissions: { allow: ["plain_echo", "open_echo", "ts_echo", "inline_echo", "mcp__quirky__echo"] } },
      "p/.claude-plugin/plugin.json": { name: "p", tools: ["./plain.mjs", "./typed.ts"] },
      // plain objects, no toolhost import: one closed by default, one that opts out
      "p/plain.mjs": `export const plain = { name: "plain_echo", description: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } }, call: (i) => "plain " + JSON.stringify(i) };
export const open = { name: "open_echo", description: "echo anything", inputSchema: { type: "object", properties: { text: { type: "string" } }, additionalProperties: true }, call: (i) => "open " + JSON.stringify(i) };`,
      "p/typed.ts": `import { defineTool } from ${JSON.stringify(CORE)};
export const t = defineTool({ name: "ts_echo", description: "echo", inputSchema: { properties: { text: { type: "string" } } }, call: (i: any) => "ts " + i.text });`,
    });
    const inline = definePlugin({
      name: "inline-src",
      apply(ctx) {
        ctx.hooks.build.tap("inline-src", (b) => b.hooks.collect.tap("inline-src", (c) => c.add({ name: "inline_echo", description: "echo", inputSchema: { properties: { text: { type: "string" } } }, call: () => "inline", origin: "plugin", plugin: "inline-src" } as Tool)));
      },
    });
    h = await host({ cwd: dir, plugins: [inline] });
  });

  it("a plain-object plugin tool, a TS tool and an in-process tool refuse an invented field", async () => {
    for (const name of ["plain_echo", "ts_echo", "inline_echo"]) {
      expect(h.pool.byName.get(name)!.inputSchema.additionalProperties).toBe(false);
      const bad = await h.execute(name, { text: "x", invented: 1 });
      expect(bad.status, name).toBe("invalid-input");
      expect(bad.result.content[0]!.text).toMatch(/invented/);
      expect((await h.execute(name, { text: "x" })).status, name).toBe("ok");
    }
  });

  it("an explicit additionalProperties: true is the author's choice and kept", async () => {
    expect(h.pool.byName.get("open_echo")!.inputSchema.additionalProperties).toBe(true);
    const o = await h.execute("open_echo", { text: "x", extra: 2 });
    expect(o.status).toBe("ok");
    expect(o.result.content[0]!.text).toContain('"extra":2');
  });

  it("an MCP tool keeps its server's schema (the server validates its own input)", async () => {
    const t = h.pool.byName.get("mcp__quirky__echo")!;
    expect(t.inputSchema.additionalProperties).toBeUndefined();
    expect((await h.execute("mcp__quirky__echo", {})).status).toBe("invalid-input"); // still validated against it (required text)
    expect((await h.execute("mcp__quirky__echo", { text: "hi", extra: 1 })).status).toBe("ok");
  });
});

describe("tools that cannot run are hidden before the model sees them", () => {
  it("dontAsk hides Write and Edit when nothing pre-approves them; an allow rule brings them back; explain says why (CLI)", async () => {
    const dir = tmpdir("toolhost-dontask-");
    const t = await runCli(["tools", "--json", "--cwd", dir, "--mode", "dontAsk"]);
    const j = t.json();
    const listed = j.tools.map((x: { name: string }) => x.name);
    for (const n of ["Read", "Grep", "Glob", "Bash", "exec_command"]) expect(listed).toContain(n); // a shell: read-only commands run unasked
    for (const n of ["Write", "Edit"]) {
      expect(listed).not.toContain(n);
      expect(j.excluded).toContainEqual(expect.objectContaining({ name: n, rule: "mode: dontAsk", plugin: "modes" }));
    }
    const e = await runCli(["explain", "Write", "--cwd", dir, "--mode", "dontAsk"]);
    expect(e.stdout).toMatch(/Write: excluded\n\s+reason: dontAsk mode refuses every call that is not pre-approved, and nothing pre-approves this tool: no allow rule names Write/);
    // in default mode the same tools are there (the test can fail for the right reason)
    const d = (await runCli(["tools", "--json", "--cwd", dir])).json();
    expect(d.tools.map((x: { name: string }) => x.name)).toEqual(expect.arrayContaining(["Write", "Edit"]));
    writeConfig(dir, { permissions: { allow: ["Edit(src/**)"] } });
    const a = (await runCli(["tools", "--json", "--cwd", dir, "--mode", "dontAsk"])).json();
    expect(a.tools.map((x: { name: string }) => x.name)).toEqual(expect.arrayContaining(["Write", "Edit"]));
  });

  it("a Write that dontAsk hides is one it would have refused", async () => {
    const dir = tmpdir("toolhost-dontask-");
    writeConfig(dir, { permissions: { allow: ["Write(never/**)"] } }); // keeps Write in the pool, approves nothing here
    const h = await host({ cwd: dir, mode: "dontAsk" });
    const o = await h.execute("Write", { file_path: path.join(dir, "a.txt"), content: "x" });
    expect(o.status).toBe("denied");
    expect(o.reason).toMatch(/dontAsk/);
  });

  describe("toolhost serve: a client that cannot be asked is not offered tools that always need approval", () => {
    let dir: string;
    const clients: Client[] = [];
    afterAll(async () => {
      for (const c of clients) await c.close().catch(() => {});
    });
    async function connect(elicit: boolean): Promise<Client> {
      const client = new Client({ name: "trust-test", version: "1" }, { capabilities: elicit ? { elicitation: { form: {} } } : {} });
      const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, "serve", "--cwd", dir, "--no-watch"], env: { ...process.env } as Record<string, string>, stderr: "pipe" });
      await client.connect(transport);
      clients.push(client);
      return client;
    }
    beforeAll(() => {
      dir = tmpdir("toolhost-serve-ask-");
      writeConfig(dir, { permissions: { allow: ["Bash(echo:*)"] } });
    });

    it("without elicitation: no Write/Edit in tools/list, read-only tools stay; with elicitation: offered", async () => {
      const mute = await connect(false);
      const listed = (await mute.listTools()).tools.map((t) => t.name);
      for (const n of ["Read", "Grep", "Bash"]) expect(listed).toContain(n);
      for (const n of ["Write", "Edit"]) expect(listed).not.toContain(n);
      const asking = await connect(true);
      expect((await asking.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(["Write", "Edit"]));
      const e = await runCli(["explain", "Write", "--cwd", dir]);
      expect(e.stdout).toMatch(/note: {3}hidden from MCP clients that cannot be asked \(no elicitation capability\)/);
    });

    it("an allow rule for Edit makes the edit tools runnable unasked, so they are offered", async () => {
      writeConfig(dir, { permissions: { allow: ["Bash(echo:*)", "Edit(src/**)"] } });
      const mute = await connect(false);
      expect((await mute.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(["Write", "Edit"]));
    });
  });
});
