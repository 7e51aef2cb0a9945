/**
 * A toolhost config found in the project is the repository's: in an untrusted workspace the plugins it
 * names are not loaded (their code never runs), its hooks and MCP servers are not applied, and each is said
 * once on stderr and as a warning naming the file; once trusted, or with the config named by --config, all
 * apply. Real CLI child processes, a real plugin module and a real command hook.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { createHost } from "../../core/index.ts";
import { runCli, tmpdir, writeTree } from "../helpers.ts";

let root: string;
let repo: string;
let home: string;
const env = () => ({ TOOLHOST_HOME: home, CLAUDE_CONFIG_DIR: home });
const cli = (args: string[]) => runCli([...args, "--cwd", repo], { cwd: repo, env: env() });

beforeEach(() => {
  root = tmpdir("toolhost-projcfg-");
  home = path.join(root, "home");
  fs.mkdirSync(home);
  repo = writeTree(path.join(root, "repo"), {
    "toolhost.config.json": {
      plugins: ["./plugins/evil"],
      hooks: { PreToolUse: [{ matcher: "Read", hooks: [{ type: "command", command: `node -e "require('fs').writeFileSync('hook-ran', '')"` }] }] },
    },
    "plugins/evil/toolhost.plugin.json": { name: "evil", main: "./index.mjs" },
    // the module's top level runs when the plugin loads: the marker says whether it did
    "plugins/evil/index.mjs": `import fs from "node:fs";\nfs.writeFileSync(${JSON.stringify(path.join(root, "repo", "evil-ran"))}, "");\nexport default { name: "evil", apply() {} };\n`,
    "readme.txt": "hello\n",
  });
});

describe("a toolhost config found in an untrusted project", { timeout: 120_000 }, () => {
  it("the embedder's inline config is the user's: the plugins it names load, the project file's still wait", async () => {
    const mine = writeTree(path.join(root, "mine"), {
      "toolhost.plugin.json": { name: "mine", main: "./index.mjs" },
      "index.mjs": `import fs from "node:fs";\nfs.writeFileSync(${JSON.stringify(path.join(root, "mine-ran"))}, "");\nexport default { name: "mine", apply() {} };\n`,
    });
    const warnings: string[] = [];
    const h = await createHost({ cwd: repo, watch: false, trustWorkspace: false, config: { plugins: [mine] }, logger: { warn: (m) => void warnings.push(m), error: (m) => void warnings.push(m) } });
    try {
      expect(fs.existsSync(path.join(root, "mine-ran"))).toBe(true);
      expect(fs.existsSync(path.join(repo, "evil-ran"))).toBe(false);
      const held = h.problems().filter((p) => /not loaded: plugin/.test(p.message));
      expect(held.map((p) => p.message).join("\n")).toMatch(/plugins\/evil/);
      expect(held.map((p) => p.message).join("\n")).not.toMatch(/mine/);
    } finally {
      await h.close();
    }
  });

  it("loads none of its plugins and applies none of its hooks, and says so once", async () => {
    const r = await cli(["call", "Read", JSON.stringify({ file_path: path.join(repo, "readme.txt") }), "--json"]);
    expect(r.json().executed).toBe(true);
    expect(fs.existsSync(path.join(repo, "evil-ran"))).toBe(false);
    expect(fs.existsSync(path.join(repo, "hook-ran"))).toBe(false);
    const lines = r.stderr.split("\n").filter((l) => l.includes("is not trusted"));
    expect(lines.some((l) => l.includes(`not loaded: plugin ${path.join(repo, "plugins/evil")}`))).toBe(true);
    expect(lines.some((l) => l.includes("not applied: hooks of the toolhost config found in the project"))).toBe(true);
    const tools = (await cli(["tools", "--json"])).json();
    expect(tools.warnings).toEqual(expect.arrayContaining([expect.objectContaining({ plugin: "trust", file: path.join(repo, "toolhost.config.json"), path: "/plugins" })]));
  });

  it("applies all of it once the workspace is trusted, or when the config is named with --config", async () => {
    expect((await cli(["trust", repo])).code).toBe(0);
    const r = await cli(["call", "Read", JSON.stringify({ file_path: path.join(repo, "readme.txt") }), "--json"]);
    expect(r.json().executed).toBe(true);
    expect(fs.existsSync(path.join(repo, "evil-ran"))).toBe(true);
    expect(fs.existsSync(path.join(repo, "hook-ran"))).toBe(true);

    fs.rmSync(path.join(home, "trust.json"));
    fs.rmSync(path.join(repo, "evil-ran"));
    const named = await cli(["--config", path.join(repo, "toolhost.config.json"), "tools", "--json"]);
    expect(named.code).toBe(0);
    expect(fs.existsSync(path.join(repo, "evil-ran"))).toBe(true);
  });
});

describe("an embedder's inline config in an untrusted workspace", { timeout: 60_000 }, () => {
  it("keeps its hooks: only a config file found in the project is the repository's", async () => {
    const dir = tmpdir("toolhost-inline-");
    const marker = path.join(dir, "inline-hook-ran");
    const host = await createHost({ cwd: dir, trustWorkspace: false, config: { hooks: { PreToolUse: [{ matcher: "Read", hooks: [{ type: "command", command: `node -e "require('fs').writeFileSync(${JSON.stringify(JSON.stringify(marker))}, '')"` }] }] } } });
    try {
      fs.writeFileSync(path.join(dir, "a.txt"), "a\n");
      expect((await host.execute("Read", { file_path: path.join(dir, "a.txt") })).executed).toBe(true);
      expect(fs.existsSync(marker)).toBe(true);
    } finally {
      await host.close();
    }
  });
});
