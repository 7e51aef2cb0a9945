/**
 * Claude Code's project settings as toolhost sources: .claude/settings.json (checked in) and
 * .claude/settings.local.json (the user's) give permissions and hooks; .mcp.json gives MCP servers. Each
 * becomes a pseudo-plugin ("settings:project", "settings:local", "mcp.json") with its file, so every
 * consumer reads them with provenance; `permissions.defaultMode` is a mode place (a checked-in file may not
 * escalate). Unreadable files are reported by file; the others still load.
 *
 * Workspace trust (as Claude Code): the repository's files restrict at once — deny and ask rules, a
 * non-escalating mode — but what they grant waits for trust (the "workspace.trust" service of the trust
 * plugin): allow rules, additionalDirectories, hooks, and each `.mcp.json` server (approved one by one).
 * settings.local.json is the user's own file unless git tracks it (then it came with the repository).
 * What an untrusted workspace withheld is a warning of every generation and one line on stderr.
 */
import childProcess from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { definePlugin, readJsonFile, settingsPlugin, type SettingsCollector } from "../../core/index.ts";
import { gate, sayWithheld, trustOf, type Found, type TrustView } from "./gate.ts";

const PLUGIN_NAME = "claude-settings";
/** Mode precedence of each file (core/types/records.ts ModePlace): local settings before a project config, project settings last. */
const SETTINGS = [
  { id: "settings:project", rel: path.join(".claude", "settings.json"), precedence: 40, checkedIn: true },
  { id: "settings:local", rel: path.join(".claude", "settings.local.json"), precedence: 20, checkedIn: false },
] as const;

export default definePlugin({
  name: PLUGIN_NAME,
  apply(ctx) {
    const said = new Set<string>();
    ctx.hooks.settings.tapPromise(PLUGIN_NAME, async (c) => {
      const found = readFiles(c);
      const state = await trustOf(ctx, found);
      const withheld = apply(c, found, state);
      sayWithheld(ctx, c, state, withheld, said);
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

function readFiles(c: SettingsCollector): Found {
  const found: Found = { settings: [] };
  for (const s of SETTINGS) {
    const file = path.join(c.cwd, s.rel);
    const value = readObject(c, s.id, file, "settings");
    if (value) found.settings.push({ ...s, file, value, project: s.checkedIn || gitTracks(c.cwd, file) });
  }
  const file = path.join(c.cwd, ".mcp.json");
  const v = readObject(c, "mcp.json", file, ".mcp.json");
  if (v) {
    const servers = v.mcpServers && typeof v.mcpServers === "object" ? (v.mcpServers as Record<string, unknown>) : v;
    found.mcp = { file, servers };
  }
  return found;
}

/** Add the sources, each gated by trust; returns what was withheld. */
function apply(c: SettingsCollector, found: Found, state: TrustView): string[] {
  const g = gate(found, state);
  for (const s of g.settings) {
    c.add(settingsPlugin(s.id, "settings", s.file, { permissions: s.permissions, hooks: s.hooks }, { projectDir: c.cwd, rulesRoot: c.cwd }));
    c.mode({ value: { permissions: s.permissions }, topMode: false, plugin: s.id, file: s.file, prefix: "", checkedIn: s.checkedIn, precedence: s.precedence });
  }
  if (found.mcp && Object.keys(g.mcpServers).length) {
    c.add(settingsPlugin("mcp.json", "mcpjson", found.mcp.file, { mcpServers: g.mcpServers }, { projectDir: c.cwd, rulesRoot: c.cwd }));
  }
  return g.withheld;
}

/** settings.local.json checked into git came with the repository: it is a project file (as Claude Code treats it). */
function gitTracks(cwd: string, file: string): boolean {
  try {
    let d = cwd;
    while (!fs.existsSync(path.join(d, ".git"))) {
      if (path.dirname(d) === d) return false;
      d = path.dirname(d);
    }
  } catch {
    return false;
  }
  // Spawned only when the file exists and a repository is there.
  const r = spawnGit(cwd, file);
  return r === 0;
}

function spawnGit(cwd: string, file: string): number | null {
  try {
    return childProcess.spawnSync("git", ["ls-files", "--error-unmatch", "--", file], { cwd, stdio: "ignore", timeout: 5000 }).status;
  } catch {
    return null;
  }
}

