/**
 * One row per hook: its tapable kind, its argument names, what an error in a tap does, and what it is
 * for. The hook objects are created from these rows (create.ts) and the contract tests read them, so a
 * hook cannot exist without a row or a row without a hook (`satisfies Record<keyof …>` is exhaustive).
 *
 * Failure policies:
 *  - "isolate": the error is recorded as a problem and the tap counts as no contribution (a waterfall
 *    passes its value on). One bad plugin never takes the others down.
 *  - "throw": a PluginError reaches the caller, which fails closed (a deny, permission or PreToolUse
 *    error denies the call). Used for decisions.
 */
import type { BuildHooks, HostHooks } from "../types.ts";

export type HookKind = "SyncHook" | "SyncBailHook" | "SyncWaterfallHook" | "AsyncParallelHook" | "AsyncSeriesHook" | "AsyncSeriesBailHook" | "AsyncSeriesWaterfallHook";
export type FailurePolicy = "isolate" | "throw";
export interface HookRow {
  kind: HookKind;
  args: readonly string[];
  failure: FailurePolicy;
  doc: string;
}
const row = (kind: HookKind, args: readonly string[], failure: FailurePolicy, doc: string): HookRow => ({ kind, args, failure, doc });

export const HOST_HOOKS = {
  discover: row("AsyncSeriesWaterfallHook", ["sources"], "isolate", "add or remove plugin sources before manifests are read"),
  settings: row("AsyncSeriesHook", ["collector"], "isolate", "settings-like sources add pseudo-plugins, mode places and watched files (after activation)"),
  manifestLoaded: row("SyncHook", ["plugin"], "isolate", "a manifest (or settings source) was read and schema-checked"),
  validateManifest: row("SyncWaterfallHook", ["problems", "plugin"], "isolate", "extra validation of a loaded manifest: return more problems"),
  activate: row("SyncHook", ["plugin"], "isolate", "a plugin was loaded and applied"),
  activateFailed: row("SyncHook", ["plugin", "problem"], "isolate", "a plugin failed to load or apply; the others go on"),
  invalid: row("SyncHook", ["reason"], "isolate", "something changed and a rebuild is scheduled"),
  build: row("SyncHook", ["build"], "isolate", "a new Build was made: tap its fresh hooks here"),
  rebuildStart: row("SyncHook", ["info"], "isolate", "a rebuild began"),
  rebuildDone: row("SyncHook", ["pool", "diff"], "isolate", "a rebuild swapped in a new pool"),
  rebuildFailed: row("SyncHook", ["info", "problems"], "isolate", "a rebuild failed; the last good pool keeps serving"),
  poolChanged: row("SyncHook", ["pool", "diff"], "isolate", "the model-visible pool changed (once per generation that changes it)"),
  sessionOpen: row("AsyncSeriesHook", ["session"], "isolate", "a session was first used in this host: restore its state (calls in it wait)"),
  sessionToolsChanged: row("SyncHook", ["sessionId"], "isolate", "a session loaded deferred tools"),
  addPermissionRule: row("SyncBailHook", ["update"], "isolate", "store an \"allow always\" or other rule update; first taker wins"),
  chooseMode: row("SyncWaterfallHook", ["choice", "query"], "isolate", "the permission mode the configuration sets, and the modes it refuses (after host.settings)"),
  modeChanged: row("SyncHook", ["mode", "previous"], "isolate", "the permission mode was switched"),
  step: row("SyncHook", ["event"], "isolate", "a long step (server start, install) began or ended: ctx.step"),
  dispose: row("AsyncParallelHook", [], "isolate", "the host is closing"),
} as const satisfies Record<keyof HostHooks, HookRow>;

export const BUILD_HOOKS = {
  collect: row("AsyncParallelHook", ["collector", "ctx"], "isolate", "every source adds its tools (built-ins, plugin modules, MCP, LSP)"),
  exclude: row("SyncBailHook", ["tool", "ctx"], "isolate", "the first Exclusion returned removes the tool (deny rules, mode, tool sets)"),
  resolveConflict: row("SyncBailHook", ["candidates", "ctx"], "isolate", "pick the winner among tools sharing one name (default: core/build/pool.ts)"),
  sort: row("SyncWaterfallHook", ["tools", "ctx"], "isolate", "reorder the tools (after the default order)"),
  defer: row("SyncBailHook", ["tool", "ctx"], "isolate", "eager or deferred; the first decision wins; none = eager"),
  seal: row("SyncHook", ["pool"], "isolate", "the sealed snapshot (build search indexes, caches)"),
  lookup: row("SyncBailHook", ["name", "call"], "throw", "resolve a name not in the pool directly (session-loaded tools, aliases)"),
  repairInput: row("SyncWaterfallHook", ["input", "call"], "isolate", "repair raw input (JSON in a string, trailing commas …)"),
  validateInput: row("AsyncSeriesBailHook", ["call"], "throw", "extra validation: return a message to reject"),
  deny: row("AsyncSeriesBailHook", ["call"], "throw", "deny rules; called first among decisions, a deny always wins"),
  permission: row("AsyncSeriesBailHook", ["call"], "throw", "ask/allow rules, modes, tool checkPermissions; no answer = ask"),
  readFilter: row("SyncWaterfallHook", ["filter", "call"], "throw", "the per-file filter searching tools apply (Read deny rules); each tap may wrap the last"),
  permissionRequest: row("AsyncSeriesBailHook", ["call", "decision"], "isolate", "answer an ask without a person (PermissionRequest hooks)"),
  preToolUse: row("AsyncSeriesHook", ["pre"], "throw", "PreToolUse handlers: decide, rewrite input, add context, substitute a result"),
  call: row("AsyncSeriesBailHook", ["call"], "throw", "replace the tool's own call (remote execution, recording)"),
  postToolUse: row("AsyncSeriesHook", ["post"], "isolate", "PostToolUse handlers: block, add context, rewrite output"),
  postToolUseFailure: row("AsyncSeriesHook", ["post"], "isolate", "after a failed call"),
  postToolBatch: row("AsyncSeriesHook", ["batch"], "isolate", "after every model turn's calls: host.executeBatch, host.endTurn"),
  sessionEvent: row("AsyncSeriesHook", ["event"], "isolate", "a session or turn event the embedder reported (host.event: SessionStart, UserPromptSubmit, Stop …)"),
  shape: row("AsyncSeriesWaterfallHook", ["result", "call"], "isolate", "budget, truncation, headers"),
  persist: row("AsyncParallelHook", ["record"], "isolate", "record the finished call (transcripts, metrics)"),
  progress: row("SyncHook", ["call", "message", "fraction"], "isolate", "progress reported by a running tool"),
} as const satisfies Record<keyof BuildHooks, HookRow>;
