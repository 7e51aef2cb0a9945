/**
 * Claude Code's project settings as toolhost sources: .claude/settings.json (checked in) and
 * .claude/settings.local.json (the user's) give permissions and hooks; .mcp.json gives MCP servers. Each
 * becomes a pseudo-plugin ("settings:project", "settings:local", "mcp.json") with its file, so every
 * consumer reads them with provenance; `permissions.defaultMode` is a mode place (a checked-in file may not
 * escalate). Unreadable files are reported by file; the others still load.
 */
import fs from "node:fs";
import path from "node:path";
import { definePlugin, readJsonFile, settingsPlugin, type SettingsCollector } from "../../core/index.ts";

const PLUGIN_NAME = "claude-settings";
/** Mode precedence of each file (core/types/records.ts ModePlace): local settings before a project config, project settings last. */
const SETTINGS = [
  { id: "settings:project", rel: path.join(".claude", "settings.json"), precedence: 40, checkedIn: true },
  { id: "settings:local", rel: path.join(".claude", "settings.local.json"), precedence: 20, checkedIn: false },
] as const;

export default definePlugin({
  name: PLUGIN_NAME,
  apply(ctx) {
    ctx.hooks.settings.tapPromise(PLUGIN_NAME, async (c) => {
      readClaudeSettings(c);
      readMcpJson(c);
    });
  },
});

function readObject(c: SettingsCollector, id: string, file: string, what: string): Record<string, unknown> | undefined {
  c.watch(file);
  if (!fs.existsSync(file)) return undefined;
  const r = readJsonFile(file);
  if (!r.error && r.value && typeof r.value === "object" && !Array.isArray(r.value)) return r.value as Record<string, unknown>;
  c.problem({ plugin: id, file, path: "/", message: r.error ?? `${what} must be a JSON object`, severity: "error" });
  return undefined;
}

function readClaudeSettings(c: SettingsCollector): void {
  for (const s of SETTINGS) {
    const file = path.join(c.cwd, s.rel);
    const v = readObject(c, s.id, file, "settings");
    if (!v) continue;
    c.add(settingsPlugin(s.id, "settings", file, { permissions: v.permissions, hooks: v.hooks }, { projectDir: c.cwd, rulesRoot: c.cwd }));
    c.mode({ value: { permissions: v.permissions }, topMode: false, plugin: s.id, file, prefix: "", checkedIn: s.checkedIn, precedence: s.precedence });
  }
}

function readMcpJson(c: SettingsCollector): void {
  const file = path.join(c.cwd, ".mcp.json");
  const v = readObject(c, "mcp.json", file, ".mcp.json");
  if (!v) return;
  const servers = v.mcpServers && typeof v.mcpServers === "object" ? v.mcpServers : v;
  c.add(settingsPlugin("mcp.json", "mcpjson", file, { mcpServers: servers }, { projectDir: c.cwd, rulesRoot: c.cwd }));
}
