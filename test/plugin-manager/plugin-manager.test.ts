/**
 * `toolhost plugin` (issue 19, item 3) end to end: a scaffolded plugin packed with `npm pack` and added by tarball
 * (installed with npm into the project, recorded in config, checked), listed, removed; a broken plugin refused with
 * the config left as it was; a Claude Code marketplace (a directory, and a git repository) as a source.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../contract/house.ts";

const BIN = path.join(ROOT, "bin/toolhost.mjs");
let HOME: string;
const env = () => ({ ...process.env, TOOLHOST_HOME: HOME, npm_config_offline: "true", npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" });
const th = (args: string[], cwd: string) => spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: "utf8", env: env() });
const npm = (args: string[], cwd: string) => execFileSync("npm", args, { cwd, encoding: "utf8", env: env() });
const config = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, "toolhost.config.json"), "utf8")) as { plugins: string[] };

function project(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "th-pm-project-"));
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true }));
  npm(["install", "--no-save", "--ignore-scripts", ROOT], dir); // the peer dependency a plugin names, so npm fetches nothing
  return dir;
}

describe("toolhost plugin", () => {
  let tarball: string;
  beforeAll(() => {
    HOME = fs.mkdtempSync(path.join(os.tmpdir(), "th-pm-home-"));
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "th-pm-src-"));
    expect(th(["init", path.join(work, "word-tools")], work).status).toBe(0);
    const out = npm(["pack", "--json", "--ignore-scripts", "--pack-destination", work], path.join(work, "word-tools"));
    tarball = path.join(work, (JSON.parse(out) as Array<{ filename: string }>)[0]!.filename);
  }, 120_000);

  it("add <tarball> installs it, records the package name in config, checks it; list shows it; remove undoes both", () => {
    const dir = project();
    const add = th(["plugin", "add", tarball], dir);
    expect(add.status, add.stderr + add.stdout).toBe(0);
    expect(add.stdout).toContain("✓ add word-tools: checked, recorded in");
    expect(config(dir).plugins).toEqual(["word-tools"]);
    expect(JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")).dependencies["word-tools"]).toBeDefined();
    // a plugin named by the project's config loads once the workspace is trusted (test/trust/project-config.test.ts)
    expect(add.stderr).toContain(`note: ${dir} is not a trusted workspace`);
    const held = JSON.parse(th(["plugin", "list", "--json"], dir).stdout) as { plugins: Array<{ entry: string; state: string }> };
    expect(held.plugins).toEqual([expect.objectContaining({ entry: "word-tools", state: "withheld" })]);
    expect(th(["trust", dir], dir).status).toBe(0);
    const list = JSON.parse(th(["plugin", "list", "--json"], dir).stdout) as { plugins: Array<{ entry: string; state: string; tools: number }> };
    expect(list.plugins).toEqual([expect.objectContaining({ entry: "word-tools", state: "loaded", tools: 1 })]);
    expect(th(["call", "word_count", '{"path": "package.json"}'], dir).stdout).toMatch(/package\.json: \d+ lines/);
    const rm = th(["plugin", "remove", "word-tools"], dir);
    expect(rm.status, rm.stderr).toBe(0);
    expect(config(dir).plugins).toEqual([]);
    expect(fs.existsSync(path.join(dir, "node_modules/word-tools"))).toBe(false);
  }, 180_000);

  it("a plugin whose check fails is not recorded (exit 1, errors named), unless --force", () => {
    const dir = project();
    fs.mkdirSync(path.join(dir, "broken"));
    fs.writeFileSync(path.join(dir, "broken/toolhost.plugin.json"), JSON.stringify({ name: "broken", permissions: { deny: ["Bash(rm *"] } }));
    const r = th(["plugin", "add", "./broken"], dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/error: \[broken\] .*toolhost\.plugin\.json/);
    expect(r.stdout).toContain("not recorded in");
    expect(fs.existsSync(path.join(dir, "toolhost.config.json")) ? config(dir).plugins : []).toEqual([]);
    expect(th(["plugin", "add", "./broken", "--force"], dir).status).toBe(1);
    expect(config(dir).plugins).toEqual(["./broken"]);
    expect(th(["plugin", "list"], dir).status).toBe(1);
  }, 120_000);

  it("Claude Code marketplaces, from a directory and from a git repository, are a source of plugins", () => {
    const market = fs.mkdtempSync(path.join(os.tmpdir(), "th-pm-market-"));
    fs.mkdirSync(path.join(market, ".claude-plugin"));
    fs.mkdirSync(path.join(market, "plugins/guard"), { recursive: true });
    fs.writeFileSync(path.join(market, ".claude-plugin/marketplace.json"), JSON.stringify({ name: "team", owner: { name: "t" }, plugins: [{ name: "guard", source: "./plugins/guard", description: "no force pushes" }] }));
    fs.writeFileSync(path.join(market, "plugins/guard/toolhost.plugin.json"), JSON.stringify({ name: "guard", permissions: { deny: ["Bash(git push --force *)"] } }));
    const dir = project();
    const m = th(["plugin", "marketplace", "add", market], dir);
    expect(m.status, m.stderr).toBe(0);
    expect(m.stdout).toContain("marketplace team: 1 plugins (guard)");
    const add = th(["plugin", "add", "guard@team"], dir);
    expect(add.status, add.stderr).toBe(0);
    const trust = th(["trust", dir], dir); // (failed once in a clean-clone CI run with exit 1; the stderr says why next time)
    expect(trust.status, trust.stderr + trust.stdout).toBe(0);
    expect(config(dir).plugins).toEqual([path.join(market, "plugins/guard")]);
    expect(JSON.parse(th(["call", "Bash", '{"command": "git push --force origin main"}', "--json", "--dry-run"], dir).stdout).decision).toBe("deny");
    // the same marketplace as a git repository: cloned under TOOLHOST_HOME
    execFileSync("bash", ["-c", "git init -q && git add -A && git -c user.email=t@t -c user.name=t commit -qm m"], { cwd: market });
    const g = th(["plugin", "marketplace", "add", `file://${market}`], dir);
    expect(g.status, g.stderr).toBe(0);
    expect(fs.existsSync(path.join(HOME, "marketplaces/team/.claude-plugin/marketplace.json"))).toBe(true);
    expect(th(["plugin", "add", "nope@team"], dir).stderr).toContain('marketplace "team" has no plugin "nope" (it has: guard)');
    const unknown = th(["plugin", "add", "guard@elsewhere"], dir);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('if "elsewhere" is a Claude Code marketplace, add it first');
  }, 120_000);
});
