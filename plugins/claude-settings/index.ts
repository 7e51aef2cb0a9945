/**
 * Claude Code's settings hierarchy as toolhost sources (layers.ts says where each file is): managed
 * settings, `--settings`, .claude/settings.local.json, .claude/settings.json (checked in) and the user's
 * settings.json give permissions and hooks; .mcp.json gives MCP servers. Each file becomes a pseudo-plugin
 * ("settings:managed", "settings:flag", "settings:local", "settings:project", "settings:user", "mcp.json")
 * with its file, so every consumer reads them with provenance (lists merge: every layer's rules and hooks
 * apply); `permissions.defaultMode` is a mode place in Claude Code's precedence (a checked-in file may not
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
import { layerFiles, type LayerFile } from "./layers.ts";

const PLUGIN_NAME = "claude-settings";
/** Claude Code's hook switches, passed in each layer's manifest for the command-hooks plugin. */
const HOOK_SWITCHES = ["disableAllHooks", "allowManagedHooksOnly"] as const;

export default definePlugin({
  name: PLUGIN_NAME,
  apply(ctx) {
    const said = new Set<string>();
    ctx.hooks.settings.tapPromise(PLUGIN_NAME, async (c) => {
      const found = readFiles(c, layerFiles(c.cwd, ctx.host.options));
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

/** `--settings '{…}'` / createHost({settings: {…}}): JSON text or an object, no file. */
function inlineObject(c: SettingsCollector, l: LayerFile): Record<string, unknown> | undefined {
  let v = l.inline;
  if (typeof v === "string") {
    try {
      v = JSON.parse(v);
    } catch (e) {
      c.problem({ plugin: l.id, file: l.file, path: "/", message: `--settings is neither a file nor valid JSON: ${(e as Error).message}`, severity: "error" });
      return undefined;
    }
  }
  if (v && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
  c.problem({ plugin: l.id, file: l.file, path: "/", message: "--settings must be a JSON object (or a file holding one)", severity: "error" });
  return undefined;
}

function readFiles(c: SettingsCollector, layers: LayerFile[]): Found {
  const found: Found = { settings: [] };
  for (const l of layers) {
    if (l.id === "settings:flag" && l.inline === undefined && !fs.existsSync(l.file)) c.problem({ plugin: l.id, file: l.file, path: "/", message: `--settings file ${l.file} does not exist`, severity: "error" });
    const value = l.inline !== undefined ? inlineObject(c, l) : readObject(c, l.id, l.file, "settings");
    // Only the workspace's files came with the repository (a settings.local.json git tracks is one of them).
    const project = l.checkedIn || (l.id === "settings:local" && !!value && gitTracks(c.cwd, l.file));
    if (value) found.settings.push({ id: l.id, file: l.file, precedence: l.precedence, checkedIn: l.checkedIn, value, project });
  }
  const file = path.join(c.cwd, ".mcp.json");
  const v = readObject(c, "mcp.json", file, ".mcp.json");
  if (v) {
    const servers = v.mcpServers && typeof v.mcpServers === "object" ? (v.mcpServers as Record<string, unknown>) : v;
    found.mcp = { file, servers };
  }
  return found;
}

/** The permission rule lists allowManagedPermissionRulesOnly takes from every other layer. */
const RULE_LISTS = ["allow", "deny", "ask"];

/**
 * Managed settings' `allowManagedPermissionRulesOnly: true` (Claude Code): only managed allow/deny/ask rules apply —
 * every other layer's rule lists are dropped, the rest of its `permissions` (defaultMode …) kept (recorded:
 * settings-managed-rules-only). Returns the managed file that says so.
 */
function managedRulesOnly(settings: ReturnType<typeof gate>["settings"]): string | undefined {
  return settings.find((s) => s.id === "settings:managed" && s.value.allowManagedPermissionRulesOnly === true)?.file;
}

function withoutRules(permissions: unknown): unknown {
  if (!permissions || typeof permissions !== "object" || Array.isArray(permissions)) return permissions;
  return Object.fromEntries(Object.entries(permissions).filter(([k]) => !RULE_LISTS.includes(k)));
}

/** Add the sources, each gated by trust; returns what was withheld. */
function apply(c: SettingsCollector, found: Found, state: TrustView): string[] {
  const g = gate(found, state);
  const managedOnly = managedRulesOnly(g.settings);
  for (const s of g.settings) {
    // disableAllHooks / allowManagedHooksOnly only restrict: they apply trusted or not (command-hooks reads them).
    const switches = Object.fromEntries(HOOK_SWITCHES.filter((k) => typeof s.value[k] === "boolean").map((k) => [k, s.value[k]]));
    const dropRules = managedOnly && s.id !== "settings:managed" && withoutRules(s.permissions) !== s.permissions;
    const permissions = dropRules ? withoutRules(s.permissions) : s.permissions;
    if (dropRules && RULE_LISTS.some((k) => (s.permissions as Record<string, unknown>)[k] !== undefined)) {
      c.problem({ plugin: s.id, file: s.file, path: "/permissions", message: `permission rules ignored: allowManagedPermissionRulesOnly is true in managed settings (${managedOnly})`, severity: "warning" });
    }
    c.add(settingsPlugin(s.id, "settings", s.file, { permissions, hooks: s.hooks, ...switches }, { projectDir: c.cwd, rulesRoot: c.cwd }));
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

