/**
 * The one execution path. Every call, from every source (library, CLI, MCP, model tool_use,
 * ToolSearch-loaded tools), runs these stages of one Build, in order:
 *
 *   lookup → repairInput → validate (ajv) → validateInput → deny → permission → preToolUse
 *     (input changed? → validate + deny + permission again) → [ask → permissionRequest → onAsk]
 *     → call → postToolUse / postToolUseFailure → shape → notes appended → persist
 *
 * Decisions combine as deny > defer > ask > allow. A hook's allow never overrides a deny or an
 * explicit ask rule; it only skips the default prompt.
 */
import { randomUUID } from "node:crypto";
import { errorMessage, PluginError } from "./errors.ts";
import { TRACE, type BuildHooks, type TraceEntry, type Traced } from "./hooks.ts";
import type { Build } from "./build.ts";
import type { HostView } from "./plugin.ts";
import type { Session } from "./session.ts";
import { flag, textResult, type Tool, type ToolCallContext, type ToolResult, type ReadFilter } from "./tool.ts";

export type Behavior = "allow" | "deny" | "ask";

export interface Decision {
  behavior: Behavior;
  reason: string;
  /** The rule text that decided ("Bash(rm *)", "mode: plan", "hook: guard.sh"). */
  rule?: string;
  /** Plugin that owns the rule or made the decision. */
  plugin?: string;
  file?: string;
  /** True when an explicit rule decided (an explicit ask is never skipped by a hook's allow). */
  explicit?: boolean;
}

export type AskAnswer = "allow" | "deny" | "allowAlways" | { behavior: "allow" | "deny"; message?: string; updatedInput?: Record<string, unknown> };

export type CallSource = "library" | "cli" | "mcp" | "model" | "batch";

export interface CallState extends Traced {
  readonly toolUseId: string;
  readonly sessionId: string;
  readonly session: Session;
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

export type HookDecision = "allow" | "deny" | "ask" | "defer";

export interface PreToolUseContext extends Traced {
  readonly call: CallState;
  /** The input as it stands after earlier handlers. */
  readonly input: any;
  /** Record a decision; decisions combine as deny > defer > ask > allow. */
  decide(decision: HookDecision, reason: string, source: string): void;
  /** Replace the input seen by later handlers and by the tool (re-validated and deny-checked). */
  updateInput(input: Record<string, unknown>, source: string): void;
  /** Return this result instead of calling the tool. */
  substitute(result: ToolResult | string, source: string): void;
  /** Add text after the tool's result. */
  addContext(text: string, source: string): void;
  readonly decisions: ReadonlyArray<{ decision: HookDecision; reason: string; source: string }>;
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

export interface ExecuteOptions {
  sessionId?: string;
  toolUseId?: string;
  source?: CallSource;
  dryRun?: boolean;
  signal?: AbortSignal;
  /** Answer an "ask"; without it (and without `yes`) an ask is not executed. */
  onAsk?: (req: AskRequest) => AskAnswer | Promise<AskAnswer>;
  /** Approve every ask (CLI --yes). Deny rules still apply. */
  yes?: boolean;
  /** Call a deferred tool by exact name without a prior ToolSearch (a person naming it, e.g. the CLI). */
  autoLoadDeferred?: boolean;
  timeoutMs?: number;
  /** Output budget for this call in characters (overrides per-tool and config budgets). */
  maxOutputChars?: number;
  onProgress?: (message: string, fraction?: number) => void;
}

export interface AskRequest {
  tool: string;
  input: unknown;
  decision: Decision;
  sessionId: string;
}

export type OutcomeStatus = "ok" | "tool-error" | "denied" | "blocked" | "not-approved" | "unknown-tool" | "invalid-input" | "dry-run";

export interface ExecuteOutcome {
  tool: string;
  /** The call's tool_use id (given in ExecuteOptions, or generated). */
  toolUseId: string;
  decision: Behavior;
  executed: boolean;
  status: OutcomeStatus;
  reason?: string;
  /** The rule/plugin/file behind a deny or ask. */
  rule?: string;
  plugin?: string;
  file?: string;
  input?: unknown;
  result: ToolResult;
  trace: TraceEntry[];
  generation: number;
  /** host.executeBatch, on the batch's last outcome: a PostToolBatch hook asked the agent loop to stop, and why. */
  batchStop?: string;
}

const HOOK_RANK: Record<HookDecision, number> = { allow: 1, ask: 2, defer: 3, deny: 4 };

export class Executor {
  constructor(
    private readonly build: Build,
    private readonly host: HostView,
    private readonly onAllowAlways: (tool: Tool, input: unknown) => void,
  ) {}

  async execute(name: string, rawInput: unknown, opts: ExecuteOptions = {}): Promise<ExecuteOutcome> {
    const session = this.host.session(opts.sessionId);
    const trace: TraceEntry[] = [];
    const ac = new CallAbort();
    // interruptBehavior "block": a user interrupt does not stop the tool (only its timeout does).
    const onOuterAbort = () => {
      if (call.tool?.interruptBehavior !== "block" || !call.calling) ac.abort(opts.signal?.reason);
      else call.notes.push(`${call.tool.name} kept running after an interrupt (interruptBehavior: block).`);
    };
    opts.signal?.addEventListener("abort", onOuterAbort, { once: true });
    const call = new Call(trace, opts.toolUseId ?? newToolUseId(), session, name, rawInput, this.host, this.build.generation, opts, ac, this.build.hooks.readFilter);
    try {
      const outcome = await this.run(call, opts, ac);
      if (tapped(this.build.hooks.persist)) await this.build.hooks.persist.promise({ call, outcome });
      return outcome;
    } finally {
      opts.signal?.removeEventListener("abort", onOuterAbort);
    }
  }

  private async run(call: Call, opts: ExecuteOptions, ac: CallAbort): Promise<ExecuteOutcome> {
    const hooks = this.build.hooks;
    const pool = this.build.pool!;
    /** Record a stage in the trace; returns the time, the next stage's start. */
    const mark = (stage: string, t0: number, outcome?: string, detail?: unknown): number => {
      const t = performance.now();
      call[TRACE].push({ stage, plugin: "toolhost", ms: t - t0, outcome, detail });
      return t;
    };
    const finish = (o: Partial<ExecuteOutcome> & Pick<ExecuteOutcome, "status" | "result">): ExecuteOutcome => ({
      tool: call.tool?.name ?? call.requestedName,
      toolUseId: call.toolUseId,
      decision: o.decision ?? (o.status === "ok" || o.status === "tool-error" || o.status === "dry-run" ? "allow" : "deny"),
      executed: o.executed ?? false,
      input: call.input,
      trace: call[TRACE],
      generation: call.generation,
      ...o,
    });
    const refuse = (status: OutcomeStatus, msg: string, d?: Decision): ExecuteOutcome =>
      finish({ status, reason: msg, rule: d?.rule, plugin: d?.plugin, file: d?.file, decision: d?.behavior === "ask" ? "ask" : "deny", result: textResult(msg, true) });

    // 1. lookup
    let t0 = performance.now();
    const name = call.requestedName;
    let tool = pool.byName.get(name) ?? [...pool.byName.values()].find((t) => t.aliases?.includes(name));
    if (!tool) {
      try {
        tool = hooks.lookup.call(name, call);
      } catch (e) {
        return refuse("unknown-tool", errorMessage(e));
      }
    }
    if (!tool) {
      mark("lookup", t0, "unknown");
      const excluded = pool.excluded.find((x) => x.name === name);
      const msg = excluded
        ? `Tool "${name}" is not available: ${excluded.reason}${excluded.rule ? ` (rule ${excluded.rule}${excluded.plugin ? `, plugin ${excluded.plugin}` : ""}${excluded.file ? `, ${excluded.file}` : ""})` : ""}.`
        : `No such tool "${name}".${didYouMean(name, [...pool.byName.keys()])} Available tools: ${pool.tools.map((t) => t.name).join(", ")}.`;
      if (excluded) return refuse("denied", msg, { behavior: "deny", reason: excluded.reason, rule: excluded.rule, plugin: excluded.plugin, file: excluded.file });
      return refuse("unknown-tool", msg);
    }
    const deferred = pool.deferral.get(tool.name)?.defer === true;
    if (deferred && !call.session.isLoaded(tool.name)) {
      if (opts.autoLoadDeferred) call.session.load([tool.name]);
      else {
        mark("lookup", t0, "deferred-not-loaded");
        return refuse(
          "unknown-tool",
          `Tool "${tool.name}" is deferred and its schema is not loaded yet. Call ToolSearch with {"query": "select:${tool.name}"} first, then call it again.`,
        );
      }
    }
    call.tool = tool;
    t0 = mark("lookup", t0, "found", { tool: tool.name, origin: tool.origin, plugin: tool.plugin, deferred });

    // 2. repair input
    call.input = tapped(hooks.repairInput) ? hooks.repairInput.call(call.rawInput, call) : call.rawInput;
    mark("repairInput", t0);

    // 3-5. validate, validateInput, deny, permission (again after a PreToolUse rewrite). Synchronous
    // while every step answers synchronously (the common case), so no promise per stage; a step that
    // returns a promise makes the rest of the check asynchronous.
    const decided = (d: Decision | undefined): ExecuteOutcome | undefined => {
      call.decision = d ?? { behavior: "ask", reason: "no rule allows this call" };
      if (call.decision.behavior === "deny") return refuse("denied", denialText(tool!.name, call.decision), call.decision);
      return undefined;
    };
    const denied = (d: Decision | undefined): MaybePromise<ExecuteOutcome | undefined> => {
      if (d && d.behavior === "deny") {
        call.decision = d;
        return refuse("denied", denialText(tool!.name, d), d);
      }
      const p = bailDecision(hooks.permission, call, "permission");
      return isPromise(p) ? p.then(decided) : decided(p);
    };
    const validated = (msg: string | undefined, t1: number): MaybePromise<ExecuteOutcome | undefined> => {
      mark("validateInput", t1, msg ? "rejected" : "ok");
      if (msg) return refuse("invalid-input", `Invalid input for ${tool!.name}: ${msg}`);
      const d = bailDecision(hooks.deny, call, "deny");
      return isPromise(d) ? d.then(denied) : denied(d);
    };
    const check = (): MaybePromise<ExecuteOutcome | undefined> => {
      const v = this.validate(call);
      if (v) return refuse("invalid-input", v);
      if (tool!.normalizeInput) call.input = tool!.normalizeInput(call.input, { cwd: call.cwd });
      const t1 = performance.now();
      let own: string | undefined | Promise<string | undefined>;
      try {
        own = tool!.validateInput?.(call.input, { cwd: call.cwd });
      } catch (e) {
        own = errorMessage(e);
      }
      if (isPromise(own) || (own == null && tapped(hooks.validateInput))) {
        const pending = own;
        return (async () => {
          let msg: string | undefined;
          try {
            msg = (await pending) ?? (tapped(hooks.validateInput) ? await hooks.validateInput.promise(call) : undefined);
          } catch (e) {
            msg = errorMessage(e);
          }
          return validated(msg, t1);
        })();
      }
      return validated(own, t1);
    };
    const first = check();
    const early = isPromise(first) ? await first : first;
    if (early) return early;

    // 6. PreToolUse (no context object when nothing is tapped)
    let substitute: ToolResult | undefined;
    let inputChanged = false;
    let top: { decision: HookDecision; reason: string; source: string } | undefined;
    if (tapped(hooks.preToolUse)) {
      const decisions: Array<{ decision: HookDecision; reason: string; source: string }> = [];
      const pre: PreToolUseContext = {
        [TRACE]: call[TRACE],
        call,
        get input() {
          return call.input;
        },
        decide: (decision, reason, source) => decisions.push({ decision, reason, source }),
        updateInput: (input, source) => {
          call.input = input;
          inputChanged = true;
          call[TRACE].push({ stage: "preToolUse.updateInput", plugin: source, ms: 0, outcome: "input-updated" });
        },
        substitute: (r, source) => {
          substitute = typeof r === "string" ? textResult(r) : r;
          call[TRACE].push({ stage: "preToolUse.substitute", plugin: source, ms: 0, outcome: "substituted" });
        },
        addContext: (text) => call.notes.push(text),
        decisions,
      };
      try {
        await hooks.preToolUse.promise(pre);
      } catch (e) {
        const d = failClosed(e, "preToolUse");
        return refuse("blocked", denialText(tool.name, d), d);
      }
      top = decisions.reduce<(typeof decisions)[number] | undefined>((a, b) => (!a || HOOK_RANK[b.decision] > HOOK_RANK[a.decision] ? b : a), undefined);
    }
    if (top?.decision === "deny") {
      const d: Decision = { behavior: "deny", reason: top.reason || "blocked by a PreToolUse hook", rule: `PreToolUse hook`, plugin: top.source };
      return refuse("blocked", `PreToolUse hook (${top.source}) blocked ${tool.name}: ${d.reason}`, d);
    }
    if (inputChanged) {
      const again = await check();
      if (again) return again;
    }
    let decision = call.decision!;
    if (top && (top.decision === "ask" || top.decision === "defer")) {
      decision = { behavior: "ask", reason: top.reason || `a PreToolUse hook asks for approval`, rule: "PreToolUse hook", plugin: top.source, explicit: true };
    } else if (top?.decision === "allow" && decision.behavior === "ask" && !decision.explicit) {
      decision = { behavior: "allow", reason: top.reason || "allowed by a PreToolUse hook", rule: "PreToolUse hook", plugin: top.source };
    }

    // 7. ask → PermissionRequest hooks → onAsk / --yes
    if (decision.behavior === "ask") {
      const t1 = performance.now();
      let answer: AskAnswer | undefined = await hooks.permissionRequest.promise(call, decision);
      if (answer === undefined && opts.onAsk) answer = await opts.onAsk({ tool: tool.name, input: call.input, decision, sessionId: call.sessionId });
      if (answer === undefined && opts.yes) answer = "allow";
      mark("ask", t1, typeof answer === "object" ? answer.behavior : answer ?? "unanswered");
      const behavior = typeof answer === "object" ? answer.behavior : answer;
      if (typeof answer === "object" && answer.updatedInput) {
        call.input = answer.updatedInput;
        const again = await check();
        if (again) return again;
      }
      if (behavior === "allowAlways") this.onAllowAlways(tool, call.input);
      if (behavior !== "allow" && behavior !== "allowAlways") {
        const why =
          behavior === "deny"
            ? `${tool.name} was not approved${typeof answer === "object" && answer.message ? `: ${answer.message}` : ""}.`
            : `${tool.name} needs approval (${decision.reason}) and there is no one to ask; re-run with --yes or pass onAsk.`;
        return finish({ status: "not-approved", decision: "ask", reason: why, rule: decision.rule, plugin: decision.plugin, file: decision.file, result: textResult(why, true) });
      }
    }

    if (call.dryRun) {
      return finish({ status: "dry-run", decision: decision.behavior === "ask" ? "ask" : "allow", reason: decision.reason, rule: decision.rule, plugin: decision.plugin, file: decision.file, result: textResult(`[dry run] ${tool.name} would run`) });
    }

    // 8. call
    let result: ToolResult;
    let error: string | undefined;
    t0 = performance.now();
    if (substitute) result = substitute;
    else {
      const timeoutMs = opts.timeoutMs ?? tool.timeoutMs;
      call.calling = true;
      if (opts.signal?.aborted && tool.interruptBehavior !== "block") ac.abort(opts.signal.reason);
      const timer = timeoutMs ? setTimeout(() => ac.abort(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs) : undefined;
      try {
        const res =
          (tapped(hooks.call) ? await hooks.call.promise(call) : undefined) ??
          (await raceAbort(tool.call(call.input, new ToolContext(call, tool, ac, hooks.progress, opts.onProgress)), ac));
        result = normalizeResult(res);
        if (result.isError) error = resultTextOf(result);
      } catch (e) {
        error = ac.aborted ? `${tool.name} was interrupted: ${errorMessage(ac.reason)}` : `${tool.name} failed: ${errorMessage(e)}`;
        result = textResult(error, true);
      } finally {
        if (timer) clearTimeout(timer);
      }
    }
    mark("call", t0, result.isError ? "error" : "ok");

    // 9. PostToolUse / PostToolUseFailure (no context object when nothing is tapped)
    const postHook = error ? hooks.postToolUseFailure : hooks.postToolUse;
    if (tapped(postHook)) {
      const post: PostToolUseContext = {
        [TRACE]: call[TRACE],
        call,
        result,
        error,
        block: (reason) => call.notes.push(`PostToolUse hook feedback: ${reason}`),
        addContext: (text) => call.notes.push(text),
        updateOutput: (r) => {
          post.result = typeof r === "string" ? { ...post.result, content: [{ type: "text", text: r }] } : r;
        },
      };
      await postHook.promise(post);
      result = post.result;
    }

    // 10. shape, then notes after the shaped result
    let shaped = result;
    if (tapped(hooks.shape)) {
      const r = runWaterfall(hooks.shape, result, call);
      shaped = isPromise(r) ? await r : r;
    }
    if (call.notes.length) shaped = { ...shaped, content: [...shaped.content, { type: "text", text: call.notes.join("\n") }] };
    return finish({
      status: shaped.isError ? "tool-error" : "ok",
      executed: !substitute,
      decision: "allow",
      reason: decision.reason,
      rule: decision.rule,
      plugin: decision.plugin,
      result: shaped,
    });
  }

  /** Schema validation with messages a model can act on: which field, what was expected, what came. */
  private validate(call: CallState): string | undefined {
    const t0 = performance.now();
    const tool = call.tool!;
    const v = this.build.validators.get(tool.name);
    if (!v) return undefined;
    if (call.input === undefined || call.input === null) call.input = {};
    if (typeof call.input !== "object" || Array.isArray(call.input)) {
      call[TRACE].push({ stage: "validate", plugin: "toolhost", ms: performance.now() - t0, outcome: "invalid" });
      return `Invalid input for ${tool.name}: expected a JSON object, got ${describeValue(call.input)}.`;
    }
    call.input = cloneInput(call.input);
    const ok = v(call.input);
    call[TRACE].push({ stage: "validate", plugin: "toolhost", ms: performance.now() - t0, outcome: ok ? "ok" : "invalid" });
    if (ok) return undefined;
    const msgs = (v.errors ?? []).slice(0, 5).map((e) => {
      const field = e.instancePath ? e.instancePath.slice(1).replace(/\//g, ".") : "";
      const got = e.instancePath ? pick(call.input, e.instancePath) : call.input;
      switch (e.keyword) {
        case "required":
          return `missing required field "${(e.params as { missingProperty: string }).missingProperty}"`;
        case "additionalProperties":
          return `unexpected field "${(e.params as { additionalProperty: string }).additionalProperty}" (allowed: ${Object.keys((tool.inputSchema.properties as object) ?? {}).join(", ") || "none"})`;
        case "type":
          return `field "${field}" must be ${(e.params as { type: string }).type}, got ${describeValue(got)}`;
        case "enum":
          return `field "${field}" must be one of ${JSON.stringify((e.params as { allowedValues: unknown[] }).allowedValues)}, got ${describeValue(got)}`;
        default:
          return `field "${field || "(input)"}" ${e.message}`;
      }
    });
    return `Invalid input for ${tool.name}: ${msgs.join("; ")}.`;
  }
}

function failClosed(e: unknown, stage: string): Decision {
  const plugin = e instanceof PluginError ? e.plugin : undefined;
  return { behavior: "deny", reason: `${stage} check failed, so the call is denied (fail closed): ${errorMessage(e)}`, rule: `${stage} error`, plugin };
}

export function denialText(tool: string, d: Decision): string {
  const where = [d.rule && `rule ${d.rule}`, d.plugin && `plugin ${d.plugin}`, d.file].filter(Boolean).join(", ");
  return `Permission to use ${tool} was denied: ${d.reason}${where ? ` (${where})` : ""}.`;
}

// Hot path helpers (bench/mcp.ts measures the pipeline's per-call cost).
/** A hook with no taps does nothing: skip the call and its promise (tapable's isUsed() counts interceptors). */
function tapped(hook: object): boolean {
  return ((hook as { taps?: unknown[] }).taps?.length ?? 0) > 0;
}
const ID_PREFIX = randomUUID().replace(/-/g, "").slice(0, 12);
let idCounter = 0;
/** Unique per process and call, 24 characters after `toolu_` like before, without a UUID per call. */
function newToolUseId(): string {
  return `toolu_${ID_PREFIX}${(++idCounter).toString(36).padStart(12, "0")}`;
}

/** Deep copy of JSON-like input (what models and MCP clients send); anything else goes to structuredClone. */
function cloneInput<T>(v: T): T {
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) return v.map(cloneInput) as T;
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return structuredClone(v);
  const out: Record<string, unknown> = {};
  for (const k in v) {
    const x = cloneInput((v as Record<string, unknown>)[k]);
    if (k === "__proto__") Object.defineProperty(out, k, { value: x, enumerable: true, writable: true, configurable: true });
    else out[k] = x;
  }
  return out as T;
}

type MaybePromise<T> = T | Promise<T>;
function isPromise<T>(v: MaybePromise<T>): v is Promise<T> {
  return !!v && typeof (v as Promise<T>).then === "function";
}

/**
 * Direct tap dispatch for the per-call stages. tapable's `promise()` builds a Promise and a
 * continuation chain on every call even when every tap answers synchronously (the permission
 * plugin's deny/permission taps, shaping's annotate tap). These runners call the registered tap
 * functions in tapable's order — each already wrapped by `instrument` (attribution, trace entry,
 * failure policy) — synchronously until a tap returns a promise. They fall back to tapable when a
 * hook has callback-style taps or interceptors other than `register` (which only wraps taps).
 */
interface DirectHook {
  taps: Array<{ type: string; fn: (...args: unknown[]) => unknown }>;
  interceptors: Array<Record<string, unknown>>;
  promise(...args: unknown[]): Promise<unknown>;
}
function directOk(h: DirectHook): boolean {
  for (const t of h.taps) if (t.type !== "sync" && t.type !== "promise") return false;
  for (const i of h.interceptors) if (i.call || i.tap || i.loop || i.result || i.error || i.done || i.context) return false;
  return true;
}
function tapResult(tap: { type: string; fn: (...args: unknown[]) => unknown }, r: unknown): unknown {
  if (tap.type === "promise" && !isPromise(r)) throw new Error(`Tap function (tapPromise) did not return promise (returned ${String(r)})`);
  return r;
}
/** AsyncSeriesBail with one argument: the first non-undefined answer. */
function runBail<R>(hook: object, arg: unknown): MaybePromise<R | undefined> {
  const h = hook as DirectHook;
  if (!directOk(h)) return h.promise(arg) as Promise<R | undefined>;
  return bailFrom<R>(h.taps, 0, arg);
}
function bailFrom<R>(taps: DirectHook["taps"], from: number, arg: unknown): MaybePromise<R | undefined> {
  for (let i = from; i < taps.length; i++) {
    const tap = taps[i]!;
    const r = tapResult(tap, tap.fn(arg));
    if (tap.type === "promise") return (r as Promise<R | undefined>).then((v) => (v !== undefined ? v : bailFrom<R>(taps, i + 1, arg)));
    if (r !== undefined) return r as R;
  }
  return undefined;
}
/** AsyncSeriesWaterfall with two arguments: each answer (unless undefined) replaces the value. */
function runWaterfall<T>(hook: object, value: T, rest: unknown): MaybePromise<T> {
  const h = hook as DirectHook;
  if (!directOk(h)) return h.promise(value, rest) as Promise<T>;
  return waterfallFrom(h.taps, 0, value, rest);
}
function waterfallFrom<T>(taps: DirectHook["taps"], from: number, value: T, rest: unknown): MaybePromise<T> {
  for (let i = from; i < taps.length; i++) {
    const tap = taps[i]!;
    const r = tapResult(tap, tap.fn(value, rest));
    if (tap.type === "promise") return (r as Promise<T | undefined>).then((v) => waterfallFrom(taps, i + 1, v !== undefined ? v : value, rest));
    if (r !== undefined) value = r as T;
  }
  return value;
}
/** deny / permission: a throw or rejection fails closed. */
function bailDecision(hook: object, call: CallState, stage: string): MaybePromise<Decision | undefined> {
  let d: MaybePromise<Decision | undefined>;
  try {
    d = runBail<Decision>(hook, call);
  } catch (e) {
    return failClosed(e, stage);
  }
  return isPromise(d) ? d.catch((e: unknown) => failClosed(e, stage)) : d;
}

/** A call's state: a class, so every call has the same shape (cheaper than an object literal with a getter). */
class Call implements CallState {
  [TRACE]: TraceEntry[];
  readonly sessionId: string;
  tool?: Tool = undefined;
  input: any;
  readonly mode: string;
  readonly cwd: string;
  readonly source: CallSource;
  readonly dryRun: boolean;
  decision?: Decision = undefined;
  readonly notes: string[] = [];
  private dataMap?: Map<string, unknown> = undefined;
  /** Set when the tool itself is being called (interruptBehavior "block" keeps it running). */
  calling = false;
  readonly startedAt = Date.now();
  readonly maxOutputChars?: number;
  constructor(
    trace: TraceEntry[],
    readonly toolUseId: string,
    readonly session: Session,
    readonly requestedName: string,
    readonly rawInput: unknown,
    readonly host: HostView,
    readonly generation: number,
    opts: ExecuteOptions,
    private readonly cancellation: CallAbort,
    private readonly readFilterHook: BuildHooks["readFilter"],
  ) {
    this[TRACE] = trace;
    this.sessionId = session.id;
    this.input = rawInput;
    this.mode = host.mode;
    this.cwd = host.cwd;
    this.source = opts.source ?? "library";
    this.dryRun = !!opts.dryRun;
    this.maxOutputChars = opts.maxOutputChars;
  }
  readFilter(): ReadFilter | undefined {
    return this.readFilterHook.isUsed() ? this.readFilterHook.call(undefined, this) : undefined;
  }
  private workDir?: { input: unknown; dir: string } = undefined;
  /** Computed on first read, and again if a PreToolUse hook or an approval replaced the input. */
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
  /** Created on first use: most calls never use it. */
  get data(): Map<string, unknown> {
    return (this.dataMap ??= new Map());
  }
  /** Created on first use (most calls never read it before the tool runs; see CallAbort). */
  get signal(): AbortSignal {
    return this.cancellation.signal;
  }
}

/**
 * A call's cancellation, cheap on the hot path: creating an AbortController/AbortSignal per call costs
 * microseconds in Node, and many calls never read their signal (in-process tools that finish at once,
 * refused calls). So the call's own AbortController is created on the first read of `call.signal`
 * (already aborted if the call was aborted before). It stays one signal per call (never the caller's
 * signal itself: listeners a tool leaves on it, like the MCP SDK's, must not pile up on a long-lived
 * caller signal). An abort also rejects the pending call promise (raceAbort), so the tool is raced
 * without a listener per call; tools that only need to be told use ToolCallContext.onAbort (no signal).
 */
class CallAbort {
  private ac?: AbortController;
  /** Rejects the pending tool call's race (raceAbort), if one is pending. */
  rejectPending?: (e: unknown) => void = undefined;
  private listeners?: Array<(reason: unknown) => void> = undefined;
  aborted = false;
  reason: unknown;

  /** ToolCallContext.onAbort: no AbortSignal needed. */
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

/** The context a tool is called with: a class (one shape per call; `signal` is created on first read). */
class ToolContext implements ToolCallContext {
  readonly cwd: string;
  readonly sessionId: string;
  readonly toolUseId: string;
  readonly state: Map<string, unknown>;
  readonly sessionState: Map<string, unknown>;
  constructor(
    private readonly call: Call,
    tool: Tool,
    private readonly cancellation: CallAbort,
    private readonly progressHook: BuildHooks["progress"],
    private readonly onProgress: ExecuteOptions["onProgress"],
  ) {
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
    this.cancellation.onAbort(listener);
  }
  progress(message: string, fraction?: number): void {
    this.progressHook.call(this.call, message, fraction);
    this.onProgress?.(message, fraction);
  }
  readFilter(): ReadFilter | undefined {
    return this.call.readFilter();
  }
}

function raceAbort<T>(v: T | Promise<T>, ac: CallAbort): Promise<T> {
  if (ac.aborted) return Promise.reject(ac.reason);
  if (!v || typeof (v as Promise<T>).then !== "function") return Promise.resolve(v);
  // One promise settled by whichever comes first (cheaper than Promise.race with a per-call abort promise).
  return new Promise<T>((resolve, reject) => {
    ac.rejectPending = reject;
    (v as Promise<T>).then(resolve, reject);
  });
}

export function normalizeResult(r: unknown): ToolResult {
  if (typeof r === "string") return textResult(r);
  if (r && typeof r === "object" && Array.isArray((r as ToolResult).content)) return r as ToolResult;
  if (r === undefined || r === null) return textResult("");
  return { content: [{ type: "text", text: JSON.stringify(r, null, 2) }], structuredContent: typeof r === "object" ? (r as Record<string, unknown>) : undefined };
}

function resultTextOf(r: ToolResult): string {
  return r.content.map((c) => c.text ?? "").join("\n");
}

function describeValue(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "string") return `the string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + "…" : v)}`;
  if (typeof v === "object") return "an object";
  return `${typeof v} ${String(v)}`;
}

function pick(obj: unknown, pointer: string): unknown {
  let cur = obj as Record<string, unknown> | undefined;
  for (const part of pointer.split("/").slice(1)) cur = cur?.[part] as Record<string, unknown> | undefined;
  return cur;
}

function didYouMean(name: string, names: string[]): string {
  const lower = name.toLowerCase();
  const hit = names.find((n) => n.toLowerCase() === lower) ?? names.find((n) => n.toLowerCase().endsWith(`__${lower}`));
  return hit ? ` Did you mean "${hit}"?` : "";
}

export { flag };
