/**
 * One call's state (CallState), its cancellation and the context its tool runs with. Classes, so every
 * call has the same shape; what most calls never use (data, the AbortSignal) is made on first read.
 */
import { randomUUID } from "node:crypto";
import { TRACE, type BuildHooks, type CallSource, type CallState, type Decision, type ExecuteOptions, type HookDecision, type HostConfig, type HostView, type PoolSnapshot, type ReadFilter, type SessionData, type StopSignal, type Tool, type ToolCallContext, type ToolResult, type TraceEntry } from "../types.ts";
import type { ValidateFunction } from "ajv";

/** What a call needs of its Build: frozen at the Build's creation, never the next generation's. */
export interface CallBuild {
  readonly generation: number;
  readonly hooks: BuildHooks;
  readonly pool: PoolSnapshot;
  readonly mode: string;
  readonly cwd: string;
  readonly config: Readonly<HostConfig>;
  validator(tool: Tool): ValidateFunction | undefined;
  /** The same schema without type coercion, for rewrites (compiled on first use). */
  strictValidator?(tool: Tool): ValidateFunction | undefined;
  /** Hand an "allow always" answer to whoever stores rules (host.addPermissionRule). */
  allowAlways(tool: Tool, input: unknown, sessionId?: string): void;
}

const ID_PREFIX = randomUUID().replace(/-/g, "").slice(0, 12);
let idCounter = 0;
/** Unique per process and call, 24 characters after `toolu_`, without a UUID per call. */
export function newToolUseId(): string {
  return `toolu_${ID_PREFIX}${(++idCounter).toString(36).padStart(12, "0")}`;
}

export class Call implements CallState {
  [TRACE]: TraceEntry[] = [];
  readonly sessionId: string;
  tool?: Tool = undefined;
  input: any;
  readonly mode: string;
  readonly cwd: string;
  readonly config: Readonly<HostConfig>;
  readonly generation: number;
  readonly source: CallSource;
  readonly dryRun: boolean;
  decision?: Decision = undefined;
  readonly notes: string[] = [];
  readonly startedAt = Date.now();
  readonly maxOutputChars?: number;
  readonly cancellation = new CallAbort();
  /** Set while the tool itself runs (interruptBehavior "block" keeps it running on an interrupt). */
  calling = false;
  /** Pipeline state between stages. */
  substitute?: ToolResult = undefined;
  inputChanged = false;
  /** Who last rewrote the input (a PreToolUse hook, an approval's updatedInput): named when the rewrite fails the schema. */
  rewrittenBy?: string = undefined;
  verdict?: { decision: HookDecision; reason: string; source: string; rule?: string; file?: string } = undefined;
  result?: ToolResult = undefined;
  error?: string = undefined;
  /** A hook asked the agent to stop (the first one wins); becomes ExecuteOutcome.stop. */
  stopSignal?: StopSignal = undefined;
  /** When the last stage mark was taken (the next stage's start). */
  t = performance.now();
  private dataMap?: Map<string, unknown> = undefined;
  private workDir?: { input: unknown; dir: string } = undefined;

  constructor(
    readonly build: CallBuild,
    readonly host: HostView,
    readonly session: SessionData,
    readonly requestedName: string,
    readonly rawInput: unknown,
    readonly opts: ExecuteOptions,
    readonly toolUseId: string = opts.toolUseId ?? newToolUseId(),
  ) {
    this.sessionId = session.id;
    this.input = rawInput;
    this.mode = build.mode;
    this.cwd = build.cwd;
    this.config = build.config;
    this.generation = build.generation;
    this.source = opts.source ?? "library";
    this.dryRun = !!opts.dryRun;
    this.maxOutputChars = opts.maxOutputChars;
  }

  /** Record a core stage in the trace, timed from the previous mark. */
  mark(stage: string, outcome?: string, detail?: unknown): void {
    const t = performance.now();
    this[TRACE].push({ stage, plugin: "toolhost", ms: t - this.t, outcome, detail });
    this.t = t;
  }
  /** Record a hook's stop request (first wins) with a trace entry. */
  requestStop(s: StopSignal): void {
    this.stopSignal ??= s;
    this[TRACE].push({ stage: `${s.event}.stop`, plugin: s.source, ms: 0, outcome: "stop", detail: { reason: s.reason, kind: s.kind } });
  }
  readFilter(): ReadFilter | undefined {
    const h = this.build.hooks.readFilter;
    return h.isUsed() ? h.call(undefined, this) : undefined;
  }
  /** Created on first use: most calls never use it. */
  get data(): Map<string, unknown> {
    return (this.dataMap ??= new Map());
  }
  get signal(): AbortSignal {
    return this.cancellation.signal;
  }
  /** The tool's workingDirectory facet for the current input (again if a hook replaced the input), else cwd. */
  get workingDirectory(): string {
    const t = this.tool;
    if (!t?.workingDirectory) return this.cwd;
    if (this.workDir?.input !== this.input) {
      let dir: string | undefined;
      try {
        dir = t.workingDirectory(this.input, { cwd: this.cwd, sessionState: this.session.shared });
      } catch {
        dir = undefined;
      }
      this.workDir = { input: this.input, dir: dir || this.cwd };
    }
    return this.workDir!.dir;
  }
}

/**
 * A call's cancellation, cheap on the hot path: the AbortController is made on the first read of
 * `signal` (already aborted if the call was). It is one signal per call, never the caller's own (a
 * tool's listeners must not pile up on a long-lived caller signal). An abort also rejects the pending
 * tool promise (raceAbort); tools that only need to be told use ToolCallContext.onAbort.
 */
export class CallAbort {
  private ac?: AbortController = undefined;
  rejectPending?: (e: unknown) => void = undefined;
  private listeners?: Array<(reason: unknown) => void> = undefined;
  aborted = false;
  reason: unknown;

  onAbort(listener: (reason: unknown) => void): void {
    if (this.aborted) listener(this.reason);
    else (this.listeners ??= []).push(listener);
  }
  get signal(): AbortSignal {
    if (!this.ac) {
      this.ac = new AbortController();
      if (this.aborted) this.ac.abort(this.reason);
    }
    return this.ac.signal;
  }
  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = this.ac ? reason : reason === undefined ? new DOMException("This operation was aborted", "AbortError") : reason;
    if (this.ac) {
      this.ac.abort(reason);
      this.reason = this.ac.signal.reason;
    }
    this.rejectPending?.(this.reason);
    const ls = this.listeners;
    this.listeners = undefined;
    if (ls) for (const l of ls) l(this.reason);
  }
}

/** The context a tool is called with (one shape per call; `signal` is made on first read). */
export class ToolContext implements ToolCallContext {
  readonly cwd: string;
  readonly sessionId: string;
  readonly toolUseId: string;
  readonly state: Map<string, unknown>;
  readonly sessionState: Map<string, unknown>;
  constructor(private readonly call: Call, tool: Tool) {
    this.cwd = call.cwd;
    this.sessionId = call.sessionId;
    this.toolUseId = call.toolUseId;
    this.state = call.session.stateFor(tool.name);
    this.sessionState = call.session.shared;
  }
  get signal(): AbortSignal {
    return this.call.signal;
  }
  onAbort(listener: (reason: unknown) => void): void {
    this.call.cancellation.onAbort(listener);
  }
  progress(message: string, fraction?: number): void {
    this.call.build.hooks.progress.call(this.call, message, fraction);
    this.call.opts.onProgress?.(message, fraction);
  }
  readFilter(): ReadFilter | undefined {
    return this.call.readFilter();
  }
  service<T = unknown>(name: string): T | undefined {
    return this.call.host.service<T>(name);
  }
}
