/**
 * Where each of Claude Code's settings files is (docs "Settings files"; formats §4.6):
 *  - managed: `managed-settings.json` then `managed-settings.d/*.json` (alphabetical) in the system folder —
 *    Linux/WSL /etc/claude-code, macOS /Library/Application Support/ClaudeCode, Windows C:\ProgramData\ClaudeCode
 *    (createHost `managedSettingsDir` or TOOLHOST_MANAGED_SETTINGS_DIR move it, for tests and packaging);
 *  - flag: `--settings <file-or-json>` / createHost `settings` (a path, JSON text or an object);
 *  - local, project: `.claude/settings.local.json`, `.claude/settings.json` in the workspace;
 *  - user: `$CLAUDE_CONFIG_DIR/settings.json`, else `~/.claude/settings.json`.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export type LayerId = "settings:managed" | "settings:flag" | "settings:local" | "settings:project" | "settings:user";

export interface LayerFile {
  id: LayerId;
  file: string;
  /** Mode precedence (core ModePlace: lower first): managed -20, --settings 5, local 20, project 40, user 50. */
  precedence: number;
  /** A file of the repository (may not escalate the mode; gated by workspace trust). */
  checkedIn: boolean;
  /** Inline JSON or object given for the flag layer (no file to read). */
  inline?: unknown;
}

export function managedDir(options: Readonly<Record<string, unknown>>): string {
  if (typeof options.managedSettingsDir === "string") return options.managedSettingsDir;
  if (process.env.TOOLHOST_MANAGED_SETTINGS_DIR) return process.env.TOOLHOST_MANAGED_SETTINGS_DIR;
  if (process.platform === "darwin") return "/Library/Application Support/ClaudeCode";
  if (process.platform === "win32") return "C:\\ProgramData\\ClaudeCode";
  return "/etc/claude-code";
}

export function userSettingsFile(): string {
  const dir = process.env.CLAUDE_CONFIG_DIR || path.join(os.homedir(), ".claude");
  return path.join(dir, "settings.json");
}

function managedFiles(dir: string): string[] {
  const files = [path.join(dir, "managed-settings.json")];
  const d = path.join(dir, "managed-settings.d");
  try {
    for (const f of fs.readdirSync(d).filter((n) => n.endsWith(".json") && !n.startsWith(".")).sort()) files.push(path.join(d, f));
  } catch {
    // no drop-in folder
  }
  return files;
}

/** The flag layer: a path (relative to cwd), JSON text (starts with "{") or an object. */
function flagLayer(value: unknown, cwd: string): LayerFile | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value === "string" && !value.trim().startsWith("{")) return { id: "settings:flag", file: path.resolve(cwd, value), precedence: 5, checkedIn: false };
  return { id: "settings:flag", file: "--settings", precedence: 5, checkedIn: false, inline: value };
}

/** Every layer's files, highest precedence first (the order Claude Code documents). */
export function layerFiles(cwd: string, options: Readonly<Record<string, unknown>>): LayerFile[] {
  const out: LayerFile[] = managedFiles(managedDir(options)).map((file) => ({ id: "settings:managed" as const, file, precedence: -20, checkedIn: false }));
  const flag = flagLayer(options.settings, cwd);
  if (flag) out.push(flag);
  out.push({ id: "settings:local", file: path.join(cwd, ".claude", "settings.local.json"), precedence: 20, checkedIn: false });
  out.push({ id: "settings:project", file: path.join(cwd, ".claude", "settings.json"), precedence: 40, checkedIn: true });
  out.push({ id: "settings:user", file: userSettingsFile(), precedence: 50, checkedIn: false });
  return out;
}
