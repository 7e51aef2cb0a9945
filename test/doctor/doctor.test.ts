/**
 * `toolhost doctor` (issue 19, item 4) against a real setup: a real MCP server (server-memory over stdio) that
 * connects, one that cannot start, a plugin whose hook script does not exist, an LSP server entry and a broken
 * plugin — each reported with its level, and the exit code follows the errors.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { NODE, SERVERS, TOOLHOST_BIN, tmpDir, writeJson } from "../mcp/helpers.ts";

const env = (cwd: string) => ({ ...process.env, TOOLHOST_HOME: path.join(cwd, ".th-home") });
const doctor = (cwd: string, extra: string[] = []) => {
  // the project's own toolhost config names the plugins and servers: they apply in a trusted workspace (test/trust/project-config.test.ts)
  if (!fs.existsSync(path.join(cwd, ".th-home", "trust.json"))) spawnSync(NODE, [TOOLHOST_BIN, "trust", cwd], { cwd, env: env(cwd) });
  const r = spawnSync(NODE, [TOOLHOST_BIN, "doctor", "--json", "--wait", "20", ...extra], { cwd, encoding: "utf8", env: env(cwd) });
  return { status: r.status, out: JSON.parse(r.stdout) as { ok: boolean; errors: number; findings: Array<{ section: string; level: string; what: string; detail?: string; file?: string; path?: string }> }, stderr: r.stderr };
};

describe("toolhost doctor", () => {
  it("a healthy setup: exit 0, the live MCP server connected with its tools", () => {
    const dir = tmpDir("th-doctor-ok-");
    writeJson(path.join(dir, "toolhost.config.json"), { mcpServers: { memory: { command: NODE, args: [SERVERS.memory] } } });
    const r = doctor(dir);
    expect(r.status, r.stderr).toBe(0);
    const m = r.out.findings.find((f) => f.section === "mcp" && f.what === "memory");
    expect(m?.level).toBe("ok");
    expect(m?.detail).toMatch(/^connected, [1-9]\d* tools/);
    expect(r.out.findings.find((f) => f.section === "runtime")?.what).toBe(`node ${process.versions.node}`);
  }, 60_000);

  it("reports a failed server with its last error, a missing hook script with file and JSON path, LSP servers and a broken plugin; exit 1", () => {
    const dir = tmpDir("th-doctor-bad-");
    const plugin = path.join(dir, "plug");
    fs.mkdirSync(plugin);
    writeJson(path.join(plugin, "toolhost.plugin.json"), {
      name: "plug",
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "node ${CLAUDE_PLUGIN_ROOT}/hooks/missing.mjs" }] }] },
      lspServers: { ts: { command: "typescript-language-server", args: ["--stdio"], extensionToLanguage: { ".ts": "typescript" } } },
    });
    const broken = path.join(dir, "broken");
    fs.mkdirSync(broken);
    writeJson(path.join(broken, "toolhost.plugin.json"), { name: "broken", tools: 42 });
    writeJson(path.join(dir, "toolhost.config.json"), { plugins: ["./plug", "./broken"], mcpServers: { gone: { command: path.join(dir, "no-such-server") } } });
    const r = doctor(dir);
    expect(r.status).toBe(1);
    expect(r.out.ok).toBe(false);
    const by = (section: string, what: string) => r.out.findings.find((f) => f.section === section && f.what.includes(what));
    expect(by("mcp", "gone")?.level).toBe("error");
    expect(by("mcp", "gone")?.detail).toMatch(/failed — last error: .+/);
    const hook = by("hooks", "plug");
    expect(hook?.level).toBe("error");
    expect(hook?.detail).toContain(path.join(plugin, "hooks/missing.mjs"));
    expect(hook?.path).toBe("/hooks/PreToolUse/0/hooks/0/command");
    expect(by("lsp", "ts")?.level).toBe("ok");
    expect(by("plugins", "broken")?.level).toBe("error");
    expect(by("plugins", "plug")?.level).toBe("ok");
    // fixing the script clears that error
    fs.mkdirSync(path.join(plugin, "hooks"));
    fs.writeFileSync(path.join(plugin, "hooks/missing.mjs"), "");
    expect(doctor(dir).out.findings.some((f) => f.section === "hooks")).toBe(false);
  }, 90_000);
});
