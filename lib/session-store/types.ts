/**
 * The session store: one interface, several backends (memory.ts; sqlite.ts, the on-disk default; a Redis
 * backend for several `serve` instances). A session record is a set of *fields*, each a map of keys to
 * JSON values, so that writers change single keys (set / delete / incr) instead of whole records: two
 * processes that read different files in one session both keep their read state, and usage counters
 * add up exactly however many processes increment them. `ifVersion` adds compare-and-set for a writer
 * that needs the whole record unchanged since it read it.
 *
 * Every method is async (a network backend must fit); a backend that cannot reach its storage rejects
 * with a SessionStoreError (code "unavailable" / "corrupt") and never returns a wrong record.
 * The contract every backend must pass: test/session-store/contract.ts (`storeContract`).
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * The fields the sessions plugin writes (plugins/sessions); other plugins' JSON state uses
 * `shared:<key>` / `state:<key>` (a Map-valued entry of Session.shared / Session.stateFor(key)).
 */
export const FIELDS = {
  /** key: deferred tool name, value: its load position (ToolSearch loads, in load order). */
  loaded: "loaded",
  /** key: a Session.shared key whose value is a JSON scalar/object (e.g. the Bash cwd), value: that value. */
  shared: "shared",
  /** key: the rule text, value: {behavior, rule, tool}: "allow always" answers given in this session. */
  approvals: "approvals",
  /** key: tool name, value: calls in this session (incr only). */
  usage: "usage",
  /** key: task id, value: TaskEntry — the background tasks started in this session and who owns them. */
  tasks: "tasks",
} as const;

export interface SessionRecord {
  id: string;
  /** Bumped by every patch that applied at least one operation; starts at 1 on creation. */
  version: number;
  createdAt: number;
  updatedAt: number;
  /** updatedAt + ttlMs: from then on the record is gone (get → undefined, list omits it). null: never. */
  expiresAt: number | null;
  /** Size of the stored keys and JSON values, as the size limit counts it. */
  bytes: number;
  fields: Record<string, Record<string, Json>>;
}

export interface SessionSummary {
  id: string;
  version: number;
  createdAt: number;
  updatedAt: number;
  expiresAt: number | null;
  bytes: number;
  /** Keys per field. */
  fields: Record<string, number>;
}

export type SessionOp =
  | { op: "set"; field: string; key: string; value: Json }
  | { op: "delete"; field: string; key: string }
  /** Add `by` to a numeric value (absent = 0). On the "usage" field the store's totals (usage()) grow too. */
  | { op: "incr"; field: string; key: string; by: number }
  /** Remove every key of a field. */
  | { op: "clear"; field: string };

export interface PatchOptions {
  /** Apply only if the record's version is this (0 = the record must not exist); else reject with code "conflict". */
  ifVersion?: number;
}

export interface PatchResult {
  version: number;
  bytes: number;
}

/** A background task's entry in the registry (field "tasks"). Its process lives on `instance` only. */
export interface TaskEntry {
  taskId: string;
  /** The owning instance (StoreOptions.instanceId of the process that started it). */
  instance: string;
  kind: "bash" | "exec";
  command: string;
  startedAt: number;
  /** "running" as long as the owner has not reported otherwise; "gone" when the owner closed while it ran. */
  state: "running" | "exited" | "gone";
  exitCode?: number | null;
  updatedAt: number;
}

export interface UsageCount {
  count: number;
  /** ms since the epoch of the last increment. */
  lastUsed: number;
}

export interface StoreLimits {
  /** A session not written for this long expires (default 7 days; 0 = never). */
  ttlMs: number;
  /** Stored sessions at most; beyond it the least recently updated are evicted on write (default 1000). */
  maxSessions: number;
  /** Bytes per session at most (keys + JSON values); a patch that would exceed it is refused, code "too-large" (default 1 MiB). */
  maxSessionBytes: number;
}

export interface StoreOptions extends Partial<StoreLimits> {
  /** The clock (ms); tests move it to check expiry without waiting. */
  now?: () => number;
}

export type StoreErrorCode = "bad-id" | "bad-op" | "conflict" | "too-large" | "unavailable" | "corrupt" | "closed";

export class SessionStoreError extends Error {
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    readonly backend?: string,
  ) {
    super(message);
    this.name = "SessionStoreError";
  }
}

export interface SessionStore {
  /** "memory", "sqlite", "redis" … */
  readonly backend: string;
  /** Where it keeps its data (a file path, a URL without credentials); undefined in memory. */
  readonly location?: string;
  readonly limits: StoreLimits;
  get(id: string): Promise<SessionRecord | undefined>;
  /** Apply every op atomically (all or none), creating the record if needed. An empty op list changes nothing. */
  patch(id: string, ops: readonly SessionOp[], opts?: PatchOptions): Promise<PatchResult>;
  /** Live sessions, most recently updated first. */
  list(opts?: { limit?: number }): Promise<SessionSummary[]>;
  remove(id: string): Promise<boolean>;
  /**
   * Tool usage counts: of one session (its "usage" field), or — without sessionId — the store's totals
   * over every session ever written, including removed and expired ones (for usage-driven deferral).
   */
  usage(opts?: { sessionId?: string }): Promise<Record<string, UsageCount>>;
  /** Delete expired sessions now; returns how many. Backends also drop them lazily. */
  sweep(): Promise<number>;
  close(): Promise<void>;
  /**
   * The record's current version (0: none, or expired) — one cheap read, so that a long-lived copy of a
   * session can tell whether another process or instance changed it since (then get() it). Optional for
   * backends of other projects; toolhost's three have it.
   */
  version?(id: string): Promise<number>;
  /** A backend on a synchronous local engine (sqlite) offers the same operations without a promise. */
  readonly sync?: SyncSessionStore;
}

/**
 * The synchronous face of a local backend (SqliteStore.sync): the sessions plugin writes and checks from a
 * synchronous per-call tap (no promise per call) and flushes at process exit, when nothing async runs.
 */
export interface SyncSessionStore {
  get(id: string): SessionRecord | undefined;
  patch(id: string, ops: readonly SessionOp[], opts?: PatchOptions): PatchResult;
  version(id: string): number;
  /** A number that changes whenever another connection (another process) committed anything: while it is the same, no stored session changed under this process. */
  stamp(): number;
}

/**
 * The Session.shared key under which the sessions plugin leaves, in every stored session, its answer for a
 * TaskOutput / TaskStop of a task this process does not run: "runs on instance X" when the session's task
 * registry names another instance, else undefined. A function, so it is never stored (plugins/sessions
 * codec.ts keeps JSON only). builtin-tools asks it only for a task id it does not know: no per-call hook.
 */
export const REMOTE_TASK_KEY = "sessions:remoteTask";

/** What REMOTE_TASK_KEY holds. */
export type RemoteTaskAnswer = (taskId: string, tool: "TaskOutput" | "TaskStop") => Promise<{ content: Array<{ type: "text"; text: string }>; isError: true; meta?: Record<string, unknown> } | undefined>;

/** The session store's answer for a task this process does not know (see REMOTE_TASK_KEY); undefined: none. */
export async function askRemoteTask(shared: Map<string, unknown> | undefined, taskId: string, tool: "TaskOutput" | "TaskStop"): Promise<Awaited<ReturnType<RemoteTaskAnswer>>> {
  const ask = shared?.get(REMOTE_TASK_KEY);
  return typeof ask === "function" ? (ask as RemoteTaskAnswer)(taskId, tool) : undefined;
}

/** The "sessions.usage" service (plugins/sessions): tool usage counts for usage-driven deferral. */
export interface SessionUsage {
  /** Totals across every session of the configured store (with this process's unflushed increments), or one session's. */
  counts(opts?: { sessionId?: string }): Promise<Record<string, UsageCount>>;
  /** Session frequency: how many sessions there are, and how many of them used each tool (stored ones and this process's). */
  sessionCounts?(): Promise<{ sessions: number; tools: Record<string, number> }>;
}
