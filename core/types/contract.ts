/**
 * The contract between core and plugins: a call's state and the contexts hooks receive, the hooks
 * themselves (two owners, two lifetimes), and what a plugin sees of the host and of a Build.
 *  - `HostHooks`: one frozen object per Host (long-lived: discovery, plugin lifecycle, rebuilds).
 *  - `BuildHooks`: one frozen object per Build (one pool generation: assembly phases, execution stages).
 * core/hooks/table.ts has one row per hook (kind, failure policy, doc); the objects are created from it.
 */
import type {
  AsyncParallelHook,
  AsyncSeriesBailHook,
  AsyncSeriesHook,
  AsyncSeriesWaterfallHook,
  SyncBailHook,
  SyncHook,
  SyncWaterfallHook,
} from "tapable";
import type { ProblemReport } from "../errors.ts";
import type { Tool, ToolResult, ReadFilter } from "./tool.ts";
import type { AskAnswer, CallSource, Decision, ExecuteOutcome, HookDecision, TraceEntry, Traced } from "./outcome.ts";
import type { SessionEventContext, StepEvent } from "./events.ts";
import type { DeferDecision, Exclusion, PoolContext, PoolDiff, PoolSnapshot, ToolCollector } from "./pool.ts";
import type { HostConfig, LoadedPlugin, ModeChoice, ModeQuery, PermissionRuleUpdate, PluginSource, RebuildInfo, SessionData, SettingsCollector } from "./records.ts";

export interface CallState extends Traced {
  readonly toolUseId: string;
  readonly sessionId: string;
  readonly session: SessionData;
  readonly requestedName: string;
  tool?: Tool;
  readonly rawInput: unknown;
  input: any;
  readonly mode: string;
  readonly cwd: string;
  /** Where the call acts: the tool's `workingDirectory` facet for this input (e.g. Bash after a `cd`), else `cwd`. */
  readonly workingDirectory: string;
  readonly generation: number;
  readonly source: CallSource;
  /** This call's generation's config, frozen when its Build was made (a rebuild never changes it mid-call). */
  readonly config: Readonly<HostConfig>;
  readonly dryRun: boolean;
  readonly signal: AbortSignal;
  readonly host: HostView;
  /** Decision so far (set after the deny/permission stages). */
  decision?: Decision;
  /** Texts appended after the normal result (hook context, notes); never into a system prompt. */
  readonly notes: string[];
  /**
   * The read filter searching tools will apply to this call (`build.readFilter`): lets a permission
   * plugin see Read denials other plugins contribute (a recursive shell search must ask for those too).
   */
  readFilter(): ReadFilter | undefined;
  /** Free-form per-call data for plugins (e.g. the command-hooks plugin's parsed outputs). */
  readonly data: Map<string, unknown>;
  /** Epoch ms when the call entered the pipeline (transcripts, metrics). */
  readonly startedAt: number;
  /** Output budget for this call in characters (ExecuteOptions.maxOutputChars), for the shaping plugin. */
  readonly maxOutputChars?: number;
}

export interface PreToolUseContext extends Traced {
  readonly call: CallState;
  /** The input as it stands after earlier handlers. */
  readonly input: any;
  /** Record a decision (deny > defer > ask > allow); `cite`: its rule and file (default rule "PreToolUse hook"). */
  decide(decision: HookDecision, reason: string, source: string, cite?: { rule?: string; file?: string }): void;
  /** Replace the input seen by later handlers and by the tool (re-validated and deny-checked). */
  updateInput(input: Record<string, unknown>, source: string): void;
  /** Return this result instead of calling the tool. */
  substitute(result: ToolResult | string, source: string): void;
  /** Add text after the tool's result. */
  addContext(text: string, source: string): void;
  readonly decisions: ReadonlyArray<{ decision: HookDecision; reason: string; source: string; rule?: string; file?: string }>;
  /** `continue: false`: the tool still runs, then the agent stops (ExecuteOutcome.stop). The first stop wins. */
  stop(reason: string, source: string): void;
}

export interface PostToolUseContext extends Traced {
  readonly call: CallState;
  result: ToolResult;
  readonly error?: string;
  /** Mark the result as blocked: the reason is appended and shown to the model. */
  block(reason: string, source: string): void;
  addContext(text: string, source: string): void;
  /** Replace what the model sees as the tool's output. */
  updateOutput(result: ToolResult | string, source: string): void;
  /** `continue: false`: the agent stops before the model sees this result (ExecuteOutcome.stop). */
  stop(reason: string, source: string): void;
}

/** After host.executeBatch ran every call of a batch (Claude Code's PostToolBatch). */
export interface PostToolBatchContext extends Traced {
  readonly sessionId: string;
  readonly cwd: string;
  readonly mode: string;
  readonly calls: ReadonlyArray<{ readonly name: string; readonly input: unknown; readonly toolUseId: string; readonly outcome: ExecuteOutcome }>;
  /** Text for the model after the batch (appended to the last call's result). */
  addContext(text: string, source: string): void;
  /** Ask the agent loop to stop before its next model call (ExecuteOutcome.batchStop on the last outcome). */
  stop(reason: string, source: string): void;
}

export interface CallRecord {
  call: CallState;
  outcome: ExecuteOutcome;
}

export interface HostHooks {
  /** AsyncSeriesWaterfall: add or remove plugin sources before manifests are read. */
  readonly discover: AsyncSeriesWaterfallHook<[PluginSource[]]>;
  /** AsyncSeries: settings-like sources add pseudo-plugins, mode places and watched files (after activation). */
  readonly settings: AsyncSeriesHook<[SettingsCollector]>;
  /** A manifest (or settings source) was read and schema-checked; observers only. */
  readonly manifestLoaded: SyncHook<[LoadedPlugin]>;
  /** SyncWaterfall: extra validation of a loaded manifest; return more problems. */
  readonly validateManifest: SyncWaterfallHook<[ProblemReport[], LoadedPlugin]>;
  /** A plugin was loaded and applied. */
  readonly activate: SyncHook<[LoadedPlugin]>;
  /** A plugin failed to load or apply; the others go on. */
  readonly activateFailed: SyncHook<[LoadedPlugin | PluginSource, ProblemReport]>;
  /** Something changed; a rebuild is scheduled (watchers, MCP list_changed, mode switches call host.invalidate). */
  readonly invalid: SyncHook<[string]>;
  /** A new Build (pool generation) was created: tap its fresh hooks here. */
  readonly build: SyncHook<[BuildView]>;
  readonly rebuildStart: SyncHook<[RebuildInfo]>;
  readonly rebuildDone: SyncHook<[PoolSnapshot, PoolDiff]>;
  readonly rebuildFailed: SyncHook<[RebuildInfo, ProblemReport[]]>;
  /** The model-visible pool changed (fingerprint differs). Fires once per generation that changes it. */
  readonly poolChanged: SyncHook<[PoolSnapshot, PoolDiff]>;
  /** AsyncSeries: a session is first used here — restore its state (calls wait; `host.openSession(id)`). */
  readonly sessionOpen: AsyncSeriesHook<[SessionData]>;
  /** A session loaded deferred tools (ToolSearch) or otherwise changed what it sees. */
  readonly sessionToolsChanged: SyncHook<[string]>;
  /** "allow always" and other rule updates; the permissions plugin persists them. First taker wins. */
  readonly addPermissionRule: SyncBailHook<[PermissionRuleUpdate], true | undefined>;
  /** SyncWaterfall: the permission mode the configuration sets and the modes it refuses (the permissions plugin). */
  readonly chooseMode: SyncWaterfallHook<[ModeChoice, ModeQuery]>;
  /** Mode switch (default, plan, acceptEdits, dontAsk, bypassPermissions). */
  readonly modeChanged: SyncHook<[string, string]>;
  /** A long step began or ended (`ctx.step`); the CLI shows one still running after a second. */
  readonly step: SyncHook<[StepEvent]>;
  /** Shut down connections and processes (plugins usually use ctx.onDispose). */
  readonly dispose: AsyncParallelHook<[]>;
}

export interface BuildHooks {
  // pool assembly, in order
  readonly collect: AsyncParallelHook<[ToolCollector, PoolContext]>;
  readonly exclude: SyncBailHook<[Tool, PoolContext], Exclusion | undefined>;
  readonly resolveConflict: SyncBailHook<[Tool[], PoolContext], Tool | undefined>;
  readonly sort: SyncWaterfallHook<[Tool[], PoolContext]>;
  readonly defer: SyncBailHook<[Tool, PoolContext], DeferDecision | undefined>;
  readonly seal: SyncHook<[PoolSnapshot]>;
  // execution stages, in order
  readonly lookup: SyncBailHook<[string, CallState], Tool | undefined>;
  readonly repairInput: SyncWaterfallHook<[unknown, CallState]>;
  readonly validateInput: AsyncSeriesBailHook<[CallState], string | undefined>;
  readonly deny: AsyncSeriesBailHook<[CallState], Decision | undefined>;
  readonly permission: AsyncSeriesBailHook<[CallState], Decision | undefined>;
  readonly readFilter: SyncWaterfallHook<[ReadFilter | undefined, CallState]>;
  readonly permissionRequest: AsyncSeriesBailHook<[CallState, Decision], AskAnswer | undefined>;
  readonly preToolUse: AsyncSeriesHook<[PreToolUseContext]>;
  readonly call: AsyncSeriesBailHook<[CallState], ToolResult | undefined>;
  readonly postToolUse: AsyncSeriesHook<[PostToolUseContext]>;
  readonly postToolUseFailure: AsyncSeriesHook<[PostToolUseContext]>;
  readonly postToolBatch: AsyncSeriesHook<[PostToolBatchContext]>;
  readonly sessionEvent: AsyncSeriesHook<[SessionEventContext]>;
  readonly shape: AsyncSeriesWaterfallHook<[ToolResult, CallState]>;
  readonly persist: AsyncParallelHook<[CallRecord]>;
  readonly progress: SyncHook<[CallState, string, number | undefined]>;
}

/** What a plugin sees of a Build: its hooks (tapped under the plugin's own id) and its frozen context. */
export interface BuildView {
  readonly generation: number;
  readonly hooks: BuildHooks;
  readonly mode: string;
  readonly cwd: string;
  /** This generation's config, frozen when the Build was made. */
  readonly config: Readonly<HostConfig>;
  /** Every loaded plugin of this generation (including settings pseudo-plugins), for component consumers. */
  readonly plugins: readonly LoadedPlugin[];
  readonly host: HostView;
}

export interface Logger {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
  debug(msg: string): void;
}

/** What any plugin can see of the host. */
export interface HostView {
  readonly cwd: string;
  readonly mode: string;
  /** The current generation's config (a call or Build in flight reads its own frozen `config`). */
  readonly config: HostConfig;
  /** Every loaded plugin of the current generation, including settings pseudo-plugins. */
  plugins(): readonly LoadedPlugin[];
  /** The current (last good) pool. */
  pool(): PoolSnapshot | undefined;
  /** Schedule a rebuild through the one rebuild path. */
  invalidate(reason: string): void;
  /** Config and settings files (existing or searched for) whose change should trigger a rebuild. */
  watchedFiles?(): readonly string[];
  /** Plugin sources the last rebuild discovered (bundled manifests, config `plugins`, --plugin-dir), loaded or not. */
  sources?(): readonly PluginSource[];
  session(id?: string): SessionData;
  /** Offer a rule update as host.hooks.addPermissionRule does (first taker wins); a store plugin restores a session's approvals with it. */
  addPermissionRule?(update: PermissionRuleUpdate): boolean;
  /**
   * A live object another plugin provided under `name` (`ctx.provide`), e.g. the MCP plugin's
   * connections for `toolhost serve`: one plugin reaches another's state without importing its files.
   * Undefined when no active plugin provides it.
   */
  service<T = unknown>(name: string): T | undefined;
  readonly log: Logger;
  /** Options the embedding program passed to createHost (for plugins that read their own keys). */
  readonly options: Readonly<Record<string, unknown>>;
}

export interface PluginContext {
  /** The plugin id every tap is recorded under. */
  readonly id: string;
  /** The plugin's manifest record (inline plugins get a synthetic one). */
  readonly plugin: LoadedPlugin;
  readonly host: HostView;
  readonly hooks: HostHooks;
  /** Report a problem attributed to this plugin. */
  report(p: Omit<ProblemReport, "plugin">): void;
  /**
   * Offer a live object to other plugins under `name` (read with `host.service(name)`); withdrawn when
   * this plugin is disposed. A name another active plugin already provides is refused (reported).
   */
  provide(name: string, value: unknown): void;
  /**
   * Own a top-level config key (`lsp`, `toolSearch` …) and its JSON Schema: the host checks the config
   * against it after activation (errors name the key's JSON path) and stops calling the key unknown.
   */
  contributeConfig(key: string, schema: object): void;
  /** Run when the plugin is removed or reloaded, or the host closes. */
  onDispose(fn: () => void | Promise<void>): void;
  /** Announce a long step (a server start, an install); call the result when it ends. Fires `hooks.step`. */
  step(label: string): (ok?: boolean) => void;
}

export interface PluginDefinition {
  name: string;
  apply(ctx: PluginContext): void | Promise<void>;
}
