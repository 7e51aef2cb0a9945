/** Plugin paths and variables: ids, data dirs, `${CLAUDE_PLUGIN_ROOT}` & co, paths kept inside a root, JSON files. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { errorMessage } from "../errors.ts";
import { isInside } from "../../lib/fs-path.ts";

export function readJson(file: string): { value?: unknown; error?: string } {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    return { error: `cannot read: ${errorMessage(e)}` };
  }
  try {
    return { value: JSON.parse(text) };
  } catch (e) {
    return { error: `invalid JSON: ${errorMessage(e)}` };
  }
}

export function sanitizeId(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, "-");
}

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

/** Replace `${NAME}` for the given names only, deeply; other placeholders are left for their owners. */
export function substitute<T>(value: T, vars: Record<string, string>): T {
  if (typeof value === "string") {
    return value.replace(/\$\{([A-Z_]+)\}/g, (m, name: string) => (name in vars ? vars[name]! : m)) as T;
  }
  if (Array.isArray(value)) return value.map((v) => substitute(v, vars)) as T;
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = substitute(v, vars);
    return out as T;
  }
  return value;
}

/**
 * Resolve a component path inside `root`. Absolute paths, `..` escapes and symlinks whose target
 * is outside the root are refused.
 */
export function resolveInside(root: string, rel: string): { path?: string; error?: string } {
  if (path.isAbsolute(rel)) return { error: `absolute path "${rel}" is not allowed; use a path relative to the plugin root ("./…")` };
  const abs = path.resolve(root, rel);
  if (!isInside(abs, root)) return { error: `path "${rel}" escapes the plugin root ${root}` };
  if (fs.existsSync(abs)) {
    let realRoot = root;
    try {
      realRoot = fs.realpathSync(root);
    } catch {}
    const real = fs.realpathSync(abs);
    if (!isInside(real, realRoot)) return { error: `path "${rel}" is a symlink to ${real}, outside the plugin root` };
  }
  return { path: abs };
}
