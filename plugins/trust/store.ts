/**
 * Workspace trust: toolhost's own store (TOOLHOST_HOME/trust.json, default ~/.toolhost/trust.json) and
 * Claude Code's record (~/.claude.json, or $CLAUDE_CONFIG_DIR/.claude.json: `projects[dir].hasTrustDialogAccepted`,
 * `enabledMcpjsonServers`, `disabledMcpjsonServers`, `enableAllProjectMcpServers`). A folder is trusted when it or
 * a folder above it is trusted in either (as Claude Code: trusting a parent trusts what is inside); the nearest
 * toolhost entry wins, so `toolhost trust --revoke` on a subfolder of a trusted folder is honoured.
 *
 * trust.json: { "version": 1, "workspaces": { "<abs dir>": { "trusted": bool, "at": ISO, "mcpServers"?: { "all"?: bool,
 * "enabled"?: [names], "disabled"?: [names] } } }, "plugins": { "<plugin id>": "grant" | { "allow": [rules] } } }
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export interface McpApprovals {
  all?: boolean;
  enabled?: string[];
  disabled?: string[];
}
export interface WorkspaceEntry {
  trusted: boolean;
  at?: string;
  mcpServers?: McpApprovals;
}
export type PluginGrant = "grant" | { allow: string[] };
export interface TrustFile {
  version: 1;
  workspaces: Record<string, WorkspaceEntry>;
  plugins?: Record<string, PluginGrant>;
}

/** The answer for one folder: trusted or not, who said so, and which `.mcp.json` servers are approved. */
export interface TrustState {
  dir: string;
  trusted: boolean;
  /** "option trustWorkspace", "toolhost trust store <file> (<dir>)", "Claude Code <file> (<dir>)", or why not. */
  by: string;
  mcp: McpApprovals;
  /** Problems reading the stores (a broken file counts as no entry, and says so). */
  problems: string[];
}

export function trustFile(): string {
  return path.join(process.env.TOOLHOST_HOME || path.join(os.homedir(), ".toolhost"), "trust.json");
}

export function claudeJsonFile(): string {
  return process.env.CLAUDE_CONFIG_DIR ? path.join(process.env.CLAUDE_CONFIG_DIR, ".claude.json") : path.join(os.homedir(), ".claude.json");
}

function readJson(file: string, problems: string[]): Record<string, any> | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  try {
    const v = JSON.parse(text) as unknown;
    if (v && typeof v === "object" && !Array.isArray(v)) return v as Record<string, any>;
    problems.push(`${file}: not a JSON object; ignored`);
  } catch (e) {
    problems.push(`${file}: ${(e as Error).message}; ignored`);
  }
  return undefined;
}

export function readTrustFile(problems: string[] = []): TrustFile {
  const v = readJson(trustFile(), problems);
  const ws = v?.workspaces && typeof v.workspaces === "object" ? v.workspaces : {};
  const plugins = v?.plugins && typeof v.plugins === "object" ? v.plugins : {};
  return { version: 1, workspaces: ws, plugins };
}

/** Write atomically (temp file + rename), creating TOOLHOST_HOME. */
export function writeTrustFile(t: TrustFile): void {
  const file = trustFile();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(t, null, 2) + "\n", { mode: 0o600 });
  fs.renameSync(tmp, file);
}

function ancestors(dir: string): string[] {
  const out: string[] = [];
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    out.push(d);
    if (path.dirname(d) === d) return out;
  }
}

function names(v: unknown): string[] | undefined {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : undefined;
}

/** Where `dir` stands: an explicit option, then toolhost's store, then Claude Code's record. */
export function trustState(dir: string, option?: boolean): TrustState {
  const problems: string[] = [];
  const abs = path.resolve(dir);
  if (option !== undefined) return { dir: abs, trusted: option, by: `createHost option trustWorkspace: ${option}`, mcp: option ? { all: true } : {}, problems };
  const store = readTrustFile(problems);
  for (const d of ancestors(abs)) {
    const e = store.workspaces[d];
    if (!e || typeof e !== "object") continue;
    return { dir: abs, trusted: e.trusted === true, by: `${e.trusted === true ? "trusted" : "revoked"} in ${trustFile()} (${d})`, mcp: e.trusted === true ? (e.mcpServers ?? {}) : {}, problems };
  }
  const cc = readJson(claudeJsonFile(), problems);
  const projects = cc?.projects && typeof cc.projects === "object" ? (cc.projects as Record<string, any>) : {};
  for (const d of ancestors(abs)) {
    const p = projects[d];
    if (!p || typeof p !== "object" || p.hasTrustDialogAccepted !== true) continue;
    const own = projects[abs] && typeof projects[abs] === "object" ? projects[abs] : {};
    const mcp: McpApprovals = { all: own.enableAllProjectMcpServers === true, enabled: names(own.enabledMcpjsonServers), disabled: names(own.disabledMcpjsonServers) };
    return { dir: abs, trusted: true, by: `trusted in Claude Code's ${claudeJsonFile()} (${d})`, mcp, problems };
  }
  return { dir: abs, trusted: false, by: `not trusted: no entry in ${trustFile()} or Claude Code's ${claudeJsonFile()}`, mcp: {}, problems };
}

/** Is one `.mcp.json` server approved (disabled beats enabled; `all` approves the rest)? */
export function mcpApproved(m: McpApprovals, name: string): boolean {
  if (m.disabled?.includes(name)) return false;
  return m.all === true || !!m.enabled?.includes(name);
}

/** Record trust (with the `.mcp.json` servers approved now) or revoke it, for exactly `dir`. */
export function setTrust(dir: string, trusted: boolean, servers?: string[]): WorkspaceEntry {
  const t = readTrustFile();
  const abs = path.resolve(dir);
  const entry: WorkspaceEntry = trusted ? { trusted: true, at: new Date().toISOString(), mcpServers: { enabled: servers ?? [] } } : { trusted: false, at: new Date().toISOString() };
  t.workspaces[abs] = entry;
  writeTrustFile(t);
  return entry;
}

/** What the user's trust store grants plugin `id` beyond its own tools. */
export function storedPluginGrant(id: string): PluginGrant | undefined {
  const g = readTrustFile().plugins?.[id];
  if (g === "grant") return g;
  if (g && typeof g === "object" && Array.isArray((g as { allow?: unknown }).allow)) return { allow: names((g as { allow: unknown }).allow)! };
  return undefined;
}
