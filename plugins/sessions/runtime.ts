/**
 * The sessions plugin's state per host: the store (opened on first use), what each session last synced,
 * usage counts not yet flushed, and the background tasks this instance registered. Failure policy
 * (README "Sessions"): a store that cannot be opened, read or written is one loud warning per kind of
 * failure; calls go on with the session's in-memory state. Nothing stored is ever trusted to *grant*:
 * a session whose approvals could not be read is asked again, one whose read state is missing must Read
 * again before Edit, so a broken store fails closed wherever a decision depends on it.
 */
import os from "node:os";
import path from "node:path";
import type { CallRecord, CallState, PermissionRuleUpdate, PluginContext, SessionData, ToolResult } from "../../core/index.ts";
import { FIELDS, MemoryStore, openStore, sessionIdProblem, SessionStoreError, type SessionOp, type SessionStore, type SessionsConfig, type TaskEntry, type UsageCount } from "../../lib/session-store/index.ts";
import { restore, Synced } from "./codec.ts";

export const PLUGIN_NAME = "sessions";

interface Track {
  /** The in-memory session synced (host.endSession and a later call make a new one with the same id). */
  session: SessionData;
  persistent: boolean;
  synced: Synced;
  version: number;
  ops: SessionOp[];
  usage: Map<string, number>;
  /** Tasks this instance started in the session (marked "gone" on close if still running). */
  tasks: Map<string, TaskEntry>;
}

/** Started from the toolhost CLI (`toolhost call`, `serve` …): then the disk store is the default. */
function isCli(): boolean {
  const bin = path.basename(process.argv[1] ?? "");
  return bin === "toolhost" || bin === "toolhost.mjs";
}

export function home(): string {
  return process.env.TOOLHOST_HOME || path.join(os.homedir(), ".toolhost");
}

const MAX_TRACKS = 4096;
const TRIM_KEYS = ["command", "file_path", "notebook_path", "filePath", "path", "url"];

export class Runtime {
  private storeP?: Promise<SessionStore>;
  private fallback = false;
  private readonly tracks = new Map<string, Track>();
  private readonly said = new Set<string>();
  private restoring = false;
  private timer?: NodeJS.Timeout;

  constructor(private readonly ctx: PluginContext) {}

  /** The `sessions` config of `config` (a Build's), else of the current generation; read when the store opens. */
  cfg(config: object = this.ctx.host.config): SessionsConfig {
    const c = (config as { sessions?: SessionsConfig }).sessions ?? {};
    return { ...c, backend: c.backend ?? (isCli() ? "sqlite" : "memory") };
  }

  get backend(): string {
    return this.cfg().backend!;
  }

  /** This process's name in the task registry: `sessions.instanceId`, TOOLHOST_INSTANCE_ID, else `<hostname>:<pid>`. */
  get instanceId(): string {
    return this.cfg().instanceId ?? process.env.TOOLHOST_INSTANCE_ID ?? `${os.hostname()}:${process.pid}`;
  }

  /** The configured store, or an in-memory one after a loud warning when it cannot be opened. */
  store(): Promise<SessionStore> {
    return (this.storeP ??= openStore(this.cfg(), { home: home() }).catch((e) => {
      this.fallback = true;
      this.warn("open", `the session store (${this.backend}) cannot be used: ${(e as Error).message}. Sessions are kept in memory for this process only: what earlier calls read, loaded and approved is not restored (Edit needs a new Read, approvals are asked again), and nothing is saved.`);
      return new MemoryStore(this.cfg());
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
      this.tracks.set(s.id, (t = { session: s, persistent: this.persistent(s.id), synced: new Synced(), version: s.version, ops: [], usage: new Map(), tasks: new Map() }));
      if (this.tracks.size > MAX_TRACKS) this.forget();
    } else if (t.session !== s) {
      // a new in-memory session under a known id (after host.endSession): it has synced nothing yet
      Object.assign(t, { session: s, synced: new Synced(), version: s.version });
    }
    return t;
  }

  /** Bound the per-session bookkeeping of a long-lived serve: drop the oldest entries with nothing pending. */
  private forget(): void {
    for (const [id, t] of this.tracks) {
      if (this.tracks.size <= MAX_TRACKS / 2) break;
      if (!t.ops.length && !t.usage.size && ![...t.tasks.values()].some((e) => e.state === "running")) this.tracks.delete(id);
    }
  }

  /** host.hooks.sessionOpen: restore a stored session into the fresh in-memory one. */
  async open(s: SessionData): Promise<void> {
    const t = this.track(s);
    if (!t.persistent) return;
    const store = await this.store();
    if (this.fallback) return;
    try {
      const rec = await store.get(s.id);
      if (!rec) return;
      t.synced = restore(s, rec);
      this.restoring = true;
      try {
        this.replayApprovals(s.id, rec.fields[FIELDS.approvals] ?? {});
      } finally {
        this.restoring = false;
      }
    } catch (e) {
      this.warn("read", `session ${s.id} could not be read from ${store.location ?? store.backend}: ${(e as Error).message}. It goes on with in-memory state: Edit needs a new Read, approvals are asked again.`);
    } finally {
      t.version = s.version;
    }
  }

  private replayApprovals(sessionId: string, approvals: Record<string, unknown>): void {
    for (const v of Object.values(approvals)) {
      const a = v as { behavior?: string; rule?: string; tool?: string; input?: unknown };
      if (a.behavior !== "allow" || typeof a.rule !== "string") continue;
      this.ctx.host.addPermissionRule?.({ behavior: "allow", rule: a.rule, destination: "session", tool: a.tool, input: a.input, sessionId });
    }
  }

  /** host.hooks.addPermissionRule (observer, before the permissions plugin takes it): remember session approvals. */
  approval(u: PermissionRuleUpdate): undefined {
    if (this.restoring || u.destination !== "session" || u.sessionId === undefined || u.behavior !== "allow") return undefined;
    const t = this.tracks.get(u.sessionId);
    if (!t?.persistent) return undefined;
    const src = (u.input ?? {}) as Record<string, unknown>;
    const input = Object.fromEntries(TRIM_KEYS.filter((k) => typeof src[k] === "string").map((k) => [k, src[k] as string]));
    const key = `${u.tool ?? ""} ${u.rule} ${JSON.stringify(input)}`.slice(0, 2000);
    t.ops.push({ op: "set", field: FIELDS.approvals, key, value: { behavior: u.behavior, rule: u.rule, tool: u.tool ?? null, input } });
    return undefined;
  }

  /** Count the call for usage: all a memory-backed host does per call (a sync tap: no promise per call). */
  count(r: CallRecord): Track {
    const call = r.call;
    const t = this.track(call.session);
    if (r.outcome.executed && call.tool) t.usage.set(call.tool.name, (t.usage.get(call.tool.name) ?? 0) + 1);
    return t;
  }

  /** build.hooks.persist with a store: count the call, register a background task, save what changed. */
  async after(r: CallRecord): Promise<void> {
    const call = r.call;
    const t = this.count(r);
    if (!t.persistent) return;
    if (r.outcome.executed && call.tool) this.taskOps(t, call, r.outcome.result);
    if (call.session.version !== t.version || t.ops.length) await this.save(call.session, t);
    else this.later();
  }

  private taskOps(t: Track, call: CallState, result: ToolResult): void {
    const meta = (result.meta ?? {}) as Record<string, unknown>;
    const name = call.tool!.name;
    if (name === "Bash" && typeof meta.backgroundTaskId === "string") {
      const e: TaskEntry = { taskId: meta.backgroundTaskId, instance: this.instanceId, kind: "bash", command: String(call.input?.command ?? "").slice(0, 500), startedAt: Date.now(), state: "running", updatedAt: Date.now() };
      t.tasks.set(e.taskId, e);
      t.ops.push({ op: "set", field: FIELDS.tasks, key: e.taskId, value: { ...e } });
    } else if (name === "TaskStop" && typeof meta.task_id === "string" && t.tasks.delete(meta.task_id)) {
      t.ops.push({ op: "delete", field: FIELDS.tasks, key: meta.task_id });
    } else if (name === "TaskOutput" && typeof meta.task_id === "string" && meta.status !== "running") {
      const e = t.tasks.get(meta.task_id);
      if (e && e.state === "running") {
        Object.assign(e, { state: "exited", exitCode: typeof meta.exitCode === "number" ? meta.exitCode : null, updatedAt: Date.now() });
        t.ops.push({ op: "set", field: FIELDS.tasks, key: e.taskId, value: { ...e } });
      }
    }
  }

  private usageOps(t: Track): SessionOp[] {
    const ops: SessionOp[] = [...t.usage].map(([key, by]) => ({ op: "incr", field: FIELDS.usage, key, by }));
    t.usage.clear();
    return ops;
  }

  private async save(s: SessionData, t: Track): Promise<void> {
    const store = await this.store();
    if (this.fallback) return;
    const version = s.version;
    const delta = t.synced.changes(s);
    const changed = [...delta.ops, ...t.ops.splice(0)];
    t.version = version;
    if (!changed.length) {
      delta.commit(); // same texts, new objects: compare by the new identities next time
      return this.later();
    } // (nothing but usage counts: they wait for the next write or the flush)
    const ops = [...changed, ...this.usageOps(t)];
    try {
      await store.patch(s.id, ops);
      delta.commit();
    } catch (e) {
      const code = e instanceof SessionStoreError ? e.code : "error";
      this.warn(`write:${code}`, `session ${s.id} could not be saved to ${store.location ?? store.backend}: ${(e as Error).message}. It goes on in memory; later processes will not see this call's changes.`);
    }
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
    const store = this.storeP && !this.fallback ? await this.store() : undefined;
    for (const [id, t] of this.tracks) {
      if (!t.persistent || !store || (!t.usage.size && !t.ops.length)) continue;
      const ops = [...t.ops.splice(0), ...this.usageOps(t)];
      await store.patch(id, ops).catch((e: Error) => this.warn("flush", `usage counts of session ${id} were not saved: ${e.message}`));
    }
  }

  /** build.hooks.call for TaskOutput / TaskStop: a task another instance owns is answered "runs on instance X". */
  async remoteTask(call: CallState): Promise<ToolResult | undefined> {
    const name = call.tool?.name;
    if (name !== "TaskOutput" && name !== "TaskStop") return undefined;
    const t = this.track(call.session);
    const id = call.input?.task_id ?? call.input?.bash_id ?? call.input?.shell_id;
    if (!t.persistent || typeof id !== "string" || t.tasks.has(id)) return undefined;
    const store = await this.store();
    let e: TaskEntry | undefined;
    try {
      e = (await store.get(call.session.id))?.fields[FIELDS.tasks]?.[id] as TaskEntry | undefined;
    } catch (err) {
      return { content: [{ type: "text", text: `Task ${id}: the session store cannot be read (${(err as Error).message}), so it is unknown which instance runs it; not answered from this one.` }], isError: true };
    }
    if (!e || e.instance === this.instanceId) return undefined;
    const where = e.state === "running" ? `runs on instance ${e.instance}` : e.state === "gone" ? `ran on instance ${e.instance}, which has closed: its process and output are gone` : `ran on instance ${e.instance} (exited${e.exitCode != null ? ` with code ${e.exitCode}` : ""})`;
    const text = `Task ${id} (${e.command}) ${where}; this instance (${this.instanceId}) cannot ${name === "TaskStop" ? "stop it" : "read its output"}. ${e.state === "running" ? `Send ${name} to ${e.instance}.` : ""}`.trim();
    return { content: [{ type: "text", text }], isError: true, meta: { task_id: id, instance: e.instance, state: e.state } };
  }

  /** Usage counts: the store's totals (or one session's) plus what this process has not flushed yet. */
  async usage(opts: { sessionId?: string } = {}): Promise<Record<string, UsageCount>> {
    const out: Record<string, UsageCount> = {};
    if (this.backend !== "memory") {
      try {
        Object.assign(out, await (await this.store()).usage(opts));
      } catch (e) {
        this.warn("usage", `usage counts could not be read: ${(e as Error).message}`);
      }
    }
    for (const [id, t] of this.tracks) {
      if (opts.sessionId !== undefined && id !== opts.sessionId) continue;
      for (const [tool, n] of t.usage) out[tool] = { count: (out[tool]?.count ?? 0) + n, lastUsed: Date.now() };
    }
    return out;
  }

  /** How many sessions used each tool: the store's sessions, and sessions of this process not stored (or not yet). */
  async sessionCounts(): Promise<{ sessions: number; tools: Record<string, number> }> {
    const tools: Record<string, number> = {};
    const seen = new Set<string>();
    const count = (names: Iterable<string>) => {
      for (const n of new Set(names)) tools[n] = (tools[n] ?? 0) + 1;
    };
    if (this.backend !== "memory") {
      try {
        const st = await this.store();
        for (const s of await st.list()) {
          seen.add(s.id);
          count([...Object.keys(await st.usage({ sessionId: s.id })), ...(this.tracks.get(s.id)?.usage.keys() ?? [])]);
        }
      } catch (e) {
        this.warn("usage", `usage counts could not be read: ${(e as Error).message}`);
      }
    }
    for (const [id, t] of this.tracks) if (!seen.has(id) && t.usage.size) (seen.add(id), count(t.usage.keys()));
    return { sessions: seen.size, tools };
  }

  async close(): Promise<void> {
    clearTimeout(this.timer);
    for (const t of this.tracks.values()) {
      for (const e of t.tasks.values()) if (e.state === "running") t.ops.push({ op: "set", field: FIELDS.tasks, key: e.taskId, value: { ...e, state: "gone", updatedAt: Date.now() } });
    }
    await this.flush();
    if (this.storeP) await (await this.storeP).close();
  }
}
