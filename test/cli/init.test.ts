/**
 * `toolhost init` (issue 19, item 1): the scaffold works at once — `npm install && npm test` pass in it with no
 * network, `toolhost check` passes, its tool runs through the CLI — and its tests can fail (a broken rule example
 * is caught by its own suite).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../contract/house.ts";

const BIN = path.join(ROOT, "bin/toolhost.mjs");
const th = (args: string[], cwd: string) => spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: "utf8" });
const npm = (args: string[], cwd: string) => spawnSync("npm", args, { cwd, encoding: "utf8", env: { ...process.env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" } });

describe("toolhost init", () => {
  let dir: string;
  beforeAll(() => {
    dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "th-init-")), "word-tools");
    const r = th(["init", dir], os.tmpdir());
    expect(r.status, r.stderr).toBe(0);
    const inst = npm(["install", "--offline", "--no-audit", "--no-fund"], dir);
    expect(inst.status, inst.stderr).toBe(0);
  }, 120_000);

  it("writes a package named after its directory with toolhost as a peer dependency", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
    expect(pkg.name).toBe("word-tools");
    expect(pkg.peerDependencies.toolhost).toMatch(/^\^\d+\.\d+\.\d+$/);
    for (const f of ["toolhost.plugin.json", "tools/word-count.ts", "hooks/changelog-reminder.mjs", "test/plugin.test.mjs", "README.md", ".gitignore"]) expect(fs.existsSync(path.join(dir, f)), f).toBe(true);
  });

  it("npm test passes in the scaffold (through the whole pipeline, on toolhost/testing)", () => {
    const r = npm(["test"], dir);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/# pass 4/);
  }, 120_000);

  it("toolhost check passes and its tool runs through the CLI", () => {
    const c = th(["check", "."], dir);
    expect(c.status, c.stdout + c.stderr).toBe(0);
    expect(c.stdout).toContain("0 errors, 0 warnings, 1 tools");
    fs.writeFileSync(path.join(dir, "words.txt"), "a b c\n");
    const call = th(["--plugin-dir", ".", "call", "word_count", '{"path": "words.txt"}'], dir);
    expect(call.status, call.stderr).toBe(0);
    expect(call.stdout).toContain("1 lines, 3 words, 6 bytes");
  });

  it("its tests can fail: a rule example that no longer holds fails check and npm test", () => {
    const copy = path.join(path.dirname(dir), "broken");
    fs.cpSync(dir, copy, { recursive: true, verbatimSymlinks: true });
    const mf = path.join(copy, "toolhost.plugin.json");
    fs.writeFileSync(mf, fs.readFileSync(mf, "utf8").replace('"not_match": ["git push origin main"]', '"not_match": ["git push --force origin x"]'));
    expect(th(["check", "."], copy).status).toBe(1);
    expect(npm(["test"], copy).status).not.toBe(0);
  }, 120_000);

  it("installed by package name in another project, it is checked and called there (the guide's last step)", () => {
    const project = fs.mkdtempSync(path.join(os.tmpdir(), "th-init-project-"));
    fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "consumer", private: true }));
    const inst = npm(["install", "--offline", "--no-audit", "--no-fund", dir], project);
    expect(inst.status, inst.stderr).toBe(0);
    fs.writeFileSync(path.join(project, "toolhost.config.json"), JSON.stringify({ plugins: ["word-tools"] }));
    expect(th(["check"], project).status).toBe(0);
    const tools = JSON.parse(th(["tools", "--json"], project).stdout) as { tools: Array<{ name: string; plugin: string }> };
    expect(tools.tools.find((t) => t.name === "word_count")?.plugin).toBe("word-tools");
    fs.writeFileSync(path.join(project, "a.txt"), "x y\n");
    expect(th(["call", "word_count", '{"path": "a.txt"}'], project).stdout).toContain("1 lines, 2 words");
  }, 120_000);

  it("a plugin outside any node_modules that holds toolhost resolves `toolhost` (and subpaths) to the host's own copy", () => {
    const far = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "th-far-")), "far");
    fs.mkdirSync(far);
    fs.writeFileSync(path.join(far, "toolhost.plugin.json"), JSON.stringify({ name: "far", tools: ["./tools.ts"], main: "./main.mjs" }));
    fs.writeFileSync(path.join(far, "tools.ts"), `import { defineTool } from "toolhost";\nimport { matchesRule } from "toolhost/rules";\nexport default defineTool({ name: "far_tool", description: "d", inputSchema: { type: "object", properties: { x: { type: "string" } }, required: ["x"] }, isReadOnly: true, call: (i) => "far " + i.x + " " + typeof matchesRule });\n`);
    fs.writeFileSync(path.join(far, "main.mjs"), `import { definePlugin } from "toolhost";\nexport default definePlugin({ name: "far", apply() {} });\n`);
    const c = th(["check", far], os.tmpdir());
    expect(c.status, c.stdout + c.stderr).toBe(0);
    const call = th(["--plugin-dir", far, "call", "far_tool", '{"x": "y"}'], os.tmpdir());
    expect(call.stdout.trim()).toBe("far y function");
  });

  it("refuses to overwrite without --force and refuses a bad name", () => {
    const again = th(["init", dir], os.tmpdir());
    expect(again.status).toBe(3);
    expect(again.stderr).toContain("pass --force to overwrite");
    const bad = th(["init", path.join(path.dirname(dir), "x"), "--name", "Bad Name"], os.tmpdir());
    expect(bad.status).toBe(3);
    expect(bad.stderr).toContain("--name must be an npm package name");
  });
});
