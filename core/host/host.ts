/**
 * The long-lived Host: config, discovery, plugin lifecycle, the one rebuild path (rebuild.ts) and the
 * entry to the one execution path (call/pipeline.ts). Public methods only; it declares and sequences.
 */
import path from "node:path";
import { ToolhostError, type ProblemReport } from "../errors.ts";
import { executeCall } from "../call/pipeline.ts";
import { executeBatch, type BatchCall } from "../call/batch.ts";
import { tapped } from "../hooks/dispatch.ts";
import { endTurn, noteTurnCall, runSessionEvent } from "./events.ts";
import { explainTool, type Explanation } from "../../lib/explain.ts";
import { createHostHooks } from "../hooks/create.ts";
import type { SessionEventInputs, SessionEventName, SessionEventOptions, SessionEventOutcome, TurnOutcome } from "../types.ts";
import type { ExecuteOptions, ExecuteOutcome, HostConfig, HostHooks, HostView, LoadedPlugin, Logger, ModeSource, PermissionRuleUpdate, PluginDefinition, PluginSource, PoolSnapshot, Tool } from "../types.ts";
import { Activator } from "./activate.ts";
import { Coalescer } from "./coalesce.ts";
import { rebuild } from "./rebuild.ts";
import { Session } from "./session.ts";
import type { HostOptions, HostState, RebuildResult } from "./state.ts";

export type { HostOptions, RebuildResult };
const noop = () => {};

export class Host {
  readonly hooks: HostHooks;
  readonly cwd: string;
  readonly log: Logger;
  private readonly state: HostState;
  private readonly sessions = new Map<string, Session>();
  private readonly queue: Coalescer<RebuildResult>;
  private closed = false;

  constructor(readonly options: HostOptions = {}) {
    this.cwd = path.resolve(options.cwd ?? process.cwd());
    const problems: ProblemReport[] = [];
    this.hooks = createHostHooks((p) => problems.push(p));
    const l = options.logger ?? {};
    this.log = { info: l.info ?? noop, warn: l.warn ?? noop, error: l.error ?? noop, debug: l.debug ?? noop };
    if (options.onStep) this.hooks.step.tap("host", options.onStep);
    const view = this.makeView();
    this.state = {
      options, cwd: this.cwd, hooks: this.hooks, view, log: this.log, hostProblems: problems,
      activator: new Activator(this.hooks, () => view, this.log, (p) => problems.push(p)),
      config: {}, loaded: [], loadProblems: [], generation: 0, mode: options.mode ?? "default", modeSource: { mode: "default", source: "default" }, modeLocks: [],
      watchedFiles: [], sources: [], allowAlways: (tool, input, sessionId) => this.allowAlways(tool, input, sessionId),
    };
    this.queue = new Coalescer((reason) => rebuild(this.state, reason), { debounceMs: options.debounceMs, maxWaitMs: options.maxWaitMs, onError: (m) => this.log.error(m) });
  }

  private makeView(): HostView {
    const self = this;
    return Object.freeze({
      cwd: this.cwd,
      get mode() {
        return self.state.mode;
      },
      get config() {
        return self.state.config;
      },
      plugins: () => self.state.loaded,
      pool: () => self.state.current?.pool,
      invalidate: (reason: string) => self.invalidate(reason),
      watchedFiles: () => self.state.watchedFiles,
      sources: () => self.state.sources,
      session: (id?: string) => self.session(id),
      addPermissionRule: (u: PermissionRuleUpdate) => self.hooks.addPermissionRule.call(u) === true,
      service: <T>(name: string) => self.state.activator.service<T>(name),
      log: this.log,
      options: this.options,
    });
  }

  get mode(): string {
    return this.state.mode;
  }
  /** Where the current permission mode came from (option, config, a settings file, setMode, or the default). */
  get modeSource(): ModeSource {
    return this.state.modeSource;
  }
  get pool(): PoolSnapshot {
    if (!this.state.current) throw new Error("host is not started: await createHost() or host.rebuild() first");
    return this.state.current.pool;
  }
  get plugins(): readonly LoadedPlugin[] {
    return this.state.loaded;
  }
  get hostConfig(): HostConfig {
    return this.state.config;
  }
  get watchedFiles(): string[] {
    return this.state.watchedFiles;
  }
  /** The plugin sources the last rebuild discovered (including ones that failed to load). */
  get sources(): readonly PluginSource[] {
    return this.state.sources;
  }

  /** A live object a plugin provided (`ctx.provide`), e.g. "mcp.connections"; undefined when none does. */
  service<T = unknown>(name: string): T | undefined {
    return this.state.activator.service<T>(name);
  }

  /** Every problem known now: config and manifests, plugin activation, the current build. */
  problems(): ProblemReport[] {
    return [...this.state.loadProblems, ...this.state.hostProblems, ...(this.state.current?.problems ?? [])];
  }

  session(id = "default"): Session {
    let s = this.sessions.get(id);
    if (!s) {
      this.sessions.set(id, (s = new Session(id, (sid) => this.hooks.sessionToolsChanged.call(sid))));
      if (tapped(this.hooks.sessionOpen)) {
        const opened = s;
        const done = () => void (opened.ready = undefined);
        s.ready = this.hooks.sessionOpen.promise(s).then(done, done);
      }
    }
    return s;
  }

  /** The session once its restore (host.hooks.sessionOpen: a store plugin) is done. */
  async openSession(id = "default"): Promise<Session> {
    const s = this.session(id);
    if (s.ready) await s.ready;
    return s;
  }

  /** Forget a session (its loaded deferred tools and scratch state); a later call with the id starts fresh. */
  endSession(id: string): boolean {
    return this.sessions.delete(id);
  }

  /** What the model sees in a session: eager tools, then deferred tools the session loaded, in load order. */
  visibleTools(sessionId?: string): Tool[] {
    const pool = this.pool;
    const loaded = this.session(sessionId).loaded.map((n) => pool.byName.get(n)).filter((t): t is Tool => !!t && pool.deferral.get(t.name)?.defer === true);
    return [...pool.tools, ...loaded];
  }

  /** Schedule a rebuild; bursts coalesce (host/coalesce.ts). */
  invalidate(reason: string): void {
    if (this.closed) return;
    this.hooks.invalid.call(reason);
    this.queue.invalidate(reason);
  }

  /** Run the one rebuild path now (serialised with any other rebuild). */
  rebuild(reason = "manual"): Promise<RebuildResult> {
    const cur = this.state.current;
    if (this.closed && cur) {
      const failure: ProblemReport = { plugin: "toolhost", path: "rebuild", message: "host is closed", severity: "error" };
      return Promise.resolve({ ok: false, pool: cur.pool, problems: [failure], failures: [failure], ms: 0 });
    }
    return this.queue.rebuild(reason);
  }

  // Not async and no options copy unless needed: this is every call's entry (bench/mcp.ts).
  execute(name: string, input: unknown, opts: ExecuteOptions = {}): Promise<ExecuteOutcome> {
    if (typeof opts !== "object" || opts === null) opts = {}; // bad options get an outcome (call/guard.ts), never a throw
    const build = this.state.current;
    if (!build) return Promise.reject(new Error("host is not started"));
    const onAsk = this.options.onAsk;
    const o = onAsk && !("onAsk" in opts) ? { onAsk, ...opts } : opts;
    const session = this.session(o.sessionId);
    const wait = session.ready ?? session.check?.();
    const p = wait ? wait.then(() => executeCall(build, this.state.view, session, name, input, o)) : executeCall(build, this.state.view, session, name, input, o);
    // Only when PostToolBatch hooks exist: the turn's calls wait for host.endTurn.
    return tapped(build.hooks.postToolBatch) ? p.then((out) => (noteTurnCall(session, out), out)) : p;
  }

  /**
   * Report a session or turn event (SessionStart, UserPromptSubmit, Stop, SubagentStop, PreCompact,
   * Notification, SessionEnd …): its hooks run with Claude Code's input, and the outcome says what to add
   * to the model's context, whether a hook blocked (and why) and whether the run must stop.
   */
  event<E extends SessionEventName>(event: E, input: SessionEventInputs[E], opts: SessionEventOptions = {}): Promise<SessionEventOutcome> {
    const build = this.state.current;
    if (!build) return Promise.reject(new Error("host is not started"));
    return runSessionEvent(build, this.session(opts.sessionId).id, event, input as Record<string, unknown>, opts);
  }

  /** The model's turn ended: PostToolBatch hooks run over the calls host.execute ran in the session since the last turn end. */
  endTurn(opts: { sessionId?: string } = {}): Promise<TurnOutcome> {
    const build = this.state.current;
    if (!build) return Promise.reject(new Error("host is not started"));
    const s = this.session(opts.sessionId);
    return endTurn(build, s, s.id);
  }

  /** A parallel batch on one generation (call/batch.ts), then PostToolBatch hooks. */
  executeBatch(calls: BatchCall[], opts: ExecuteOptions = {}): Promise<ExecuteOutcome[]> {
    const build = this.state.current;
    if (!build) return Promise.reject(new Error("host is not started"));
    const o: ExecuteOptions = { onAsk: this.options.onAsk, ...opts };
    const run = { pool: build.pool, hooks: build.hooks, mode: build.mode, cwd: this.cwd, execute: async (n: string, i: unknown, x: ExecuteOptions) => executeCall(build, this.state.view, await this.openSession(x.sessionId), n, i, x) };
    return executeBatch(run, calls, o, this.session(opts.sessionId).id);
  }

  explain(name: string): Explanation {
    const e = explainTool(this.pool, name);
    const tool = this.pool.byName.get(name);
    // Which allow rules name the tool, where each came from and whether it applies (the permissions plugin's).
    const grants = tool && this.service<{ forTool(t: typeof tool): NonNullable<Explanation["grants"]> }>("permissions.grants")?.forTool(tool);
    return grants?.length ? { ...e, grants } : e;
  }

  setMode(mode: string): void {
    const s = this.state;
    const prev = s.mode;
    const lock = s.modeLocks.find((l) => l.mode === mode);
    if (lock) throw new ToolhostError(`${mode} mode is disabled by ${lock.path} in ${lock.file ?? lock.plugin} (${lock.reason})`);
    s.modeSource = { mode, source: "setMode" };
    if (prev === mode) return;
    s.mode = mode;
    this.hooks.modeChanged.call(mode, prev);
    this.invalidate(`mode ${prev} → ${mode}`);
  }

  /** Add a plugin at run time (an in-process definition or a path); goes through the rebuild path. */
  async addPlugin(p: PluginDefinition | string): Promise<RebuildResult> {
    if (typeof p === "string") (this.options.pluginDirs ??= []).push(path.resolve(this.cwd, p));
    else (this.options.plugins ??= []).push(p);
    return this.rebuild(`plugin added: ${typeof p === "string" ? p : p.name}`);
  }

  private allowAlways(tool: Tool, input: unknown, sessionId?: string): void {
    const taken = this.hooks.addPermissionRule.call({ behavior: "allow", rule: tool.name, destination: "session", tool: tool.name, input, sessionId });
    if (!taken) this.log.warn(`"allow always" for ${tool.name}: no plugin stores permission rules`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue.settle();
    await this.hooks.dispose.promise();
    await this.state.activator.closeAll();
  }
}

export async function createHost(options: HostOptions = {}): Promise<Host> {
  const host = new Host(options);
  await host.rebuild("startup");
  return host;
}
