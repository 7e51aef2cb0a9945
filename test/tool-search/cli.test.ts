import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createHost } from "../../core/index.ts";
import { GITHUB, SLACK } from "./fixtures.ts";

const ROOT = path.resolve(import.meta.dirname, "..", "..");

/** A real plugin directory whose module collects fake MCP-origin tools (in its own namespace: mcp__<server>__* names belong to real servers). */
function pluginDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolhost-ts-cli-"));
  fs.writeFileSync(path.join(dir, "toolhost.plugin.json"), JSON.stringify({ name: "fake-mcp", main: "./index.mjs" }));
  const tools = [...GITHUB, ...SLACK];
  fs.writeFileSync(
    path.join(dir, "index.mjs"),
    `const tools = ${JSON.stringify(tools)};
export default {
  name: "fake-mcp",
  apply(ctx) {
    ctx.hooks.build.tap("fake-mcp", (build) => {
      build.hooks.collect.tapPromise("fake-mcp", async (c) => {
        for (const t of tools) c.add({ name: "mcp__plugin_fake-mcp_" + t.server + "__" + t.name, description: t.description, inputSchema: t.inputSchema ?? { type: "object", properties: {} }, origin: "mcp", plugin: "fake-mcp", server: t.server, call: () => "ok" });
      });
    });
  },
};
`,
  );
  return dir;
}

function cli(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [path.join(ROOT, "bin", "toolhost.mjs"), ...args], { cwd, encoding: "utf8", timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("toolhost search (spawned CLI)", () => {
  const dir = pluginDir();
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "toolhost-ts-cwd-"));

  it("prints {tools:[{name,score}]} in the same order as the ToolSearch tool", async () => {
    const r = cli(["search", "create a pull request", "--json", "--limit", "3", "--plugin-dir", dir], cwd);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout) as { tools: Array<{ name: string; score: number }> };
    expect(j.tools).toHaveLength(3);
    expect(j.tools[0]!.name).toBe("mcp__plugin_fake-mcp_github__create_pull_request");
    expect(j.tools.every((t) => typeof t.score === "number")).toBe(true);
    expect(j.tools.map((t) => t.score)).toEqual([...j.tools.map((t) => t.score)].sort((a, b) => b - a));

    const host = await createHost({ cwd, pluginDirs: [dir] });
    try {
      const o = await host.execute("ToolSearch", { query: "create a pull request", max_results: 3 });
      expect((o.result.structuredContent as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toEqual(j.tools.map((t) => t.name));
    } finally {
      await host.close();
    }
  });

  it("exits 1 with suggestions when nothing matches, 3 on a bad --limit", () => {
    const none = cli(["search", "zzzqqq", "--json", "--plugin-dir", dir], cwd);
    expect(none.code).toBe(1);
    expect(JSON.parse(none.stdout).suggestions.join("\n")).toContain("+github");
    const bad = cli(["search", "x", "--limit", "0", "--plugin-dir", dir], cwd);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/--limit must be a positive integer/);
  });

  it("toolhost tools shows tokens and eager vs deferred totals; explain names the deferral rule", () => {
    const t = cli(["tools", "--plugin-dir", dir], cwd);
    expect(t.stdout).toMatch(/TOKENS/);
    expect(t.stdout).toMatch(/Tokens \(o200k_base.*\): \d+ eager .*, \d+ deferred/);
    const e = cli(["explain", "mcp__plugin_fake-mcp_slack__send_message", "--json", "--plugin-dir", dir], cwd);
    expect(JSON.parse(e.stdout)).toMatchObject({ status: "deferred", rule: "mcp: deferred by default", plugin: "tool-search" });
  });
});
