/**
 * The sessions plugin's state per host: the store (opened on first use), what each session last synced,
 * usage counts not yet flushed, and the background tasks this instance registered. Failure policy
 * (README "Sessions"): a store that cannot be opened, read or written is one loud warning per kind of
 * failure; calls go on with the session's in-memory state. Nothing stored is ever trusted to *grant*:
 * a session whose approvals could not be read is asked again, one whose read state is missing must Read
 * again before Edit, so a broken store fails closed wherever a decision depends on it.
 */
import os from "node:os";
import type { CallRecord, PluginContext, SessionData } from "../../core/index.ts";
import { FIELDS, MemoryStore, openStore, REMOTE_TASK_KEY, sessionIdProblem, SessionStoreError, type PatchResult, type RemoteTaskAnswer, type SessionOp, type SessionRecord, type SessionStore, type SessionsConfig, type SyncSessionStore, type UsageCount } from "../../lib/session-store/index.ts";
import { merge, restore, Synced } from "./codec.ts";
import { Approvals } from "./approvals.ts";
import { sessionCounts, usageTotals } from "./usage.ts";
import { remoteTask, TASK_TOOLS, taskOps } from "./tasks.ts";
import { flushAtExit, home, isCli, noFlushAtExit, PLUGIN_NAME, type Track } from "./track.ts";

export { home, PLUGIN_NAME } from "./track.ts";

/** How long one reading of the sqlite change stamp serves (see Runtime.freshSync). */
const STAMP_MS = 1;

/** Default sessions.writeBehindMs of the sqlite backend. */
export const WRITE_BEHIND_MS = 100;

const MAX_TRACKS = 4096;

export class Runtime {
  private storeP?: Promise<SessionStore>;
  private fallback = false;
  /** Per session id: what this process synced and has not written yet (read by usage.ts). */
  readonly tracks = new Map<string, Track>();
  private readonly said = new Set<string>();
  private timer?: NodeJS.Timeout;
  private wbTimer?: NodeJS.Timeout;
  /** The opened store (once storeP resolved). */
  private st?: SessionStore;
  /** Its synchronous face (sqlite), used from sync per-call taps. */
  private sync?: SyncSessionStore;

  /** Session approvals: remembered when given, replayed into the permissions plugin when restored. */
  readonly approvals: Approvals;

  constructor(private readonly ctx: PluginContext) {
    this.approvals = new Approvals(ctx, this.tracks);
  }

  /** The last config object read and what was derived from it: cfg() runs on every call (a spread, the env, os.hostname() — a syscall — cost more than the rest of a no-op call's store work). */
  private derived?: { of: object; cfg: SessionsConfig; instanceId?: string; writeBehindMs: number };

  private derive(config: object): NonNullable<Runtime["derived"]> {
    if (this.derived?.of === config) return this.derived;
    const c = (config as { sessions?: SessionsConfig }).sessions ?? {};
    const cfg = { ...c, backend: c.backend ?? (isCli() ? "sqlite" : "memory") };
    const wb = cfg.writeBehindMs;
    return (this.derived = { of: config, cfg, writeBehindMs: typeof wb === "number" && wb >= 0 ? wb : WRITE_BEHIND_MS });
  }

  /** The `sessions` config of `config` (a Build's), else of the current generation; read when the store opens. */
  cfg(config: object = this.ctx.host.config): SessionsConfig {
    return this.derive(config).cfg;
  }

  get backend(): string {
    return this.cfg().backend!;
  }

  /** This process's name in the task registry: `sessions.instanceId`, TOOLHOST_INSTANCE_ID, else `<hostname>:<pid>`. */
  get instanceId(): string {
    const d = this.derive(this.ctx.host.config);
    return (d.instanceId ??= d.cfg.instanceId ?? process.env.TOOLHOST_INSTANCE_ID ?? `${os.hostname()}:${process.pid}`);
  }

  /**
   * sqlite: how long a change other than a ToolSearch load, an approval or a task may wait before it is
   * written (coalesced into one transaction; flushed on close and at process exit). 0: before the call returns.
   */
  get writeBehindMs(): number {
    return this.derive(this.ctx.host.config).writeBehindMs;
  }

  /** The configured store, or an in-memory one after a loud warning when it cannot be opened. */
  store(): Promise<SessionStore> {
    return (this.storeP ??= openStore(this.cfg(), { home: home() })
      .catch((e) => {
        this.fallback = true;
        this.warn("open", `the session store (${this.backend}) cannot be used: ${(e as Error).message}. Sessions are kept in memory for this process only: what earlier calls read, loaded and approved is not restored (Edit needs a new Read, approvals are asked again), and nothing is saved.`);
        return new MemoryStore(this.cfg()) as SessionStore;
      })
      .then((st) => {
        this.st = st;
        if (!this.fallback && st.sync) (this.sync = st.sync), flushAtExit(this);
        return st;
      }));
  }

  /** Said once per kind, on stderr (host log) and as a warning in the host's problems. */
  warn(kind: string, message: string): void {
    if (this.said.has(kind)) return;
    this.said.add(kind);
    this.ctx.host.log.warn(`toolhost: [${PLUGIN_NAME}] ${message}`);
    this.ctx.report({ path: "/sessions", message, severity: "warning" });
  }

  private persistent(id: string): boolean {
    if (id === "default" || this.backend === "memory") return false;
    const bad = sessionIdProblem(id);
    if (bad) this.warn(`id:${id.slice(0, 40)}`, `${bad}; the session is not stored`);
    return !bad;
  }

  private track(s: SessionData): Track {
    let t = this.tracks.get(s.id);
    if (!t) {
      this.tracks.set(s.id, (t = { session: s, persistent: this.persistent(s.id), synced: new Synced(), version: s.version, ops: [], usage: new Map(), tasks: new Map(), known: -1, loadedN: s.loaded.length, approved: new Set() }));
      if (this.tracks.size > MAX_TRACKS) this.forget();
    } else if (t.session !== s) {
      // a new in-memory session under a known id (after host.endSession): what the old one has not written
      // yet is written first (so the restore finds it); the new one has synced nothing yet
      if (t.persistent && this.sync && this.pending(t)) this.writeNow(t.session, t);
      Object.assign(t, { session: s, synced: new Synced(), version: s.version, known: -1, stamp: undefined, loadedN: s.loaded.length, approved: new Set() });
    }
    return t;
  }

  /** Bound the per-session bookkeeping of a long-lived serve: drop the oldest entries with nothing pending. */
  private forget(): void {
    for (const [id, t] of this.tracks) {
      if (this.tracks.size <= MAX_TRACKS / 2) break;
      if (!this.pending(t) && !t.usage.size && ![...t.tasks.values()].some((e) => e.state === "running")) (t.dropped = true), this.tracks.delete(id);
    }
  }

  /** host.hooks.sessionOpen: restore a stored session into the fresh in-memory one. */
  async open(s: SessionData): Promise<void> {
    const t = this.track(s);
    if (!t.persistent) return;
    const store = await this.store();
    if (this.fallback) return;
    try {
      const ask: RemoteTaskAnswer = (id, tool) => remoteTask(this.tracks.get(s.id), id, tool, this.instanceId, () => (this.sync ? this.sync.get(s.id) : this.store().then((st) => st.get(s.id))));
      s.shared.set(REMOTE_TASK_KEY, ask); // not stored (a function): builtin-tools asks it for a task it does not run
      if (this.sync) t.stamp = this.readStamp(); // before the read: a commit after it is seen by the next check
      const rec = this.sync ? this.sync.get(s.id) : await store.get(s.id);
      t.known = rec?.version ?? 0;
      if (rec) {
        t.synced = restore(s, rec);
        this.approvals.replay(s.id, t, rec.fields[FIELDS.approvals] ?? {});
      }
    } catch (e) {
      this.warn("read", `session ${s.id} could not be read from ${store.location ?? store.backend}: ${(e as Error).message}. It goes on with in-memory state: Edit needs a new Read, approvals are asked again.`);
    } finally {
      t.version = s.version;
      t.loadedN = s.loaded.length;
    }
    this.watch(s, t);
  }

  /**
   * The per-call freshness check of a long-lived copy (SessionData.check, run as each call starts): is the
   * stored session still the version this copy matches? If another process or instance wrote it since, the
   * stored changes are merged in before the call runs (codec merge: keys this copy changed itself stay its
   * own). sqlite: the store's change stamp (no promise) and a version read only when another connection
   * committed; other backends: one version read per call (Redis: one HMGET), a full read only when it moved.
   */
  private watch(s: SessionData, t: Track): void {
    let pending: Promise<void> | undefined;
    const done = () => void (pending = undefined);
    // made once per session, not per call: it runs on every call and allocates nothing
    s.check = this.sync ? () => this.freshSync(s, t) : () => pending ?? (t.session === s && !t.dropped ? (pending = this.fresh(s, t, done)) : undefined);
  }

  private refreshFailed(s: SessionData, e: unknown): void {
    this.warn("refresh", `session ${s.id} could not be checked against ${this.st?.location ?? this.backend}: ${(e as Error).message}. This call uses the copy in this process (changes other instances made since are not seen).`);
  }

  /** An async store: one version read per call, a full read only when it moved. */
  private fresh(s: SessionData, t: Track, done: () => void): Promise<void> | undefined {
    const st = this.st;
    if (!st?.version || this.fallback) return undefined;
    return st
      .version(s.id)
      .then(async (v) => (v === t.known ? undefined : this.apply(s, t, await st.get(s.id))))
      .catch((e: unknown) => this.refreshFailed(s, e))
      .finally(done);
  }

  private stampAt = -Infinity;
  private stampV = 0;

  /**
   * sqlite: the store's change stamp (`PRAGMA data_version`: it changes only when another connection
   * committed) is read at most once per STAMP_MS — it takes a shared lock on the WAL index (2–7 µs, a
   * third of an in-process call) —, so calls that start within the same millisecond share one reading; a
   * commit by another process is seen by every call that starts STAMP_MS after it. Only when the stamp
   * moved is the session's version read, and only when that moved the record.
   */
  private freshSync(s: SessionData, t: Track): undefined {
    if (t.session !== s || t.dropped) return undefined;
    const now = performance.now();
    if (now - this.stampAt < STAMP_MS && this.stampV === t.stamp) return undefined;
    try {
      if (now - this.stampAt >= STAMP_MS) this.readStamp(now);
      if (this.stampV === t.stamp) return undefined;
      t.stamp = this.stampV;
      if (this.sync!.version(s.id) !== t.known) this.apply(s, t, this.sync!.get(s.id));
    } catch (e) {
      this.refreshFailed(s, e);
    }
    return undefined;
  }

  private readStamp(now = performance.now()): number {
    this.stampAt = now;
    return (this.stampV = this.sync!.stamp());
  }

  /** Merge a stored record another writer changed into the live session (see watch). */
  private apply(s: SessionData, t: Track, rec: SessionRecord | undefined): void {
    if (!rec) {
      // removed (toolhost sessions remove) or expired under this live copy: the whole copy is written anew with the next write
      if (t.known !== 0) Object.assign(t, { known: 0, synced: new Synced(), version: -1, approved: new Set() });
      return;
    }
    const clean = s.version === t.version;
    const loads = s.loaded.length === t.loadedN;
    merge(s, rec, t.synced);
    this.approvals.replay(s.id, t, rec.fields[FIELDS.approvals] ?? {});
    t.known = rec.version;
    if (clean) t.version = s.version; // what was merged is what is stored: nothing to write back
    if (loads) t.loadedN = s.loaded.length;
  }

  /** Count the call for usage: all a memory-backed host does per call (a sync tap: no promise per call). */
  count(r: CallRecord): Track {
    const call = r.call;
    const t = this.track(call.session);
    if (r.outcome.executed && call.tool) t.usage.set(call.tool.name, (t.usage.get(call.tool.name) ?? 0) + 1);
    return t;
  }

  /** build.hooks.persist with an async store (Redis): count the call, register a background task, save what changed before the call returns. */
  async after(r: CallRecord): Promise<void> {
    const call = r.call;
    const t = this.count(r);
    if (!t.persistent) return;
    if (r.outcome.executed && call.tool && TASK_TOOLS.has(call.tool.name)) taskOps(t, this.instanceId, call, r.outcome.result);
    if (this.pending(t)) await this.save(call.session, t);
    else this.later();
  }

  /**
   * build.hooks.persist with a synchronous store (sqlite), a sync tap: no promise per call. A ToolSearch
   * load, an approval or a task is written now (one transaction, committed when the call returns); other
   * changes (read state, Bash cwd, plugins' state) within sessions.writeBehindMs, many calls in one
   * transaction, and on close or process exit.
   */
  afterSync(r: CallRecord): void {
    const call = r.call;
    const t = this.count(r);
    if (!t.persistent || !this.sync) return;
    if (r.outcome.executed && call.tool && TASK_TOOLS.has(call.tool.name)) taskOps(t, this.instanceId, call, r.outcome.result);
    const s = call.session;
    if (!this.pending(t)) return this.later();
    if (t.ops.length || s.loaded.length !== t.loadedN || this.writeBehindMs === 0) return this.writeNow(s, t);
    if (!this.wbTimer) {
      this.wbTimer = setTimeout(() => {
        this.wbTimer = undefined;
        this.flushNow();
      }, this.writeBehindMs);
      this.wbTimer.unref();
    }
  }

  /** Something of the session not written yet (besides usage counts). */
  private pending(t: Track): boolean {
    return t.session.version !== t.version || t.ops.length > 0;
  }

  /** The ops that bring the store to this copy (undefined: nothing but usage counts), and what to record once written. */
  private prepare(s: SessionData, t: Track): { ops: SessionOp[]; commit: () => void } | undefined {
    const delta = t.synced.changes(s);
    const changed = [...delta.ops, ...t.ops.splice(0)];
    t.version = s.version;
    t.loadedN = s.loaded.length;
    if (!changed.length) {
      delta.commit(); // same texts, new objects: compare by the new identities next time
      return undefined;
    }
    return { ops: [...changed, ...this.usageOps(t)], commit: delta.commit };
  }

  /** After a write: this copy matches the stored version if it was the only writer since (else: unknown, re-read on the next check). */
  private wrote(t: Track, r: PatchResult): void {
    t.known = t.known >= 0 && r.version === t.known + 1 ? r.version : -1;
  }

  private saveFailed(s: SessionData, e: unknown): void {
    const code = e instanceof SessionStoreError ? e.code : "error";
    this.warn(`write:${code}`, `session ${s.id} could not be saved to ${this.st?.location ?? this.backend}: ${(e as Error).message}. It goes on in memory; later processes will not see this call's changes.`);
  }

  /** Write what changed now, synchronously (sqlite). */
  writeNow(s: SessionData, t: Track): void {
    const p = this.prepare(s, t);
    if (!p) return this.later();
    try {
      this.wrote(t, this.sync!.patch(s.id, p.ops));
      p.commit();
    } catch (e) {
      this.saveFailed(s, e);
    }
  }

  private async save(s: SessionData, t: Track): Promise<void> {
    const store = await this.store();
    if (this.fallback) return;
    const p = this.prepare(s, t);
    if (!p) return this.later(); // (nothing but usage counts: they wait for the next write or the flush)
    try {
      this.wrote(t, await store.patch(s.id, p.ops));
      p.commit();
    } catch (e) {
      this.saveFailed(s, e);
    }
  }

  private usageOps(t: Track): SessionOp[] {
    const ops: SessionOp[] = [...t.usage].map(([key, by]) => ({ op: "incr", field: FIELDS.usage, key, by }));
    t.usage.clear();
    return ops;
  }

  /** Usage counts of sessions with nothing else to save are flushed within 5 s (and on close). */
  private later(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, 5000);
    this.timer.unref();
  }

  async flush(): Promise<void> {
    if (this.sync) return this.flushNow();
    const store = this.storeP && !this.fallback ? await this.store() : undefined;
    for (const [id, t] of this.tracks) {
      if (!t.persistent || !store) continue;
      if (this.pending(t)) await this.save(t.session, t);
      if (!t.usage.size && !t.ops.length) continue;
      const ops = [...t.ops.splice(0), ...this.usageOps(t)];
      await store.patch(id, ops).then((r) => this.wrote(t, r), (e: Error) => this.warn("flush", `usage counts of session ${id} were not saved: ${e.message}`));
    }
  }

  /** Write every pending change and usage count now (sqlite: synchronous — also from the process's exit handler). */
  flushNow(): void {
    clearTimeout(this.wbTimer);
    this.wbTimer = undefined;
    const sync = this.sync;
    if (!sync) return;
    for (const [id, t] of this.tracks) {
      if (!t.persistent) continue;
      if (this.pending(t)) this.writeNow(t.session, t);
      if (!t.usage.size && !t.ops.length) continue;
      try {
        this.wrote(t, sync.patch(id, [...t.ops.splice(0), ...this.usageOps(t)]));
      } catch (e) {
        this.warn("flush", `usage counts of session ${id} were not saved: ${(e as Error).message}`);
      }
    }
  }

  /** Usage counts: the store's totals (or one session's) plus what this process has not flushed yet. */
  usage(opts: { sessionId?: string } = {}): Promise<Record<string, UsageCount>> {
    return usageTotals(this, opts);
  }

  /** How many sessions used each tool: the store's sessions, and sessions of this process not stored (or not yet). */
  sessionCounts(): Promise<{ sessions: number; tools: Record<string, number> }> {
    return sessionCounts(this);
  }

  async close(): Promise<void> {
    clearTimeout(this.timer);
    noFlushAtExit(this);
    for (const t of this.tracks.values()) {
      for (const e of t.tasks.values()) if (e.state === "running") t.ops.push({ op: "set", field: FIELDS.tasks, key: e.taskId, value: { ...e, state: "gone", updatedAt: Date.now() } });
    }
    await this.flush();
    this.sync = undefined;
    if (this.storeP) await (await this.storeP).close();
  }
}
