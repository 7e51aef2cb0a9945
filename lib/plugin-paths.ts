/**
 * TOOLHOST_HOME, plugin ids, data dirs and `${CLAUDE_PLUGIN_ROOT}` & co: one copy for the manifest reader, inline
 * plugins, settings sources and the disk cache (the text and path helpers: lib/text.ts, lib/fs-path.ts, lib/json.ts).
 */
import os from "node:os";
import path from "node:path";

export function sanitizeId(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, "-");
}

/** TOOLHOST_HOME, default ~/.toolhost. */
export function toolhostHome(): string {
  return process.env.TOOLHOST_HOME || path.join(os.homedir(), ".toolhost");
}

/** `${CLAUDE_PLUGIN_ROOT}`, `${CLAUDE_PLUGIN_DATA}`, `${CLAUDE_PROJECT_DIR}` and their TOOLHOST_ twins. */
export function pluginVars(root: string, dataDir: string, projectDir: string): Record<string, string> {
  return {
    CLAUDE_PLUGIN_ROOT: root,
    CLAUDE_PLUGIN_DATA: dataDir,
    CLAUDE_PROJECT_DIR: projectDir,
    TOOLHOST_PLUGIN_ROOT: root,
    TOOLHOST_PLUGIN_DATA: dataDir,
    TOOLHOST_PROJECT_DIR: projectDir,
  };
}

/** A plugin's default data directory: TOOLHOST_HOME/plugins/data/<id>. */
export function defaultDataDir(id: string): string {
  return path.join(toolhostHome(), "plugins", "data", sanitizeId(id));
}
