/**
 * Item 3 of issue 14: a repository opened untrusted applies its deny and ask rules at once, and its allow
 * rules, hooks and `.mcp.json` servers only once trusted — through `toolhost trust`, Claude Code's own
 * ~/.claude.json record, or an embedding program's createHost({ trustWorkspace }). Real child processes,
 * a real MCP server (the quirky fixture) and a real command hook.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { createHost } from "../../core/index.ts";
import { REPO, runCli, tmpdir, writeTree } from "../helpers.ts";

const QUIRKY = path.join(REPO, "test", "fixtures", "mcp", "quirky-server.mjs");
const HOOK = `node -e "require('fs').writeFileSync(process.env.CLAUDE_PROJECT_DIR + '/hook-ran', '')"`;

let root: string;
let repo: string;
let home: string;
const env = () => ({ TOOLHOST_HOME: home, CLAUDE_CONFIG_DIR: home });
const call = (tool: string, input: unknown, ...flags: string[]) => runCli(["call", tool, JSON.stringify(input), "--json", ...flags], { cwd: repo, env: env() });

const saved = { home: process.env.TOOLHOST_HOME, claude: process.env.CLAUDE_CONFIG_DIR };
afterAll(() => {
  process.env.TOOLHOST_HOME = saved.home;
  process.env.CLAUDE_CONFIG_DIR = saved.claude;
});

beforeEach(() => {
  root = tmpdir("toolhost-trust-");
  home = path.join(root, "home");
  fs.mkdirSync(home);
  repo = writeTree(path.join(root, "repo"), {
    ".claude/settings.json": {
      permissions: { allow: ["Bash(rm *)", "Bash(touch *)"], deny: ["Bash(git push *)"], ask: ["Read(./notes.txt)"], defaultMode: "bypassPermissions", additionalDirectories: ["/"] },
      hooks: { PreToolUse: [{ matcher: "Read", hooks: [{ type: "command", command: HOOK }] }] },
    },
    ".mcp.json": { mcpServers: { quirky: { command: process.execPath, args: [QUIRKY], alwaysLoad: true }, other: { command: process.execPath, args: [QUIRKY] } } },
    "notes.txt": "notes\n",
    "readme.txt": "hello\n",
    "victim/file": "x",
  });
});

describe("an untrusted workspace", { timeout: 180_000 }, () => {
  it("applies deny and ask rules at once, and no allow rule, hook, escalation or .mcp.json server", async () => {
    const rm = await call("Bash", { command: "rm -rf victim" });
    expect(rm.json().decision).toBe("ask");
    expect(rm.json().executed).toBe(false);
    expect(fs.existsSync(path.join(repo, "victim"))).toBe(true);
    expect((await call("Bash", { command: "git push origin main" }, "--dry-run")).json().decision).toBe("deny");
    expect((await call("Read", { file_path: path.join(repo, "notes.txt") }, "--dry-run")).json().decision).toBe("ask");
    const read = await call("Read", { file_path: path.join(repo, "readme.txt") });
    expect(read.json().executed).toBe(true);
    expect(fs.existsSync(path.join(repo, "hook-ran"))).toBe(false);
    // said once, loudly: one line on stderr naming everything withheld
    const lines = read.stderr.split("\n").filter((l) => l.includes("is not trusted"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/2 allow rules from \.claude[\\/]settings\.json/);
    expect(lines[0]).toMatch(/hooks \(PreToolUse\)/);
    expect(lines[0]).toMatch(/\.mcp\.json server "quirky"/);
    expect(lines[0]).toContain(`toolhost trust ${repo}`);
    const tools = (await runCli(["tools", "--json"], { cwd: repo, env: env() })).json();
    expect(tools.tools.some((t: { name: string }) => t.name.startsWith("mcp__"))).toBe(false);
    expect(tools.mode.name).toBe("default");
    expect(tools.warnings.some((w: { plugin: string; message: string }) => w.plugin === "trust" && /not trusted/.test(w.message))).toBe(true);
  });

  it("`toolhost trust` applies them (and approves the .mcp.json servers it saw); --revoke takes them back", async () => {
    const t = await runCli(["trust", "--json"], { cwd: repo, env: env() });
    expect(t.code).toBe(0);
    expect(t.json()).toMatchObject({ dir: repo, trusted: true, mcpServers: { approved: ["quirky", "other"], withheld: [] } });
    expect((await call("Bash", { command: "rm -rf victim" }, "--dry-run")).json().decision).toBe("allow");
    expect((await call("Bash", { command: "git push origin main" }, "--dry-run")).json().decision).toBe("deny");
    await call("Read", { file_path: path.join(repo, "readme.txt") });
    expect(fs.existsSync(path.join(repo, "hook-ran"))).toBe(true);
    const tools = (await runCli(["tools", "--json"], { cwd: repo, env: env() })).json();
    expect(tools.warnings.some((w: { message: string }) => /\.mcp\.json server "(quirky|other)"/.test(w.message))).toBe(false);
    // trusted or not, a checked-in file never escalates the mode (stricter than Claude Code for acceptEdits)
    expect(tools.mode.name).toBe("default");
    // a server added after trust was given is not approved by it
    const mcp = JSON.parse(fs.readFileSync(path.join(repo, ".mcp.json"), "utf8"));
    mcp.mcpServers.late = { command: process.execPath, args: [QUIRKY] };
    fs.writeFileSync(path.join(repo, ".mcp.json"), JSON.stringify(mcp));
    const after = (await runCli(["tools", "--json"], { cwd: repo, env: env() })).json();
    expect(after.warnings.some((w: { message: string }) => /\.mcp\.json server "late" \(not approved/.test(w.message))).toBe(true);
    expect(after.tools.some((t: { name: string }) => t.name.startsWith("mcp__late__"))).toBe(false);
    expect((await runCli(["trust", "--revoke"], { cwd: repo, env: env() })).stdout).toMatch(/not trusted \(revoked/);
    expect((await call("Bash", { command: "rm -rf victim" }, "--dry-run")).json().decision).toBe("ask");
  }, 240_000);

  it("a folder trusted in Claude Code's ~/.claude.json (or a parent of it) is trusted here, with its approved servers", async () => {
    fs.writeFileSync(path.join(home, ".claude.json"), JSON.stringify({ projects: { [root]: { hasTrustDialogAccepted: true }, [repo]: { enabledMcpjsonServers: ["quirky"], disabledMcpjsonServers: ["other"] } } }));
    expect((await call("Bash", { command: "rm -rf victim" }, "--dry-run")).json().decision).toBe("allow");
    const tools = (await runCli(["tools", "--json"], { cwd: repo, env: env() })).json();
    const said = tools.warnings.map((w: { message: string }) => w.message).join("\n");
    expect(said).toMatch(/\.mcp\.json server "other" \(not approved/);
    expect(said).not.toMatch(/\.mcp\.json server "quirky"/);
    expect(tools.tools.some((t: { name: string }) => t.name.startsWith("mcp__other__"))).toBe(false);
    const status = (await runCli(["trust", "--status", "--json"], { cwd: repo, env: env() })).json();
    expect(status.by).toMatch(/Claude Code/);
  });

  it("the library: untrusted by default (the same stores as the CLI); createHost({ trustWorkspace }) declares it", async () => {
    process.env.TOOLHOST_HOME = home;
    process.env.CLAUDE_CONFIG_DIR = home;
    const probe = { tool: "Bash", input: { command: "touch made" } };
    const plain = await createHost({ cwd: repo, watch: false, config: { mcpServers: {} } });
    const trusted = await createHost({ cwd: repo, watch: false, trustWorkspace: true });
    const refused = await createHost({ cwd: repo, watch: false, trustWorkspace: false });
    try {
      expect((await plain.execute(probe.tool, probe.input, { dryRun: true })).decision).toBe("ask");
      expect((await trusted.execute(probe.tool, probe.input, { dryRun: true })).decision).toBe("allow");
      expect(trusted.pool.tools.some((t) => t.name === "mcp__quirky__echo")).toBe(true);
      expect((await refused.execute(probe.tool, probe.input, { dryRun: true })).decision).toBe("ask");
      expect(refused.problems().some((p) => p.plugin === "trust" && /trustWorkspace: false/.test(p.message))).toBe(true);
    } finally {
      await Promise.all([plain.close(), trusted.close(), refused.close()]);
    }
  });

  it("settings.local.json is the user's (applies at once) unless git tracks it (then it came with the repository)", async () => {
    process.env.TOOLHOST_HOME = home;
    process.env.CLAUDE_CONFIG_DIR = home;
    fs.rmSync(path.join(repo, ".claude", "settings.json"));
    writeTree(repo, { ".claude/settings.local.json": { permissions: { allow: ["Bash(touch *)"] } } });
    const probe = async () => {
      const h = await createHost({ cwd: repo, watch: false });
      try {
        return (await h.execute("Bash", { command: "touch made" }, { dryRun: true })).decision;
      } finally {
        await h.close();
      }
    };
    expect(await probe()).toBe("allow");
    execFileSync("git", ["init", "-q"], { cwd: repo });
    execFileSync("git", ["add", ".claude/settings.local.json"], { cwd: repo });
    expect(await probe()).toBe("ask");
  });

  it("a toolhost config found in the project is the repository's: its allow rules wait for trust; the same file named with --config is the user's", async () => {
    fs.rmSync(path.join(repo, ".claude"), { recursive: true });
    fs.rmSync(path.join(repo, ".mcp.json"));
    writeTree(repo, { "toolhost.config.json": { permissions: { allow: ["Bash(rm *)"], deny: ["Bash(git push *)"] } } });
    const untrusted = await call("Bash", { command: "rm -rf victim" }, "--dry-run");
    expect(untrusted.json().decision).toBe("ask");
    expect(untrusted.stderr).toMatch(/not applied: 1 allow rule \("Bash\(rm \*\)"\) of the toolhost config found in the project/);
    expect((await call("Bash", { command: "git push origin main" }, "--dry-run")).json().decision).toBe("deny");
    const named = await call("Bash", { command: "rm -rf victim" }, "--dry-run", "--config", path.join(repo, "toolhost.config.json"));
    expect(named.json().decision).toBe("allow");
    await runCli(["trust"], { cwd: repo, env: env() });
    expect((await call("Bash", { command: "rm -rf victim" }, "--dry-run")).json().decision).toBe("allow");
  });
});
