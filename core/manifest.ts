/**
 * Reading plugins: a directory (Claude Code layout, `.claude-plugin/plugin.json` optional) or a
 * standalone manifest file. Validation with ajv; every problem names the plugin, the file and the
 * JSON path. Components (hooks, mcpServers, lspServers, tools, main, permissions) are resolved to
 * absolute paths that must stay inside the plugin root, with `${CLAUDE_PLUGIN_ROOT}` & co substituted.
 * Nothing here runs plugin code: `main` and `tools` modules are imported by the host / tools plugin.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Ajv, type ErrorObject } from "ajv";
import type { ProblemReport } from "./errors.ts";
import { errorMessage } from "./errors.ts";
import type { PluginSource } from "./hooks.ts";
import { KNOWN_HOOK_EVENTS, KNOWN_MANIFEST_KEYS, hookGroupsSchema, manifestSchema, permissionsSchema } from "./manifest-schema.ts";

export interface Component<T> {
  /** File the value came from (manifest, hooks.json, .mcp.json, settings.json …). */
  file: string;
  /** JSON path of the value inside `file`. */
  jsonPath: string;
  value: T;
}

export interface PermissionLists {
  allow?: string[];
  ask?: string[];
  deny?: string[];
  defaultMode?: string;
  additionalDirectories?: string[];
  tests?: Array<{ rule: string; match?: unknown[]; not_match?: unknown[] }>;
}

export type HookEventMap = Record<string, unknown[]>;

export interface LoadedPlugin {
  /** Plugin id (the manifest `name`, or the directory name). */
  id: string;
  kind: "plugin" | "config" | "settings" | "mcpjson" | "inline";
  root: string;
  /** Manifest file, when the plugin has one. */
  manifestFile?: string;
  source: PluginSource;
  manifest: Record<string, unknown>;
  /** `${CLAUDE_PLUGIN_DATA}`: persistent per-plugin data directory. */
  dataDir: string;
  /** Variables substituted in components and exported to child processes. */
  env: Record<string, string>;
  /** Directory that `/path` permission rules are relative to (settings source). */
  rulesRoot: string;
  components: {
    hooks: Component<HookEventMap>[];
    mcpServers: Component<Record<string, unknown>>[];
    lspServers: Component<Record<string, unknown>>[];
    tools: Component<string>[];
    main?: Component<string>;
    permissions?: Component<PermissionLists>;
  };
  problems: ProblemReport[];
  /** True when an error-level problem made the plugin unusable. */
  failed: boolean;
  /** Load order (manifest `order`, default 0). */
  order: number;
}

const ajv = new Ajv({ allErrors: true, strict: false });
const validateManifest = ajv.compile(manifestSchema);
const validateHookGroups = ajv.compile(hookGroupsSchema);
const validatePermissions = ajv.compile(permissionsSchema);

export function ajvProblems(errors: ErrorObject[] | null | undefined, plugin: string, file: string, base = ""): ProblemReport[] {
  if (!errors) return [];
  // anyOf produces one error per branch plus the anyOf itself; keep the most useful one per path.
  const byPath = new Map<string, ErrorObject>();
  for (const e of errors) {
    const p = base + e.instancePath;
    if (!byPath.has(p) || e.keyword === "anyOf") byPath.set(p, e);
  }
  return [...byPath.entries()].map(([p, e]) => ({
    plugin,
    file,
    path: p || "/",
    message: describeAjvError(e),
    severity: "error" as const,
  }));
}

function describeAjvError(e: ErrorObject): string {
  if (e.keyword === "anyOf") return "has the wrong type (expected a path string, an array of paths, or an inline object)";
  if (e.keyword === "required") return `is missing required field "${(e.params as { missingProperty: string }).missingProperty}"`;
  if (e.keyword === "type") return `must be ${(e.params as { type: string }).type}`;
  return e.message ?? e.keyword;
}

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
  const within = (p: string, r: string) => p === r || p.startsWith(r.endsWith(path.sep) ? r : r + path.sep);
  if (!within(abs, root)) return { error: `path "${rel}" escapes the plugin root ${root}` };
  if (fs.existsSync(abs)) {
    let realRoot = root;
    try {
      realRoot = fs.realpathSync(root);
    } catch {}
    const real = fs.realpathSync(abs);
    if (!within(real, realRoot)) return { error: `path "${rel}" is a symlink to ${real}, outside the plugin root` };
  }
  return { path: abs };
}

function asList(v: unknown): unknown[] {
  return Array.isArray(v) ? v : v === undefined ? [] : [v];
}

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
  let d = dir;
  for (;;) {
    if (fs.existsSync(path.join(d, "package.json"))) return d;
    const up = path.dirname(d);
    if (up === d) return dir;
    d = up;
  }
}

export function loadPlugin(source: PluginSource, opts: LoadOptions): LoadedPlugin {
  const abs = path.resolve(opts.projectDir, source.path);
  const { root, manifestFile } = locateManifest(abs);
  const problems: ProblemReport[] = [];
  const components: LoadedPlugin["components"] = { hooks: [], mcpServers: [], lspServers: [], tools: [] };
  let manifest: Record<string, unknown> = {};
  let id = path.basename(root);
  const err = (file: string | undefined, p: string, message: string) => problems.push({ plugin: id, file, path: p, message, severity: "error" });
  const warn = (file: string | undefined, p: string, message: string) => problems.push({ plugin: id, file, path: p, message, severity: "warning" });

  if (!fs.existsSync(abs)) {
    err(source.from, "/plugins", `plugin path ${abs} does not exist`);
    return finish();
  }
  if (manifestFile) {
    const r = readJson(manifestFile);
    if (r.error) {
      err(manifestFile, "/", r.error);
      return finish();
    }
    if (!r.value || typeof r.value !== "object" || Array.isArray(r.value)) {
      err(manifestFile, "/", "manifest must be a JSON object");
      return finish();
    }
    manifest = r.value as Record<string, unknown>;
    if (typeof manifest.name === "string" && manifest.name) id = manifest.name;
    if (!validateManifest(manifest)) {
      for (const pr of ajvProblems(validateManifest.errors, id, manifestFile)) {
        // metadata/experimental of the wrong type only warn (Claude Code behaviour).
        if (/^\/(metadata|experimental)/.test(pr.path ?? "")) problems.push({ ...pr, severity: "warning" });
        else problems.push(pr);
      }
    }
    for (const k of Object.keys(manifest)) {
      if (!KNOWN_MANIFEST_KEYS.has(k)) warn(manifestFile, `/${k}`, `unknown manifest key "${k}" is ignored${suggest(k, KNOWN_MANIFEST_KEYS)}`);
    }
  }
  const dataDir = path.join(opts.dataHome ?? path.join(toolhostHome(), "plugins", "data"), sanitizeId(id));
  const vars = pluginVars(root, dataDir, opts.projectDir);
  const mf = manifestFile ?? path.join(root, ".claude-plugin", "plugin.json");

  if (!problems.some((p) => p.severity === "error")) {
    // hooks: default hooks/hooks.json plus manifest entries (paths or inline maps), all in addition.
    const hooksFiles: Array<{ rel: string; jsonPath: string }> = [];
    const defaultHooks = path.join(root, "hooks", "hooks.json");
    const manifestHooks = asList(manifest.hooks);
    if (fs.existsSync(defaultHooks) && !manifestHooks.some((h) => typeof h === "string" && path.resolve(root, h) === defaultHooks)) {
      hooksFiles.push({ rel: "./hooks/hooks.json", jsonPath: "" });
    }
    manifestHooks.forEach((h, i) => {
      const jp = Array.isArray(manifest.hooks) ? `/hooks/${i}` : "/hooks";
      if (typeof h === "string") hooksFiles.push({ rel: h, jsonPath: jp });
      else addHooks(h as Record<string, unknown>, mf, jp);
    });
    for (const hf of hooksFiles) {
      const file = fileComponent(hf.rel, hf.jsonPath || "/hooks");
      if (!file) continue;
      const r = readJson(file);
      if (r.error) err(file, "/", r.error);
      else {
        const v = r.value as Record<string, unknown>;
        // hooks.json has a `hooks` wrapper; accept a bare event map too.
        if (v && typeof v === "object" && v.hooks && typeof v.hooks === "object" && !Array.isArray(v.hooks)) addHooks(v.hooks as Record<string, unknown>, file, "/hooks");
        else addHooks(v, file, "");
      }
    }
    // mcpServers: default .mcp.json (with or without the wrapper) plus manifest entries.
    serverComponents("mcpServers", ".mcp.json", components.mcpServers);
    serverComponents("lspServers", ".lsp.json", components.lspServers);
    // tools (toolhost): module paths.
    asList(manifest.tools).forEach((t, i) => {
      const jp = Array.isArray(manifest.tools) ? `/tools/${i}` : "/tools";
      const f = fileComponent(String(t), jp);
      if (f) components.tools.push({ file: f, jsonPath: jp, value: f });
    });
    if (typeof manifest.main === "string") {
      const f = fileComponent(manifest.main, "/main");
      if (f) components.main = { file: f, jsonPath: "/main", value: f };
    }
    if (manifest.permissions && typeof manifest.permissions === "object") {
      components.permissions = { file: mf, jsonPath: "/permissions", value: manifest.permissions as PermissionLists };
    }
  }
  return finish();

  function fileComponent(rel: string, jsonPath: string): string | undefined {
    const r = resolveInside(root, substitute(rel, vars).replace(root + path.sep, "./"));
    if (r.error) {
      err(mf, jsonPath, r.error);
      return undefined;
    }
    if (!fs.existsSync(r.path!)) {
      err(mf, jsonPath, `file "${rel}" does not exist (resolved to ${r.path})`);
      return undefined;
    }
    return r.path;
  }

  function addHooks(map: Record<string, unknown>, file: string, base: string) {
    if (!map || typeof map !== "object" || Array.isArray(map)) {
      err(file, base || "/", "hooks must be an object mapping event names to matcher groups");
      return;
    }
    const events: HookEventMap = {};
    for (const [event, groups] of Object.entries(map)) {
      if (event === "description") continue;
      const jp = `${base}/${event}`;
      if (!KNOWN_HOOK_EVENTS.has(event)) {
        warn(file, jp, `unknown hook event "${event}" is ignored${suggest(event, KNOWN_HOOK_EVENTS)}`);
        continue;
      }
      if (!validateHookGroups(groups)) {
        problems.push(...ajvProblems(validateHookGroups.errors, id, file, jp));
        continue;
      }
      events[event] = substitute(groups as unknown[], vars);
    }
    components.hooks.push({ file, jsonPath: base || "/", value: events });
  }

  function serverComponents(key: "mcpServers" | "lspServers", defaultFile: string, into: Component<Record<string, unknown>>[]) {
    const entries = asList(manifest[key]);
    const files: Array<{ rel: string; jsonPath: string }> = [];
    const def = path.join(root, defaultFile);
    if (fs.existsSync(def) && !entries.some((e) => typeof e === "string" && path.resolve(root, e) === def)) files.push({ rel: `./${defaultFile}`, jsonPath: "" });
    entries.forEach((e, i) => {
      const jp = Array.isArray(manifest[key]) ? `/${key}/${i}` : `/${key}`;
      if (typeof e === "string") files.push({ rel: e, jsonPath: jp });
      else addServers(e as Record<string, unknown>, mf, jp);
    });
    for (const f of files) {
      const file = fileComponent(f.rel, f.jsonPath || `/${key}`);
      if (!file) continue;
      const r = readJson(file);
      if (r.error) {
        err(file, "/", r.error);
        continue;
      }
      const v = r.value as Record<string, unknown>;
      if (v && typeof v === "object" && v[key] && typeof v[key] === "object") addServers(v[key] as Record<string, unknown>, file, `/${key}`);
      else addServers(v, file, "");
    }
    function addServers(map: Record<string, unknown>, file: string, base: string) {
      if (!map || typeof map !== "object" || Array.isArray(map)) {
        err(file, base || "/", `${key} must be an object mapping server names to configs`);
        return;
      }
      const ok: Record<string, unknown> = {};
      for (const [name, cfg] of Object.entries(map)) {
        if (!cfg || typeof cfg !== "object" || Array.isArray(cfg)) {
          err(file, `${base}/${name}`, `server config must be an object`);
          continue;
        }
        ok[name] = substitute(cfg, vars);
      }
      into.push({ file, jsonPath: base || "/", value: ok });
    }
  }

  function finish(): LoadedPlugin {
    for (const p of problems) p.plugin = id;
    const dd = path.join(opts.dataHome ?? path.join(toolhostHome(), "plugins", "data"), sanitizeId(id));
    return {
      id,
      kind: "plugin",
      root,
      manifestFile,
      source,
      manifest,
      dataDir: dd,
      env: pluginVars(root, dd, opts.projectDir),
      rulesRoot: root,
      components,
      problems,
      failed: problems.some((p) => p.severity === "error"),
      order: typeof manifest.order === "number" ? manifest.order : 0,
    };
  }
}

/**
 * Settings-like sources (toolhost config, .claude/settings*.json, .mcp.json) become pseudo-plugins,
 * so every consumer (permissions, command hooks, MCP) reads one uniform list with provenance.
 */
export function settingsPlugin(
  id: string,
  kind: LoadedPlugin["kind"],
  file: string,
  value: Record<string, unknown>,
  opts: LoadOptions & { rulesRoot: string; base?: string },
): LoadedPlugin {
  const problems: ProblemReport[] = [];
  const base = opts.base ?? "";
  const components: LoadedPlugin["components"] = { hooks: [], mcpServers: [], lspServers: [], tools: [] };
  const vars = { CLAUDE_PROJECT_DIR: opts.projectDir, TOOLHOST_PROJECT_DIR: opts.projectDir };
  if (value.permissions !== undefined) {
    if (!validatePermissions(value.permissions)) problems.push(...ajvProblems(validatePermissions.errors, id, file, `${base}/permissions`));
    else components.permissions = { file, jsonPath: `${base}/permissions`, value: value.permissions as PermissionLists };
  }
  if (value.hooks !== undefined) {
    if (!value.hooks || typeof value.hooks !== "object" || Array.isArray(value.hooks)) {
      problems.push({ plugin: id, file, path: `${base}/hooks`, message: "hooks must be an object mapping event names to matcher groups", severity: "error" });
    } else {
      const events: HookEventMap = {};
      for (const [event, groups] of Object.entries(value.hooks as Record<string, unknown>)) {
        const jp = `${base}/hooks/${event}`;
        if (!KNOWN_HOOK_EVENTS.has(event)) {
          problems.push({ plugin: id, file, path: jp, message: `unknown hook event "${event}" is ignored${suggest(event, KNOWN_HOOK_EVENTS)}`, severity: "warning" });
          continue;
        }
        if (!validateHookGroups(groups)) {
          problems.push(...ajvProblems(validateHookGroups.errors, id, file, jp));
          continue;
        }
        events[event] = substitute(groups as unknown[], vars);
      }
      components.hooks.push({ file, jsonPath: `${base}/hooks`, value: events });
    }
  }
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
    dataDir: path.join(toolhostHome(), "plugins", "data", sanitizeId(id)),
    env: vars,
    rulesRoot: opts.rulesRoot,
    components,
    problems,
    failed: problems.some((p) => p.severity === "error"),
    order: 0,
  };
}

/** "did you mean" for typos of known keys (edit distance ≤ 2). */
export function suggest(word: string, known: Iterable<string>): string {
  let best: string | undefined;
  let bestD = 3;
  for (const k of known) {
    const d = editDistance(word.toLowerCase(), k.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = k;
    }
  }
  return best ? ` (did you mean "${best}"?)` : "";
}

export function editDistance(a: string, b: string): number {
  const dp = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = dp[0]!;
    dp[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = dp[j]!;
      dp[j] = Math.min(dp[j]! + 1, dp[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return dp[b.length]!;
}
