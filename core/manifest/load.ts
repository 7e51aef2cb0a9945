/**
 * Reading plugins: a directory (Claude Code layout, `.claude-plugin/plugin.json` optional) or a
 * standalone manifest file. Validation with ajv; every problem names the plugin, the file and the JSON
 * path. Components (hooks, mcpServers, lspServers, tools, main, permissions) are resolved to absolute
 * paths that must stay inside the plugin root, with `${CLAUDE_PLUGIN_ROOT}` & co substituted. Nothing
 * here runs plugin code: `main` and `tools` modules are imported by the host and the plugin-tools plugin.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ProblemReport } from "../errors.ts";
import type { Component, HookEventMap, LoadedPlugin, PermissionLists, PluginSource } from "../types.ts";
import { suggest } from "../../lib/text.ts";
import { defaultDataDir, pluginVars, sanitizeId } from "../../lib/plugin-paths.ts";
import { substitute } from "../../lib/text.ts";
import { resolveInside } from "../../lib/fs-path.ts";
import { readJson } from "../../lib/json.ts";
import { KNOWN_MANIFEST_KEYS, manifestSchema } from "./schema.ts";
import { validatorFor } from "../../lib/validators.ts";
import { ajvProblems } from "../../lib/schema-errors.ts";
import { readHookMap, readServerMap } from "../../lib/components.ts";

export interface LoadOptions {
  projectDir: string;
  dataHome?: string;
}

/** Locate the manifest of a plugin source: a directory or a JSON file. */
export function locateManifest(p: string): { root: string; manifestFile?: string } {
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(p);
  } catch {
    return { root: p };
  }
  if (st.isFile()) return { root: nearestPackageRoot(path.dirname(p)), manifestFile: p };
  for (const cand of [path.join(".claude-plugin", "plugin.json"), "toolhost.plugin.json"]) {
    const f = path.join(p, cand);
    if (fs.existsSync(f)) return { root: p, manifestFile: f };
  }
  return { root: p };
}

/** A standalone manifest file's plugin root is the nearest directory above it with a package.json. */
function nearestPackageRoot(dir: string): string {
  for (let d = dir; ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, "package.json"))) return d;
    if (path.dirname(d) === d) return dir;
  }
}

const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]);

/** One plugin being read: where it is, what it says, and the problems found so far. */
class PluginReader {
  id: string;
  manifest: Record<string, unknown> = {};
  readonly problems: ProblemReport[] = [];
  readonly components: LoadedPlugin["components"] = { hooks: [], mcpServers: [], lspServers: [], tools: [] };
  vars: Record<string, string> = {};
  constructor(
    readonly source: PluginSource,
    readonly root: string,
    readonly manifestFile: string | undefined,
    readonly opts: LoadOptions,
  ) {
    this.id = path.basename(root);
  }
  get mf(): string {
    return this.manifestFile ?? path.join(this.root, ".claude-plugin", "plugin.json");
  }
  /**
   * `${CLAUDE_PLUGIN_DATA}`: createHost's `dataHome`/<id> when given; a --plugin-dir plugin's is Claude Code's own,
   * `$CLAUDE_CONFIG_DIR/plugins/data/<id>-inline` (else ~/.claude/…; recorded: scenario, plugin-data-config-dir), so
   * a plugin keeps one data directory in both; other plugins' is TOOLHOST_HOME/plugins/data/<id>.
   */
  get dataDir(): string {
    if (this.opts.dataHome) return path.join(this.opts.dataHome, sanitizeId(this.id));
    if (this.source.kind === "plugin-dir") return path.join(process.env.CLAUDE_CONFIG_DIR || path.join(os.homedir(), ".claude"), "plugins", "data", `${sanitizeId(this.id)}-inline`);
    return defaultDataDir(this.id);
  }
  problem(severity: ProblemReport["severity"], file: string | undefined, p: string, message: string): void {
    this.problems.push({ plugin: this.id, file, path: p, message, severity });
  }
  failed(): boolean {
    return this.problems.some((p) => p.severity === "error");
  }

  /** Read and schema-check the manifest file; false when the plugin cannot be read at all. */
  readManifest(): boolean {
    if (!this.manifestFile) return true;
    const r = readJson(this.manifestFile);
    if (r.error || !r.value || typeof r.value !== "object" || Array.isArray(r.value)) {
      this.problem("error", this.manifestFile, "/", r.error ?? "manifest must be a JSON object");
      return false;
    }
    this.manifest = r.value as Record<string, unknown>;
    if (typeof this.manifest.name === "string" && this.manifest.name) this.id = this.manifest.name;
    // Bundled manifests ship with the package and are checked by a test, so start-up compiles no schema for them.
    const validate = this.source.kind === "bundled" ? undefined : validatorFor(manifestSchema);
    if (validate && !validate(this.manifest)) {
      // metadata/experimental of the wrong type only warn (Claude Code behaviour).
      for (const pr of ajvProblems(validate!.errors, this.id, this.manifestFile)) this.problems.push(/^\/(metadata|experimental)/.test(pr.path ?? "") ? { ...pr, severity: "warning" } : pr);
    }
    for (const k of Object.keys(this.manifest)) {
      if (!KNOWN_MANIFEST_KEYS.has(k)) this.problem("warning", this.manifestFile, `/${k}`, `unknown manifest key "${k}" is ignored${suggest(k, KNOWN_MANIFEST_KEYS)}`);
    }
    return true;
  }

  /** A component path: inside the root and existing, else a problem at `jsonPath` of the manifest. */
  file(rel: string, jsonPath: string): string | undefined {
    const r = resolveInside(this.root, substitute(rel, this.vars).replace(this.root + path.sep, "./"));
    if (r.error) return void this.problem("error", this.mf, jsonPath, r.error);
    if (!fs.existsSync(r.path!)) return void this.problem("error", this.mf, jsonPath, `file "${rel}" does not exist (resolved to ${r.path})`);
    return r.path;
  }

  /** Entries of `key` (paths or inline objects) plus the default file, when it exists and is not named. */
  entries(key: string, defaultFile: string): Array<{ inline?: Record<string, unknown>; rel?: string; jsonPath: string }> {
    const list = asList(this.manifest[key]);
    const out: Array<{ inline?: Record<string, unknown>; rel?: string; jsonPath: string }> = [];
    const def = path.join(this.root, defaultFile);
    if (fs.existsSync(def) && !list.some((e) => typeof e === "string" && path.resolve(this.root, e) === def)) out.push({ rel: `./${defaultFile}`, jsonPath: "" });
    list.forEach((e, i) => {
      const jsonPath = Array.isArray(this.manifest[key]) ? `/${key}/${i}` : `/${key}`;
      out.push(typeof e === "string" ? { rel: e, jsonPath } : { inline: e as Record<string, unknown>, jsonPath });
    });
    return out;
  }

  /** Inline maps first, then JSON files with (or without) a `wrapper` key around the map. */
  maps(key: string, defaultFile: string, wrapper: string, add: (map: Record<string, unknown>, file: string, base: string) => void): void {
    const all = this.entries(key, defaultFile);
    for (const e of all) if (e.inline) add(e.inline, this.mf, e.jsonPath);
    for (const e of all) {
      if (e.inline) continue;
      const file = this.file(e.rel!, e.jsonPath || `/${key}`);
      if (!file) continue;
      const r = readJson(file);
      if (r.error) {
        this.problem("error", file, "/", r.error);
        continue;
      }
      const v = r.value as Record<string, unknown>;
      if (v && typeof v === "object" && v[wrapper] && typeof v[wrapper] === "object" && !Array.isArray(v[wrapper])) add(v[wrapper] as Record<string, unknown>, file, `/${wrapper}`);
      else add(v, file, "");
    }
  }

  readComponents(): void {
    const c = this.components;
    const ctx = { plugin: this.id, vars: this.vars, problems: this.problems };
    this.maps("hooks", path.join("hooks", "hooks.json"), "hooks", (map, file, base) => void c.hooks.push(...readHookMap(map, file, base, ctx)));
    this.maps("mcpServers", ".mcp.json", "mcpServers", (map, file, base) => void c.mcpServers.push(...readServerMap("mcpServers", map, file, base, ctx)));
    this.maps("lspServers", ".lsp.json", "lspServers", (map, file, base) => void c.lspServers.push(...readServerMap("lspServers", map, file, base, ctx)));
    asList(this.manifest.tools).forEach((t, i) => {
      const jsonPath = Array.isArray(this.manifest.tools) ? `/tools/${i}` : "/tools";
      const f = this.file(String(t), jsonPath);
      if (f) c.tools.push({ file: f, jsonPath, value: f });
    });
    if (typeof this.manifest.main === "string") {
      const f = this.file(this.manifest.main, "/main");
      if (f) c.main = { file: f, jsonPath: "/main", value: f };
    }
    if (this.manifest.permissions && typeof this.manifest.permissions === "object") {
      c.permissions = { file: this.mf, jsonPath: "/permissions", value: this.manifest.permissions as PermissionLists } satisfies Component<PermissionLists>;
    }
  }

  record(): LoadedPlugin {
    for (const p of this.problems) p.plugin = this.id;
    const dataDir = this.dataDir;
    return {
      id: this.id,
      kind: "plugin",
      root: this.root,
      manifestFile: this.manifestFile,
      source: this.source,
      manifest: this.manifest,
      dataDir,
      env: pluginVars(this.root, dataDir, this.opts.projectDir),
      rulesRoot: this.root,
      components: this.components,
      problems: this.problems,
      failed: this.failed(),
      order: typeof this.manifest.order === "number" ? this.manifest.order : 0,
    };
  }
}

export function loadPlugin(source: PluginSource, opts: LoadOptions): LoadedPlugin {
  const abs = path.resolve(opts.projectDir, source.path);
  const { root, manifestFile } = locateManifest(abs);
  const r = new PluginReader(source, root, manifestFile, opts);
  if (!fs.existsSync(abs)) r.problem("error", source.from, "/plugins", `plugin path ${abs} does not exist`);
  else if (r.readManifest() && !r.failed()) {
    r.vars = pluginVars(root, r.dataDir, opts.projectDir);
    r.readComponents();
  }
  return r.record();
}

export type { HookEventMap };
