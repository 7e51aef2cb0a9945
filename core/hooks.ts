/**
 * The hooks toolhost's core declares. Two owners, two lifetimes:
 *  - `HostHooks`: one frozen object per Host (long-lived: discovery, plugin lifecycle, rebuilds).
 *  - `BuildHooks`: one frozen object per Build (one pool generation: assembly phases + execution stages).
 * A plugin taps `host.build` and then taps the fresh BuildHooks of every new generation; a removed plugin
 * simply is not applied to the next Build (tapable has no untap).
 *
 * Every hook gets an interceptor that wraps each tap so that an error thrown by a plugin is attributed
 * centrally (plugin id = tap name, hook name, cause) and handled by the hook's declared failure policy:
 *  - "isolate": the error is recorded as a problem and the tap is treated as having made no contribution
 *    (waterfalls pass their value through unchanged). Used where one bad plugin must not take others down.
 *  - "throw": a PluginError is thrown to the caller, which fails closed (a deny/permission/pre-hook error
 *    denies the call). Used for decisions.
 */
import tapable from "tapable";
import type {
  AsyncParallelHook as AsyncParallelHookT,
  AsyncSeriesBailHook as AsyncSeriesBailHookT,
  AsyncSeriesHook as AsyncSeriesHookT,
  AsyncSeriesWaterfallHook as AsyncSeriesWaterfallHookT,
  SyncBailHook as SyncBailHookT,
  SyncHook as SyncHookT,
  SyncWaterfallHook as SyncWaterfallHookT,
} from "tapable";
import { PluginError, type ProblemReport } from "./errors.ts";
import type { Tool, ToolResult, ReadFilter } from "./tool.ts";
import type { Build } from "./build.ts";
import type { LoadedPlugin } from "./manifest.ts";
import type { PoolSnapshot, PoolDiff } from "./pool.ts";
import type { CallState, Decision, AskAnswer, PreToolUseContext, PostToolUseContext, PostToolBatchContext, CallRecord } from "./executor.ts";

const { SyncHook, SyncBailHook, SyncWaterfallHook, AsyncParallelHook, AsyncSeriesHook, AsyncSeriesBailHook, AsyncSeriesWaterfallHook } =
  tapable as unknown as typeof import("tapable");

export type FailurePolicy = "isolate" | "throw";

/** Where isolated errors are recorded. */
export type ProblemSink = (p: ProblemReport) => void;

export interface TraceEntry {
  stage: string;
  plugin?: string;
  ms: number;
  outcome?: string;
  detail?: unknown;
}

/** Objects that carry a per-call trace; the interceptor appends one entry per tap it runs. */
export const TRACE = Symbol.for("toolhost.trace");
export interface Traced {
  [TRACE]: TraceEntry[];
}

function findTraced(args: unknown[]): TraceEntry[] | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a !== null && typeof a === "object") {
      const t = (a as Partial<Traced>)[TRACE];
      if (t !== undefined) return t;
    }
  }
  return undefined;
}

function describe(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  if (v && typeof v === "object" && "behavior" in (v as object)) return String((v as { behavior: unknown }).behavior);
  return "returned";
}

/**
 * Install the attribution + tracing interceptor on a hook. `name` is the hook's full name
 * ("build.deny"), `policy` its failure policy, `sink` where isolated errors go.
 */
export function instrument<H extends { intercept: Function; name?: string }>(
  hook: H,
  name: string,
  policy: FailurePolicy,
  sink: ProblemSink,
): H {
  (hook as { name?: string }).name = name;
  hook.intercept({
    register(tap: { name: string; type: "sync" | "async" | "promise"; fn: Function }) {
      const plugin = tap.name;
      const fn = tap.fn;
      const fail = (err: unknown, args: unknown[]) => {
        const e = err instanceof PluginError ? err : new PluginError(plugin, name, err);
        const trace = findTraced(args);
        trace?.push({ stage: name, plugin, ms: 0, outcome: "error", detail: e.message });
        if (policy === "throw") throw e;
        sink({ ...e.toReport("error"), plugin, path: name });
        return isWaterfall(hook) ? args[0] : undefined;
      };
      if (tap.type === "sync") {
        tap.fn = (...args: unknown[]) => {
          const trace = findTraced(args);
          const t0 = trace ? performance.now() : 0;
          let out: unknown;
          try {
            out = fn(...args);
          } catch (err) {
            return fail(err, args);
          }
          trace?.push({ stage: name, plugin, ms: performance.now() - t0, outcome: describe(out) });
          return out;
        };
      } else if (tap.type === "promise") {
        tap.fn = (...args: unknown[]) => {
          const trace = findTraced(args);
          const t0 = trace ? performance.now() : 0;
          let p: unknown;
          try {
            p = fn(...args);
          } catch (err) {
            return Promise.resolve().then(() => fail(err, args));
          }
          if (!p || typeof (p as Promise<unknown>).then !== "function") {
            return Promise.resolve().then(() => fail(new Error(`tapPromise handler did not return a promise`), args));
          }
          return (p as Promise<unknown>).then(
            (out) => {
              trace?.push({ stage: name, plugin, ms: performance.now() - t0, outcome: describe(out) });
              return out;
            },
            (err) => fail(err, args),
          );
        };
      } else {
        tap.fn = (...argsAndCb: unknown[]) => {
          const cb = argsAndCb[argsAndCb.length - 1] as (err?: unknown, res?: unknown) => void;
          const args = argsAndCb.slice(0, -1);
          const trace = findTraced(args);
          const t0 = trace ? performance.now() : 0;
          let settled = false;
          const done = (err?: unknown, res?: unknown) => {
            if (settled) return;
            settled = true;
            if (err) {
              let out: unknown;
              try {
                out = fail(err, args);
              } catch (e) {
                return cb(e);
              }
              return cb(null, out);
            }
            trace?.push({ stage: name, plugin, ms: performance.now() - t0, outcome: describe(res) });
            cb(null, res);
          };
          try {
            fn(...args, done);
          } catch (err) {
            done(err);
          }
        };
      }
      return tap;
    },
  });
  return hook;
}

function isWaterfall(hook: unknown): boolean {
  // tapable's hook classes are factories with a null prototype: compare constructors, not instanceof.
  const c = (hook as { constructor?: unknown }).constructor;
  return c === SyncWaterfallHook || c === AsyncSeriesWaterfallHook;
}

// ---------------------------------------------------------------------------------------------
// Host hooks

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
}

function hostHookDefs(sink: ProblemSink) {
  const h = {
    /** AsyncSeriesWaterfall: add or remove plugin sources before manifests are read. */
    discover: instrument(new AsyncSeriesWaterfallHook<[PluginSource[]]>(["sources"]), "host.discover", "isolate", sink),
    /** A manifest (or settings source) was read and schema-checked; observers only. */
    manifestLoaded: instrument(new SyncHook<[LoadedPlugin]>(["plugin"]), "host.manifestLoaded", "isolate", sink),
    /** SyncWaterfall: extra validation of a loaded manifest; return more problems. */
    validateManifest: instrument(
      new SyncWaterfallHook<[ProblemReport[], LoadedPlugin]>(["problems", "plugin"]),
      "host.validateManifest",
      "isolate",
      sink,
    ),
    /** A plugin was loaded and applied. */
    activate: instrument(new SyncHook<[LoadedPlugin]>(["plugin"]), "host.activate", "isolate", sink),
    /** A plugin failed to load or apply; the others go on. */
    activateFailed: instrument(new SyncHook<[LoadedPlugin | PluginSource, ProblemReport]>(["plugin", "problem"]), "host.activateFailed", "isolate", sink),
    /** Something changed; a rebuild is scheduled (watchers, MCP list_changed, mode switches call host.invalidate). */
    invalid: instrument(new SyncHook<[string]>(["reason"]), "host.invalid", "isolate", sink),
    /** A new Build (pool generation) was created: tap its fresh hooks here. */
    build: instrument(new SyncHook<[Build]>(["build"]), "host.build", "isolate", sink),
    rebuildStart: instrument(new SyncHook<[RebuildInfo]>(["info"]), "host.rebuildStart", "isolate", sink),
    rebuildDone: instrument(new SyncHook<[PoolSnapshot, PoolDiff]>(["pool", "diff"]), "host.rebuildDone", "isolate", sink),
    rebuildFailed: instrument(new SyncHook<[RebuildInfo, ProblemReport[]]>(["info", "problems"]), "host.rebuildFailed", "isolate", sink),
    /** The model-visible pool changed (fingerprint differs). Fires once per generation that changes it. */
    poolChanged: instrument(new SyncHook<[PoolSnapshot, PoolDiff]>(["pool", "diff"]), "host.poolChanged", "isolate", sink),
    /** A session loaded deferred tools (ToolSearch) or otherwise changed what it sees. */
    sessionToolsChanged: instrument(new SyncHook<[string]>(["sessionId"]), "host.sessionToolsChanged", "isolate", sink),
    /** "allow always" and other rule updates; the permissions plugin persists them. First taker wins. */
    addPermissionRule: instrument(
      new SyncBailHook<[PermissionRuleUpdate], true | undefined>(["update"]),
      "host.addPermissionRule",
      "isolate",
      sink,
    ),
    /** Mode switch (default, plan, acceptEdits, dontAsk, bypassPermissions). */
    modeChanged: instrument(new SyncHook<[string, string]>(["mode", "previous"]), "host.modeChanged", "isolate", sink),
    /** Shut down connections and processes. */
    dispose: instrument(new AsyncParallelHook<[]>([]), "host.dispose", "isolate", sink),
  };
  return h;
}
export type HostHooks = Readonly<ReturnType<typeof hostHookDefs>>;

export function createHostHooks(sink: ProblemSink): HostHooks {
  return Object.freeze(hostHookDefs(sink));
}

// ---------------------------------------------------------------------------------------------
// Build hooks

export interface Exclusion {
  name: string;
  reason: string;
  /** The rule that excluded it ("deny: Bash", "mode: plan", "schema"). */
  rule?: string;
  /** Plugin that made the decision. */
  plugin?: string;
  /** File the rule came from. */
  file?: string;
  /** Plugin that contributed the tool. */
  toolPlugin?: string;
}

export interface DeferDecision {
  defer: boolean;
  reason: string;
  rule: string;
  plugin?: string;
  file?: string;
}

export interface ToolCollector {
  add(tool: Tool): void;
  /** Report a problem with a source without failing the build. */
  problem(p: ProblemReport): void;
}

export interface PoolContext {
  generation: number;
  mode: string;
  cwd: string;
}

function buildHookDefs(sink: ProblemSink) {
  return {
    // --- pool assembly, in order -----------------------------------------------------------
    /** AsyncParallel: every source adds its tools (built-ins, plugin modules, MCP servers, LSP). */
    collect: instrument(new AsyncParallelHook<[ToolCollector, PoolContext]>(["collector", "ctx"]), "build.collect", "isolate", sink),
    /** SyncBail: the first plugin to return an Exclusion removes the tool (deny rules, mode, task sets). */
    exclude: instrument(new SyncBailHook<[Tool, PoolContext], Exclusion | undefined>(["tool", "ctx"]), "build.exclude", "isolate", sink),
    /** SyncBail: given tools sharing one name, return the winner (default rule in core/pool.ts). */
    resolveConflict: instrument(
      new SyncBailHook<[Tool[], PoolContext], Tool | undefined>(["candidates", "ctx"]),
      "build.resolveConflict",
      "isolate",
      sink,
    ),
    /** SyncWaterfall: reorder the tools (default order applied before: built-ins, then by origin, plugin, name). */
    sort: instrument(new SyncWaterfallHook<[Tool[], PoolContext]>(["tools", "ctx"]), "build.sort", "isolate", sink),
    /** SyncBail: decide eager vs deferred; first decision wins; no decision = eager. */
    defer: instrument(new SyncBailHook<[Tool, PoolContext], DeferDecision | undefined>(["tool", "ctx"]), "build.defer", "isolate", sink),
    /** The sealed snapshot (build search indexes, compile caches). */
    seal: instrument(new SyncHook<[PoolSnapshot]>(["pool"]), "build.seal", "isolate", sink),

    // --- execution stages, in order --------------------------------------------------------
    /** SyncBail: resolve a name that is not in the pool directly (session-loaded deferred tools, aliases). */
    lookup: instrument(new SyncBailHook<[string, CallState], Tool | undefined>(["name", "call"]), "build.lookup", "throw", sink),
    /** SyncWaterfall: repair raw input (JSON in a string, trailing commas…). */
    repairInput: instrument(new SyncWaterfallHook<[unknown, CallState]>(["input", "call"]), "build.repairInput", "isolate", sink),
    /** AsyncSeriesBail: extra validation; return a message to reject. */
    validateInput: instrument(
      new AsyncSeriesBailHook<[CallState], string | undefined>(["call"]),
      "build.validateInput",
      "throw",
      sink,
    ),
    /** AsyncSeriesBail: deny rules. Called first among decisions; a deny always wins. */
    deny: instrument(new AsyncSeriesBailHook<[CallState], Decision | undefined>(["call"]), "build.deny", "throw", sink),
    /** AsyncSeriesBail: ask/allow rules, modes, tool checkPermissions. */
    permission: instrument(new AsyncSeriesBailHook<[CallState], Decision | undefined>(["call"]), "build.permission", "throw", sink),
    /**
     * SyncWaterfall: the filter searching tools apply to every file they would read (`ctx.readFilter()`):
     * each tap may wrap the previous filter (permissions: Read deny rules). Called once per call, lazily.
     */
    readFilter: instrument(new SyncWaterfallHook<[ReadFilter | undefined, CallState]>(["filter", "call"]), "build.readFilter", "throw", sink),
    /** AsyncSeriesBail: answer an "ask" without a person (PermissionRequest hooks). */
    permissionRequest: instrument(
      new AsyncSeriesBailHook<[CallState, Decision], AskAnswer | undefined>(["call", "decision"]),
      "build.permissionRequest",
      "isolate",
      sink,
    ),
    /** AsyncSeries: PreToolUse handlers; they decide, rewrite input, add context or substitute a result. */
    preToolUse: instrument(new AsyncSeriesHook<[PreToolUseContext]>(["pre"]), "build.preToolUse", "throw", sink),
    /** AsyncSeriesBail: replace the tool's own call (remote execution, recording). */
    call: instrument(new AsyncSeriesBailHook<[CallState], ToolResult | undefined>(["call"]), "build.call", "throw", sink),
    /** AsyncSeries: PostToolUse handlers (block, add context, rewrite output). */
    postToolUse: instrument(new AsyncSeriesHook<[PostToolUseContext]>(["post"]), "build.postToolUse", "isolate", sink),
    /** AsyncSeries: after a failed call. */
    postToolUseFailure: instrument(new AsyncSeriesHook<[PostToolUseContext]>(["post"]), "build.postToolUseFailure", "isolate", sink),
    /** AsyncSeries: after host.executeBatch ran every call of a batch (PostToolBatch hooks: context, stop). */
    postToolBatch: instrument(new AsyncSeriesHook<[PostToolBatchContext]>(["batch"]), "build.postToolBatch", "isolate", sink),
    /** AsyncSeriesWaterfall: budget, truncate, headers. */
    shape: instrument(
      new AsyncSeriesWaterfallHook<[ToolResult, CallState]>(["result", "call"]),
      "build.shape",
      "isolate",
      sink,
    ),
    /** AsyncParallel: render and persist (transcripts, metrics). */
    persist: instrument(new AsyncParallelHook<[CallRecord]>(["record"]), "build.persist", "isolate", sink),
    /** Progress reported by a running tool. */
    progress: instrument(new SyncHook<[CallState, string, number | undefined]>(["call", "message", "fraction"]), "build.progress", "isolate", sink),
  };
}
export type BuildHooks = Readonly<ReturnType<typeof buildHookDefs>>;

export function createBuildHooks(sink: ProblemSink): BuildHooks {
  return Object.freeze(buildHookDefs(sink));
}

// ---------------------------------------------------------------------------------------------
// Per-plugin facades: a plugin only ever taps under its own id, so attribution cannot be faked.

type Tappable = {
  tap?: Function;
  tapAsync?: Function;
  tapPromise?: Function;
  isUsed?: Function;
  name?: string;
};

function forceName(options: unknown, id: string): Record<string, unknown> {
  if (typeof options === "string" || options == null) return { name: id };
  return { ...(options as Record<string, unknown>), name: id };
}

export function hookFacade<T extends Tappable>(hook: T, id: string, wrapFn?: (fn: Function) => Function): T {
  const f: Record<string, unknown> = { name: hook.name };
  const w = wrapFn ?? ((fn: Function) => fn);
  if (hook.tap) f.tap = (o: unknown, fn: Function) => (hook.tap as Function).call(hook, forceName(o, id), w(fn));
  if (hook.tapAsync) f.tapAsync = (o: unknown, fn: Function) => (hook.tapAsync as Function).call(hook, forceName(o, id), w(fn));
  if (hook.tapPromise) f.tapPromise = (o: unknown, fn: Function) => (hook.tapPromise as Function).call(hook, forceName(o, id), w(fn));
  if (hook.isUsed) f.isUsed = () => (hook.isUsed as Function).call(hook);
  return Object.freeze(f) as T;
}

export function hooksFacade<T extends Record<string, Tappable>>(hooks: T, id: string, wrap?: Partial<Record<keyof T, (fn: Function) => Function>>): T {
  const out: Record<string, unknown> = {};
  for (const [k, h] of Object.entries(hooks)) out[k] = hookFacade(h, id, wrap?.[k as keyof T]);
  return Object.freeze(out) as T;
}

// Re-export hook classes for plugins that own hooks of their own (webpack's getCompilationHooks pattern).
export { SyncHook, SyncBailHook, SyncWaterfallHook, AsyncParallelHook, AsyncSeriesHook, AsyncSeriesBailHook, AsyncSeriesWaterfallHook };
export type {
  SyncHookT,
  SyncBailHookT,
  SyncWaterfallHookT,
  AsyncParallelHookT,
  AsyncSeriesHookT,
  AsyncSeriesBailHookT,
  AsyncSeriesWaterfallHookT,
};
