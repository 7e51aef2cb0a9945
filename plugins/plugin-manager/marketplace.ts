/**
 * Claude Code marketplaces as a source of plugins: a directory or git repository with
 * `.claude-plugin/marketplace.json` (`{name, plugins: [{name, source, description?}]}`). Known marketplaces
 * live in TOOLHOST_HOME/marketplaces.json (user-level, like Claude Code's known_marketplaces.json); git ones
 * are cloned under TOOLHOST_HOME/marketplaces/<name>. A plugin's `source` is a path inside the marketplace,
 * or `{source: "github", repo}` / `{source: "url" | "git", url}`, cloned under TOOLHOST_HOME/plugins/<name>.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { UsageError } from "../../core/index.ts";

export const home = () => process.env.TOOLHOST_HOME || path.join(os.homedir(), ".toolhost");
const storeFile = () => path.join(home(), "marketplaces.json");

interface Known {
  [name: string]: { source: string; dir: string };
}
interface Entry {
  name: string;
  source: string | { source: string; repo?: string; url?: string; ref?: string };
  description?: string;
}

const isGit = (s: string) => /^(git\+|git@|https?:\/\/|file:\/\/|github:)|\.git$/.test(s);
const gitUrl = (s: string) => (s.startsWith("github:") ? `https://github.com/${s.slice(7)}.git` : s.replace(/^git\+/, ""));

function readKnown(): Known {
  try {
    return JSON.parse(fs.readFileSync(storeFile(), "utf8")) as Known;
  } catch {
    return {};
  }
}

function clone(url: string, dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  try {
    execFileSync("git", ["clone", "--depth", "1", "--quiet", url, dir], { stdio: ["ignore", "ignore", "pipe"] });
  } catch (e) {
    throw new Error(`git clone ${url} failed: ${String((e as { stderr?: Buffer }).stderr ?? e).trim()}`);
  }
}

function manifestOf(dir: string): { name: string; plugins: Entry[] } {
  const file = path.join(dir, ".claude-plugin", "marketplace.json");
  let m: { name?: unknown; plugins?: unknown };
  try {
    m = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (e) {
    throw new UsageError(`${file}: not a Claude Code marketplace (${(e as Error).message})`);
  }
  if (typeof m.name !== "string" || !Array.isArray(m.plugins)) throw new UsageError(`${file}: a marketplace needs "name" (string) and "plugins" (array)`);
  return { name: m.name, plugins: m.plugins as Entry[] };
}

/** `toolhost plugin marketplace add <dir|git>`: remember it under its manifest name. */
export function addMarketplace(source: string, cwd: string): { name: string; dir: string; plugins: string[] } {
  let dir = path.resolve(cwd, source);
  if (isGit(source)) {
    const tmp = path.join(home(), "marketplaces", `.clone-${process.pid}`);
    clone(gitUrl(source), tmp);
    const name = manifestOf(tmp).name;
    dir = path.join(home(), "marketplaces", name);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(tmp, dir);
  }
  const m = manifestOf(dir);
  const known = readKnown();
  known[m.name] = { source, dir };
  fs.mkdirSync(home(), { recursive: true });
  fs.writeFileSync(storeFile(), JSON.stringify(known, null, 2) + "\n");
  return { name: m.name, dir, plugins: m.plugins.map((p) => p.name) };
}

export function listMarketplaces(): Array<{ name: string; source: string; plugins: string[] }> {
  return Object.entries(readKnown()).map(([name, k]) => ({ name, source: k.source, plugins: fs.existsSync(k.dir) ? manifestOf(k.dir).plugins.map((p) => p.name) : [] }));
}

/** `plugin@marketplace` → the plugin's directory on disk (cloned first when its source is remote). */
export function resolveMarketplacePlugin(spec: string): string {
  const at = spec.lastIndexOf("@");
  const [plugin, market] = [spec.slice(0, at), spec.slice(at + 1)];
  const k = readKnown()[market];
  if (!k) throw new UsageError(`unknown marketplace "${market}" (known: ${Object.keys(readKnown()).join(", ") || "none"}); add it with: toolhost plugin marketplace add <dir|git url>`);
  const entry = manifestOf(k.dir).plugins.find((p) => p.name === plugin);
  if (!entry) throw new UsageError(`marketplace "${market}" has no plugin "${plugin}" (it has: ${manifestOf(k.dir).plugins.map((p) => p.name).join(", ")})`);
  if (typeof entry.source === "string") {
    const dir = path.resolve(k.dir, entry.source);
    if (dir !== k.dir && !dir.startsWith(k.dir + path.sep)) throw new UsageError(`plugin "${plugin}" of "${market}": source ${entry.source} leaves the marketplace`);
    return dir;
  }
  const url = entry.source.source === "github" && entry.source.repo ? `https://github.com/${entry.source.repo}.git` : entry.source.url;
  if (!url) throw new UsageError(`plugin "${plugin}" of "${market}": unsupported source ${JSON.stringify(entry.source)}`);
  const dir = path.join(home(), "plugins", `${plugin}@${market}`);
  clone(url, dir);
  return dir;
}

export const isMarketplaceSpec = (spec: string) => /^[a-z0-9][\w.-]*@[a-z0-9][\w.-]*$/i.test(spec) && !spec.startsWith("@") && readKnown()[spec.slice(spec.lastIndexOf("@") + 1)] !== undefined;
export { isGit };
