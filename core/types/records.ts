/** Where plugins come from and what a loaded one holds; the host config. Imports only ProblemReport. */
import type { ProblemReport } from "../errors.ts";

export interface PluginSource {
  /** Where the plugin was found: "bundled", "config", "plugin-dir", "npm", "settings". */
  kind: string;
  /** A directory (plugin root) or a manifest file. */
  path: string;
  /** Config file that named it (for error messages). */
  from?: string;
}

export interface RebuildInfo {
  reason: string;
  generation: number;
}

export interface PermissionRuleUpdate {
  behavior: "allow" | "deny" | "ask";
  rule: string;
  destination: "session" | "localSettings" | "projectSettings";
  /** The call that was approved ("allow always"), so the rule can be narrowed to it (e.g. one Bash command). */
  tool?: string;
  input?: unknown;
  /** The session that gave a "session" approval: it applies to that session's calls only (absent: every session). */
  sessionId?: string;
}

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

export interface HostConfig {
  plugins?: string[];
  disabledPlugins?: string[];
  permissions?: { allow?: string[]; ask?: string[]; deny?: string[]; defaultMode?: string; additionalDirectories?: string[] };
  hooks?: Record<string, unknown>;
  mcpServers?: Record<string, unknown>;
  toolSearch?: { enabled?: boolean | "auto" | `auto:${number}`; alwaysLoad?: string[]; contextTokens?: number; [k: string]: unknown };
  mode?: string;
  /** Named tool sets (a task-type router): `{ review: ["Read", "Grep", "Glob"] }`. */
  toolSets?: Record<string, string[]>;
  /** The active tool set name. */
  toolSet?: string;
  output?: { maxChars?: number; perTool?: Record<string, number>; [k: string]: unknown };
  transcript?: string;
  /** agents-md plugin: instruction file names to compile (default AGENTS.md, AGENTS.override.md, CLAUDE.md, CLAUDE.local.md). */
  agentsMd?: { files?: string[] };
  [key: string]: unknown;
}

/**
 * One place a permission mode may be set: a config-like object (`mode`, `permissions.defaultMode`) at
 * `prefix` in `file`. Places are read in precedence order (lower first); the first mode found wins.
 */
export interface ModePlace {
  value: unknown;
  /** Whether a top-level `mode` key counts (toolhost config) or only permissions.defaultMode (settings). */
  topMode: boolean;
  plugin: string;
  file?: string;
  prefix: string;
  /** Checked into the repository: may not switch on an escalating mode. */
  checkedIn: boolean;
  /** Lower first: inline config 0, --config file 10, a local settings file 20, a config found in the project 30, project settings 40. */
  precedence: number;
}

/** A mode the configuration refuses (e.g. `permissions.disableBypassPermissionsMode`), and where it says so. */
export interface ModeLock {
  mode: string;
  plugin: string;
  file?: string;
  path: string;
  /** The setting that refuses it, for the start-up warning and setMode's error. */
  reason: string;
}

/** What host.chooseMode's taps decide from the mode places: the configured default and the modes refused. */
export interface ModeChoice {
  defaultMode?: ModeSource;
  locks?: ModeLock[];
}

/** host.chooseMode's question: every place that may set a mode (precedence order not yet applied). */
export interface ModeQuery {
  readonly places: readonly ModePlace[];
  /** createHost({mode}) / --mode, on the first generation only (later ones keep the chosen mode). */
  readonly requested?: string;
  problem(p: ProblemReport): void;
}

export interface ModeSource {
  mode: string;
  /** "option" (createHost / --mode), "config", "settings:local", "settings:project", or "default". */
  source: string;
  file?: string;
  path?: string;
}

/** One conversation's state (core/host/session.ts): deferred tools ToolSearch loaded, per-tool scratch state. */
export interface SessionData {
  readonly id: string;
  /** Deferred tool names loaded in this session, in the order they were first loaded. */
  readonly loaded: string[];
  readonly state: Map<string, Map<string, unknown>>;
  /** Scratch state shared by every tool of the session (ToolCallContext.sessionState). */
  readonly shared: Map<string, unknown>;
  load(names: Iterable<string>): string[];
  isLoaded(name: string): boolean;
  stateFor(key: string): Map<string, unknown>;
  /** Changes so far: bumped by load() and by every set/delete/clear of `shared` or a stateFor() map (persistence seam). */
  version: number;
  /** Say that a value inside the state changed in place (a nested Map or object), so a store writes it. */
  touch(): void;
  /** The pending restore (host.hooks.sessionOpen); calls wait for it. */
  ready?: Promise<void>;
  /**
   * Set by a store plugin: run as each call starts once the restore is done (a freshness check against the
   * store); a promise the call waits for, or undefined to go on at once. A field, not an accessor on `ready`:
   * redefining a property of the session turns it into a slow dictionary object for the whole pipeline.
   */
  check?: () => Promise<void> | undefined;
}

/** What a settings source (host.settings: Claude Code settings files, .mcp.json) may add to a generation. */
export interface SettingsCollector {
  readonly cwd: string;
  readonly config: Readonly<HostConfig>;
  /** A pseudo-plugin holding the source's permissions, hooks or MCP servers (core's settingsPlugin builds one). */
  add(source: LoadedPlugin): void;
  /** A place that may set the permission mode. */
  mode(place: ModePlace): void;
  /** A file whose change should trigger a rebuild (whether or not it exists). */
  watch(file: string): void;
  problem(p: ProblemReport): void;
}
