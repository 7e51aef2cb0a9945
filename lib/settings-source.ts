/**
 * Settings-like sources (toolhost config, .claude/settings*.json, .mcp.json) become pseudo-plugins,
 * so every consumer (permissions, command hooks, MCP) reads one uniform list with provenance. Shared by core's
 * config reader and the claude-settings plugin (public as `settingsPlugin`).
 */
import path from "node:path";
import type { ProblemReport } from "../core/errors.ts";
import type { LoadedPlugin, PermissionLists } from "../core/types.ts";
import { readHookMap } from "./components.ts";
import { defaultDataDir } from "./plugin-paths.ts";
import { substitute } from "./text.ts";

export interface SettingsOptions {
  projectDir: string;
  rulesRoot: string;
  /** JSON path prefix of the values inside `file` ("/toolhost" in package.json). */
  base?: string;
}

export function settingsPlugin(id: string, kind: LoadedPlugin["kind"], file: string, value: Record<string, unknown>, opts: SettingsOptions): LoadedPlugin {
  const problems: ProblemReport[] = [];
  const base = opts.base ?? "";
  const components: LoadedPlugin["components"] = { hooks: [], mcpServers: [], lspServers: [], tools: [] };
  const vars = { CLAUDE_PROJECT_DIR: opts.projectDir, TOOLHOST_PROJECT_DIR: opts.projectDir };
  if (value.permissions !== undefined) {
    // What the lists hold is the permissions plugin's to check (host.validateManifest), as for a manifest.
    const p = value.permissions;
    if (!p || typeof p !== "object" || Array.isArray(p)) problems.push({ plugin: id, file, path: `${base}/permissions`, message: "must be object", severity: "error" });
    else components.permissions = { file, jsonPath: `${base}/permissions`, value: p as PermissionLists };
  }
  if (value.hooks !== undefined) components.hooks.push(...readHookMap(value.hooks, file, `${base}/hooks`, { plugin: id, vars, problems }));
  if (value.mcpServers !== undefined) {
    if (!value.mcpServers || typeof value.mcpServers !== "object" || Array.isArray(value.mcpServers)) {
      problems.push({ plugin: id, file, path: `${base}/mcpServers`, message: "mcpServers must be an object mapping server names to configs", severity: "error" });
    } else components.mcpServers.push({ file, jsonPath: `${base}/mcpServers`, value: substitute(value.mcpServers as Record<string, unknown>, vars) });
  }
  return {
    id,
    kind,
    root: path.dirname(file),
    manifestFile: file,
    source: { kind, path: file },
    manifest: value,
    dataDir: defaultDataDir(id),
    env: vars,
    rulesRoot: opts.rulesRoot,
    components,
    problems,
    failed: problems.some((p) => p.severity === "error"),
    order: 0,
  };
}
