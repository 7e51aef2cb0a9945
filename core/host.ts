/**
 * The long-lived Host: config, discovery, plugin lifecycle, the one rebuild path and the entry to
 * the one execution path. It declares and sequences; features live in plugins.
 *
 * Rebuild: invalidate(reason) → debounce → load config + manifests fresh → (re)activate plugins whose
 * code changed → new Build → host.build hook → assemble → swap with one assignment, or keep the last
 * good pool when the build introduced new errors.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig, PERMISSION_MODES, type HostConfig, type ModeChoice, type ModeSource } from "./config.ts";
import { errorMessage, ToolhostError, type ProblemReport } from "./errors.ts";
import { Build } from "./build.ts";
import { Executor, type ExecuteOptions, type ExecuteOutcome, type AskRequest, type AskAnswer } from "./executor.ts";
import { createHostHooks, hooksFacade, TRACE, type HostHooks, type PluginSource, type TraceEntry } from "./hooks.ts";
import { loadPlugin, type LoadedPlugin } from "./manifest.ts";
import { diffPools, type PoolDiff, type PoolSnapshot } from "./pool.ts";
import { type HostView, type Logger, type PluginContext, type PluginDefinition } from "./plugin.ts";
import { Session } from "./session.ts";
import { flag, type Tool } from "./tool.ts";
import { explainTool, type Explanation } from "./explain.ts";
import { codeStamp, importPlugin, inlineDefs, inlineRecord, resolvePluginRef, stampOf } from "./activation.ts";
export { codeStamp };

export const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const BUNDLED_MANIFESTS = path.join(PACKAGE_ROOT, "manifests");

export interface HostOptions {
  cwd?: string;
  /** Explicit config file (else cosmiconfig searches cwd). */
  configFile?: string;
  /** Inline config merged over the file's. */
  config?: HostConfig;
  /** Extra plugin directories (like `claude --plugin-dir`). */
  pluginDirs?: string[];
  /** In-process plugins (definePlugin objects). */
  plugins?: PluginDefinition[];
  /** Load the bundled manifests/ (default true). */
  bundled?: boolean;
  mode?: string;
  /** Answer "ask" decisions (library). */
  onAsk?: (req: AskRequest) => AskAnswer | Promise<AskAnswer>;
  /** Debounce for invalidate() in ms (default 50). */
  debounceMs?: number;
  /** Longest an invalidate() storm may postpone its rebuild, in ms (default max(1000, 20 × debounceMs)). */
  maxWaitMs?: number;
  /** Watch plugin directories, config and settings files and rebuild on change (the watch plugin). */
  watch?: boolean;
  logger?: Partial<Logger>;
  /** Where plugin data dirs live (default ~/.toolhost/plugins/data). */
  dataHome?: string;
  [key: string]: unknown;
}

export interface RebuildResult {
  ok: boolean;
  pool: PoolSnapshot;
  diff?: PoolDiff;
  problems: ProblemReport[];
  /** Problems that made the build fail (the previous pool kept serving). */
  failures?: ProblemReport[];
  ms: number;
}

interface ActivePlugin {
  id: string;
  stamp: string;
  token: object;
  disposers: Array<() => void | Promise<void>>;
  record: LoadedPlugin;
}

const noop = () => {};

export class Host {
  readonly hooks: HostHooks;
  readonly cwd: string;
  private _mode: string;
  private _modeSource: ModeSource = { mode: "default", source: "default" };
  private bypassDisabledBy?: ModeChoice["bypassDisabledBy"];
  private config: HostConfig = {};
  private current?: { build: Build; pool: PoolSnapshot; executor: Executor };
  private loaded: LoadedPlugin[] = [];
  private loadProblems: ProblemReport[] = [];
  private readonly hostProblems: ProblemReport[] = [];
  private readonly active = new Map<string, ActivePlugin>();
  private readonly sessions = new Map<string, Session>();
  private readonly services = new Map<string, { plugin: string; value: unknown }>();
  private generation = 0;
  private timer?: NodeJS.Timeout;
  private pendingReasons = new Set<string>();
  private firstPending?: number;
  private running?: Promise<RebuildResult>;
  /** The one rebuild queued behind the running one; every request made meanwhile joins it. */
  private next?: { promise: Promise<RebuildResult>; reasons: Set<string> };
  private closed = false;
  private readonly view: HostView;
  readonly log: Logger;
  watchedFiles: string[] = [];
  /** The plugin sources the last rebuild discovered (including ones that failed to load). */
  sources: readonly PluginSource[] = [];

  constructor(readonly options: HostOptions = {}) {
    this.cwd = path.resolve(options.cwd ?? process.cwd());
    this._mode = options.mode ?? "default";
    this.hooks = createHostHooks((p) => this.hostProblems.push(p));
    const l = options.logger ?? {};
    this.log = { info: l.info ?? noop, warn: l.warn ?? noop, error: l.error ?? noop, debug: l.debug ?? noop };
    const self = this;
    this.view = Object.freeze({
      cwd: this.cwd,
      get mode() {
        return self._mode;
      },
      get config() {
        return self.config;
      },
      plugins: () => self.loaded,
      pool: () => self.current?.pool,
      invalidate: (reason: string) => self.invalidate(reason),
      watchedFiles: () => self.watchedFiles,
      sources: () => self.sources,
      session: (id?: string) => self.session(id),
      service: <T>(name: string) => self.services.get(name)?.value as T | undefined,
      log: this.log,
      options: this.options,
    });
  }

  get mode(): string {
    return this._mode;
  }
  get pool(): PoolSnapshot {
    if (!this.current) throw new Error("host is not started: await createHost() or host.rebuild() first");
    return this.current.pool;
  }
  get plugins(): readonly LoadedPlugin[] {
    return this.loaded;
  }
  get hostConfig(): HostConfig {
    return this.config;
  }

  /** Every problem known now: config and manifests, plugin activation, the current build. */
  problems(): ProblemReport[] {
    return [...this.loadProblems, ...this.hostProblems, ...(this.current?.build.problems ?? [])];
  }

  session(id = "default"): Session {
    let s = this.sessions.get(id);
    if (!s) this.sessions.set(id, (s = new Session(id, (sid) => this.hooks.sessionToolsChanged.call(sid))));
    return s;
  }

  /**
   * Forget a session — its loaded deferred tools and scratch state — e.g. when its MCP client went
   * away. A later call with the same id starts a fresh session. Returns whether it existed.
   */
  endSession(id: string): boolean {
    return this.sessions.delete(id);
  }

  /** What the model sees in a session: eager tools, then deferred tools the session loaded, in load order. */
  visibleTools(sessionId?: string): Tool[] {
    const pool = this.pool;
    const s = this.session(sessionId);
    const loaded = s.loaded.map((n) => pool.byName.get(n)).filter((t): t is Tool => !!t && pool.deferral.get(t.name)?.defer === true);
    return [...pool.tools, ...loaded];
  }

  /**
   * Schedule a rebuild; bursts within the debounce window coalesce into one. A storm that never pauses
   * still rebuilds every `maxWaitMs`. A rebuild requested while one runs runs once after it.
   */
  invalidate(reason: string): void {
    if (this.closed) return;
    this.pendingReasons.add(reason);
    this.hooks.invalid.call(reason);
    const wait = this.options.debounceMs ?? 50;
    const maxWait = this.options.maxWaitMs ?? Math.max(1000, wait * 20);
    const now = performance.now();
    this.firstPending ??= now;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.firstPending = undefined;
      const reasons = [...this.pendingReasons];
      this.pendingReasons.clear();
      void this.rebuild(joinReasons(reasons)).catch((e) => this.log.error(`rebuild failed: ${errorMessage(e)}`));
    }, Math.max(0, Math.min(wait, this.firstPending + maxWait - now)));
  }

  /** Run the one rebuild path now (serialised: every rebuild requested while one runs joins one run after it). */
  rebuild(reason = "manual"): Promise<RebuildResult> {
    if (this.running) {
      if (this.next) {
        this.next.reasons.add(reason);
        return this.next.promise;
      }
      const reasons = new Set([reason]);
      const promise = this.running
        .catch(() => undefined)
        .then(() => {
          this.next = undefined;
          return this.rebuild(joinReasons([...reasons]));
        });
      this.next = { promise, reasons };
      return promise;
    }
    if (this.closed && this.current) {
      const failure: ProblemReport = { plugin: "toolhost", path: "rebuild", message: "host is closed", severity: "error" };
      return Promise.resolve({ ok: false, pool: this.current.pool, problems: [failure], failures: [failure], ms: 0 });
    }
    const p = this.doRebuild(reason).finally(() => {
      this.running = undefined;
    });
    this.running = p;
    return p;
  }

  private async doRebuild(reason: string): Promise<RebuildResult> {
    const t0 = performance.now();
    const generation = ++this.generation;
    this.hooks.rebuildStart.call({ reason, generation });
    const problems: ProblemReport[] = [];

    const cfg = await loadConfig({ cwd: this.cwd, configFile: this.options.configFile, inline: this.options.config });
    problems.push(...cfg.problems);
    this.watchedFiles = cfg.watched;
    const config = cfg.config;
    // The mode is chosen once, at the first build: createHost/--mode, else toolhost config, else
    // .claude/settings.local.json, else .claude/settings.json (escalations from that file are refused).
    this.bypassDisabledBy = cfg.mode.bypassDisabledBy;
    if (!this.current) {
      this._modeSource = this.options.mode ? { mode: this.options.mode, source: "option" } : (cfg.mode.defaultMode ?? { mode: "default", source: "default" });
      this._mode = this._modeSource.mode;
      if (this.options.mode && !(PERMISSION_MODES as readonly string[]).includes(this.options.mode)) {
        // a plugin may define a mode of its own, so this warns rather than refuses
        problems.push({ plugin: "toolhost", path: "createHost({mode})", message: `unknown permission mode "${this.options.mode}" (known: ${PERMISSION_MODES.join(", ")}); no bundled plugin treats it specially`, severity: "warning" });
      }
    }
    if (this._mode === "bypassPermissions" && this.bypassDisabledBy) {
      const by = this.bypassDisabledBy;
      problems.push({ plugin: by.plugin, file: by.file, path: by.path, message: `bypassPermissions mode is disabled here (disableBypassPermissionsMode: "disable"); running in default mode instead`, severity: "warning" });
      this._mode = "default";
      this._modeSource = { mode: "default", source: by.plugin, file: by.file, path: by.path };
    }

    let sources: PluginSource[] = [];
    if (this.options.bundled !== false && fs.existsSync(BUNDLED_MANIFESTS)) {
      for (const f of fs.readdirSync(BUNDLED_MANIFESTS).sort()) if (f.endsWith(".json")) sources.push({ kind: "bundled", path: path.join(BUNDLED_MANIFESTS, f) });
    }
    // An invalid config (reported above) may hold anything here: only a list of strings names plugins.
    for (const p of Array.isArray(config.plugins) ? config.plugins : []) if (typeof p === "string") sources.push(resolvePluginRef(p, cfg.file, this.cwd, problems));
    for (const d of this.options.pluginDirs ?? []) sources.push({ kind: "plugin-dir", path: path.resolve(this.cwd, d) });
    sources = await this.hooks.discover.promise(sources);
    // The same directory named twice (config and --plugin-dir) is one plugin, not a duplicate.
    const seenPaths = new Set<string>();
    sources = sources.filter((s) => !s.path || (seenPaths.has(path.resolve(s.path)) ? false : (seenPaths.add(path.resolve(s.path)), true)));
    this.sources = sources;

    const loaded: LoadedPlugin[] = [...cfg.sources];
    const seen = new Map<string, LoadedPlugin>();
    // A plugin directory that is gone was removed, not broken: its tools leave the pool (still reported).
    const removed = new Set<ProblemReport>();
    for (const s of sources) {
      if (!s.path) continue;
      const lp = loadPlugin(s, { projectDir: this.cwd, dataHome: this.options.dataHome as string | undefined });
      this.hooks.manifestLoaded.call(lp);
      lp.problems.push(...this.hooks.validateManifest.call([], lp));
      lp.failed = lp.failed || lp.problems.some((p) => p.severity === "error");
      problems.push(...lp.problems);
      if (lp.failed && !fs.existsSync(path.resolve(this.cwd, s.path))) for (const p of lp.problems) removed.add(p);
      if (lp.failed) {
        this.hooks.activateFailed.call(lp, lp.problems.find((p) => p.severity === "error")!);
        continue;
      }
      if (config.disabledPlugins?.includes(lp.id)) continue;
      const dup = seen.get(lp.id);
      if (dup) {
        const pr: ProblemReport = { plugin: lp.id, file: lp.manifestFile ?? lp.root, path: "/name", message: `duplicate plugin name "${lp.id}": already loaded from ${dup.manifestFile ?? dup.root}; this copy is ignored`, severity: "error" };
        problems.push(pr);
        this.hooks.activateFailed.call(lp, pr);
        continue;
      }
      seen.set(lp.id, lp);
      loaded.push(lp);
    }
    for (const def of this.options.plugins ?? []) loaded.push(inlineRecord(def, this.cwd));
    loaded.sort((a, b) => a.order - b.order || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

    // A build fails when it brings errors the last good generation did not have.
    const key = (p: ProblemReport) => `${p.plugin}\0${p.file}\0${p.path}\0${p.message}`;
    const known = new Set(this.loadProblems.filter((p) => p.severity === "error").map(key));
    const fresh = problems.filter((p) => p.severity === "error" && !known.has(key(p)) && !removed.has(p));
    if (this.current && fresh.length) {
      this.hooks.rebuildFailed.call({ reason, generation }, fresh);
      this.log.warn(`rebuild #${generation} (${reason}) failed; keeping generation ${this.current.pool.generation}: ${fresh.map((p) => `${p.plugin} ${p.file ?? ""}${p.path ? ` ${p.path}` : ""}: ${p.message}`).join("; ")}`);
      return { ok: false, pool: this.current.pool, problems, failures: fresh, ms: performance.now() - t0 };
    }

    const prevConfig = this.config;
    const prevLoaded = this.loaded;
    const fail = (failures: ProblemReport[], all: ProblemReport[]): RebuildResult => {
      this.config = prevConfig;
      this.loaded = prevLoaded;
      this.hooks.rebuildFailed.call({ reason, generation }, failures);
      this.log.warn(`rebuild #${generation} (${reason}) failed; keeping generation ${this.current!.pool.generation}: ${failures.map((p) => `${p.plugin} ${p.file ?? ""}${p.path ? ` ${p.path}` : ""}: ${p.message}`).join("; ")}`);
      return { ok: false, pool: this.current!.pool, problems: all, failures, ms: performance.now() - t0 };
    };
    this.config = config;
    this.loaded = loaded;
    const importFailures = await this.syncActivePlugins(loaded, problems, inlineDefs(this.options.plugins), known);
    if (this.current && importFailures.length) return fail(importFailures, problems);

    const build = new Build(generation, this._mode, this.cwd, loaded, this.view);
    this.hooks.build.call(build);
    let pool: PoolSnapshot;
    try {
      pool = await build.assemble();
    } catch (e) {
      const pr: ProblemReport = { plugin: "toolhost", path: "build", message: `pool assembly failed: ${errorMessage(e)}`, severity: "error" };
      if (this.current) return fail([pr], [...problems, pr]);
      this.hooks.rebuildFailed.call({ reason, generation }, [pr]);
      throw e;
    }
    // Plugin code that no longer loads (a tool module with a syntax error) is a broken edit too:
    // the last good generation keeps serving until it is fixed.
    const codeFiles = new Set(loaded.flatMap((lp) => [...lp.components.tools.map((t) => t.file), ...(lp.components.main ? [lp.components.main.file] : [])]));
    const knownBuild = new Set((this.current?.build.problems ?? []).filter((p) => p.severity === "error").map(key));
    const brokenCode = build.problems.filter((p) => p.severity === "error" && p.file && codeFiles.has(p.file) && !knownBuild.has(key(p)));
    if (this.current && brokenCode.length) return fail(brokenCode, [...problems, ...build.problems]);
    const prev = this.current?.pool;
    const executor = new Executor(build, this.view, (tool, input) => this.allowAlways(tool, input));
    this.current = { build, pool, executor }; // the swap: one assignment
    this.loadProblems = problems;
    const diff = diffPools(prev, pool);
    this.hooks.rebuildDone.call(pool, diff);
    if (diff.fingerprintChanged) this.hooks.poolChanged.call(pool, diff);
    const ms = performance.now() - t0;
    this.log.info(`generation ${generation} (${reason}): ${pool.tools.length} loaded, ${pool.deferred.length} deferred, ${pool.excluded.length} excluded; +${diff.added.length} -${diff.removed.length} ~${diff.changed.length}${describeDiff(diff)} in ${ms.toFixed(0)} ms`);
    return { ok: true, pool, diff, problems: [...problems, ...build.problems], ms };
  }

  /**
   * Activate plugins with code (`main` modules and inline plugins); dispose removed or changed ones.
   * New and edited modules are imported before anything is disposed: when an import brings an error
   * the last good generation did not have (`known`), nothing changes and the failures are returned.
   */
  private async syncActivePlugins(loaded: LoadedPlugin[], problems: ProblemReport[], inline: Map<string, PluginDefinition>, known: Set<string>): Promise<ProblemReport[]> {
    const want = new Map<string, LoadedPlugin>();
    for (const lp of loaded) if (lp.components.main || lp.kind === "inline") want.set(lp.id, lp);
    const prepared = new Map<string, { def?: PluginDefinition; problem?: ProblemReport; stamp: string }>();
    for (const [id, lp] of want) {
      const stamp = stampOf(lp);
      const ap = this.active.get(id);
      if (ap && ap.stamp === stamp) continue;
      try {
        const def = lp.kind === "inline" ? inline.get(id) : await importPlugin(lp);
        if (!def) throw new Error(`module ${lp.components.main?.file} does not export a plugin (default export of definePlugin({ name, apply }))`);
        prepared.set(id, { def, stamp });
      } catch (e) {
        const pr: ProblemReport = { plugin: id, file: lp.components.main?.file ?? lp.manifestFile, path: lp.components.main ? "/main" : undefined, message: `activating plugin failed: ${errorMessage(e)}`, severity: "error" };
        prepared.set(id, { problem: pr, stamp });
      }
    }
    const key = (p: ProblemReport) => `${p.plugin}\0${p.file}\0${p.path}\0${p.message}`;
    const fresh = [...prepared.values()].flatMap((p) => (p.problem && !known.has(key(p.problem)) ? [p.problem] : []));
    if (fresh.length && this.current) return fresh;

    for (const id of [...this.active.keys()]) {
      const lp = want.get(id);
      if (!lp || prepared.has(id)) await this.deactivate(id);
    }
    for (const [id, lp] of want) {
      const prep = prepared.get(id);
      if (!prep) {
        this.active.get(id)!.record = lp;
        continue;
      }
      try {
        if (prep.problem) throw prep.problem;
        const ap: ActivePlugin = { id, stamp: prep.stamp, token: {}, disposers: [], record: lp };
        this.active.set(id, ap);
        await prep.def!.apply(this.contextFor(ap));
        this.hooks.activate.call(lp);
      } catch (e) {
        this.active.delete(id);
        const pr: ProblemReport = prep.problem ?? { plugin: id, file: lp.components.main?.file ?? lp.manifestFile, path: lp.components.main ? "/main" : undefined, message: `activating plugin failed: ${errorMessage(e)}`, severity: "error" };
        problems.push(pr);
        lp.problems.push(pr);
        this.hooks.activateFailed.call(lp, pr);
        const idx = loaded.indexOf(lp);
        if (idx >= 0) loaded.splice(idx, 1);
      }
    }
    return [];
  }

  private async deactivate(id: string): Promise<void> {
    const ap = this.active.get(id);
    if (!ap) return;
    this.active.delete(id);
    for (const d of ap.disposers.reverse()) {
      try {
        await d();
      } catch (e) {
        this.log.warn(`[plugin ${id}] dispose failed: ${errorMessage(e)}`);
      }
    }
  }

  private contextFor(ap: ActivePlugin): PluginContext {
    const alive = () => this.active.get(ap.id)?.token === ap.token;
    const guard = (fn: Function) =>
      function (this: unknown, ...args: unknown[]) {
        if (alive()) return fn.apply(this, args);
        const last = args[args.length - 1];
        if (typeof last === "function" && fn.length === args.length) return (last as Function)();
        return undefined;
      };
    const hooks = hooksFacade(this.hooks, ap.id, {
      build: (fn: Function) => guard((build: Build) => fn(build.viewFor(ap.id))),
      ...Object.fromEntries(Object.keys(this.hooks).filter((k) => k !== "build").map((k) => [k, guard])),
    });
    const ctx: PluginContext = {
      id: ap.id,
      get plugin() {
        return ap.record;
      },
      host: this.view,
      hooks,
      report: (p) => void this.hostProblems.push({ ...p, plugin: ap.id }),
      provide: (name, value) => {
        const had = this.services.get(name);
        if (had && had.plugin !== ap.id) {
          this.hostProblems.push({ plugin: ap.id, path: `provide(${JSON.stringify(name)})`, message: `service "${name}" is already provided by plugin ${had.plugin}; this one is ignored`, severity: "error" });
          return;
        }
        const entry = { plugin: ap.id, value };
        this.services.set(name, entry);
        ap.disposers.push(() => {
          if (this.services.get(name) === entry) this.services.delete(name);
        });
      },
      onDispose: (fn) => void ap.disposers.push(fn),
    };
    return Object.freeze(ctx);
  }

  // Not async and no options copy unless needed: this is every call's entry (bench/mcp.ts).
  execute(name: string, input: unknown, opts: ExecuteOptions = {}): Promise<ExecuteOutcome> {
    const cur = this.current;
    if (!cur) return Promise.reject(new Error("host is not started"));
    const onAsk = this.options.onAsk;
    return cur.executor.execute(name, input, onAsk && !("onAsk" in opts) ? { onAsk, ...opts } : opts);
  }

  /**
   * A parallel batch, as a model emits it: consecutive concurrency-safe calls run together, any
   * other call runs alone; results come back in call order. The batch runs on one generation.
   */
  async executeBatch(calls: Array<{ name: string; input: unknown; toolUseId?: string }>, opts: ExecuteOptions = {}): Promise<ExecuteOutcome[]> {
    const cur = this.current;
    if (!cur) throw new Error("host is not started");
    const out: ExecuteOutcome[] = new Array(calls.length);
    let group: number[] = [];
    const flush = async () => {
      await Promise.all(group.map(async (i) => (out[i] = await cur.executor.execute(calls[i]!.name, calls[i]!.input, { onAsk: this.options.onAsk, source: "batch", ...opts, toolUseId: calls[i]!.toolUseId }))));
      group = [];
    };
    for (let i = 0; i < calls.length; i++) {
      const t = cur.pool.byName.get(calls[i]!.name);
      if (t && flag(t.isConcurrencySafe, calls[i]!.input as never, false)) group.push(i);
      else {
        await flush();
        out[i] = await cur.executor.execute(calls[i]!.name, calls[i]!.input, { onAsk: this.options.onAsk, source: "batch", ...opts, toolUseId: calls[i]!.toolUseId });
      }
    }
    await flush();
    const hook = cur.build.hooks.postToolBatch;
    if (calls.length && hook.isUsed()) {
      const context: string[] = [];
      let stop: string | undefined;
      const trace: TraceEntry[] = [];
      const sessionId = this.session(opts.sessionId).id;
      await hook.promise({
        [TRACE]: trace,
        sessionId,
        cwd: this.cwd,
        mode: this._mode,
        calls: calls.map((c, i) => ({ name: c.name, input: out[i]!.input ?? c.input, toolUseId: out[i]!.toolUseId, outcome: out[i]! })),
        addContext: (text, source) => {
          context.push(text);
          trace.push({ stage: "postToolBatch.context", plugin: source, ms: 0 });
        },
        stop: (reason, source) => {
          stop ??= reason;
          trace.push({ stage: "postToolBatch.stop", plugin: source, ms: 0, outcome: "stop", detail: { reason } });
        },
      });
      const last = out[out.length - 1]!;
      last.trace.push(...trace);
      if (context.length) last.result = { ...last.result, content: [...last.result.content, ...context.map((text) => ({ type: "text" as const, text }))] };
      if (stop !== undefined) last.batchStop = stop;
    }
    return out;
  }

  explain(name: string): Explanation {
    return explainTool(this.pool, name);
  }

  /** Where the current permission mode came from (option, config, a settings file, setMode, or the default). */
  get modeSource(): ModeSource {
    return this._modeSource;
  }

  setMode(mode: string): void {
    const prev = this._mode;
    if (mode === "bypassPermissions" && this.bypassDisabledBy) {
      const by = this.bypassDisabledBy;
      throw new ToolhostError(`bypassPermissions mode is disabled by ${by.path} in ${by.file ?? by.plugin} (disableBypassPermissionsMode: "disable")`);
    }
    this._modeSource = { mode, source: "setMode" };
    if (prev === mode) return;
    this._mode = mode;
    this.hooks.modeChanged.call(mode, prev);
    this.invalidate(`mode ${prev} → ${mode}`);
  }

  /** Add a plugin at run time (an in-process definition or a path); goes through the rebuild path. */
  async addPlugin(p: PluginDefinition | string): Promise<RebuildResult> {
    if (typeof p === "string") (this.options.pluginDirs ??= []).push(path.resolve(this.cwd, p));
    else (this.options.plugins ??= []).push(p);
    return this.rebuild(`plugin added: ${typeof p === "string" ? p : p.name}`);
  }

  private allowAlways(tool: Tool, input: unknown): void {
    const taken = this.hooks.addPermissionRule.call({ behavior: "allow", rule: tool.name, destination: "session", tool: tool.name, input });
    if (!taken) this.log.warn(`"allow always" for ${tool.name}: no plugin stores permission rules`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => {});
    await this.next?.promise.catch(() => {});
    await this.hooks.dispose.promise();
    for (const id of [...this.active.keys()]) await this.deactivate(id);
  }
}

/** " (+a, b; -c; ~d)" with at most 5 names per kind, for the rebuild log line. */
function describeDiff(diff: PoolDiff): string {
  const part = (sign: string, xs: string[]) => (xs.length ? `${sign}${xs.slice(0, 5).join(", ")}${xs.length > 5 ? ` …${xs.length - 5} more` : ""}` : "");
  const parts = [part("+", diff.added), part("-", diff.removed), part("~", diff.changed)].filter(Boolean);
  return parts.length ? ` (${parts.join("; ")})` : "";
}

function joinReasons(reasons: string[]): string {
  return reasons.length <= 5 ? reasons.join("; ") : `${reasons.slice(0, 5).join("; ")}; and ${reasons.length - 5} more`;
}

export async function createHost(options: HostOptions = {}): Promise<Host> {
  const host = new Host(options);
  await host.rebuild("startup");
  return host;
}
