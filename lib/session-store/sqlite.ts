/**
 * The on-disk default: one SQLite file (better-sqlite3 12.x; 13.x needs Node 22) in WAL mode, so many CLI
 * processes read while one writes, with a busy timeout so a writer waits for another instead of failing.
 * Every patch is one `BEGIN IMMEDIATE` transaction over per-key rows, so concurrent writers of one
 * session merge instead of overwriting each other, and a crash mid-write leaves the last committed state.
 * SQLite errors become SessionStoreErrors: a damaged file is "corrupt", a full disk, an unwritable
 * directory or a lock held past the timeout is "unavailable".
 */
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";
import { checkOps, checkSessionId, expiry, resolveLimits } from "./limits.ts";
import { SessionStoreError, FIELDS, type Json, type PatchOptions, type PatchResult, type SessionOp, type SessionRecord, type SessionStore, type SessionSummary, type StoreLimits, type StoreOptions, type SyncSessionStore, type UsageCount } from "./types.ts";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, version INTEGER NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, bytes INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS sessions_updated ON sessions (updated_at);
CREATE TABLE IF NOT EXISTS entries (session_id TEXT NOT NULL, field TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (session_id, field, key)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS usage_totals (tool TEXT PRIMARY KEY, count INTEGER NOT NULL, last_used INTEGER NOT NULL);
`;

export interface SqliteOptions extends StoreOptions {
  /** How long a writer waits for another process's lock, in ms (default 5000). */
  busyTimeoutMs?: number;
}

interface Row {
  id: string;
  version: number;
  created_at: number;
  updated_at: number;
  bytes: number;
}

/** Map a SQLite error to the store's codes (and keep its message and the file). */
export function storeError(e: unknown, file: string): SessionStoreError {
  if (e instanceof SessionStoreError) return e;
  const code = String((e as { code?: string }).code ?? "");
  const msg = (e as Error)?.message ?? String(e);
  const kind = /CORRUPT|NOTADB/.test(code) || /malformed|not a database/i.test(msg) ? "corrupt" : "unavailable";
  return new SessionStoreError(kind, `session store ${file}: ${msg}${code ? ` (${code})` : ""}`, "sqlite");
}

export class SqliteStore implements SessionStore {
  readonly backend = "sqlite";
  readonly limits: StoreLimits;
  private readonly db: BetterSqlite3.Database;
  private readonly now: () => number;
  private readonly q: ReturnType<SqliteStore["prepare"]>;
  /** One transaction wrapper, made once (better-sqlite3 builds a function per transaction()). */
  private readonly tx: BetterSqlite3.Transaction<(fn: () => unknown) => unknown>;
  private closed = false;

  constructor(
    readonly location: string,
    opts: SqliteOptions = {},
  ) {
    this.limits = resolveLimits(opts);
    this.now = opts.now ?? Date.now;
    try {
      const Database = createRequire(import.meta.url)("better-sqlite3") as typeof BetterSqlite3;
      fs.mkdirSync(path.dirname(location), { recursive: true, mode: 0o700 });
      this.db = new Database(location, { timeout: opts.busyTimeoutMs ?? 5000 });
      this.db.pragma("journal_mode = WAL");
      this.db.pragma("synchronous = NORMAL");
      this.db.exec(SCHEMA);
      this.q = this.prepare();
      this.tx = this.db.transaction((fn: () => unknown) => fn());
    } catch (e) {
      throw storeError(e, location);
    }
    try {
      fs.chmodSync(location, 0o600); // approvals live here
    } catch {
      /* not ours to change */
    }
  }

  private prepare() {
    const d = this.db;
    return {
      row: d.prepare<[string], Row>("SELECT * FROM sessions WHERE id = ?"),
      entries: d.prepare<[string], { field: string; key: string; value: string }>("SELECT field, key, value FROM entries WHERE session_id = ?"),
      entry: d.prepare<[string, string, string], { value: string }>("SELECT value FROM entries WHERE session_id = ? AND field = ? AND key = ?"),
      fieldEntries: d.prepare<[string, string], { key: string; value: string }>("SELECT key, value FROM entries WHERE session_id = ? AND field = ?"),
      put: d.prepare("INSERT INTO entries (session_id, field, key, value) VALUES (?, ?, ?, ?) ON CONFLICT (session_id, field, key) DO UPDATE SET value = excluded.value"),
      del: d.prepare("DELETE FROM entries WHERE session_id = ? AND field = ? AND key = ?"),
      clear: d.prepare("DELETE FROM entries WHERE session_id = ? AND field = ?"),
      upsert: d.prepare("INSERT INTO sessions (id, version, created_at, updated_at, bytes) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET version = excluded.version, updated_at = excluded.updated_at, bytes = excluded.bytes"),
      drop: d.prepare("DELETE FROM sessions WHERE id = ?"),
      dropEntries: d.prepare("DELETE FROM entries WHERE session_id = ?"),
      total: d.prepare("INSERT INTO usage_totals (tool, count, last_used) VALUES (?, ?, ?) ON CONFLICT (tool) DO UPDATE SET count = count + excluded.count, last_used = excluded.last_used"),
      totals: d.prepare<[], { tool: string; count: number; last_used: number }>("SELECT tool, count, last_used FROM usage_totals"),
      count: d.prepare<[], { n: number }>("SELECT count(*) AS n FROM sessions"),
      oldest: d.prepare<[number], { id: string }>("SELECT id FROM sessions ORDER BY updated_at ASC, rowid ASC LIMIT ?"),
      list: d.prepare<[number], Row>("SELECT * FROM sessions ORDER BY updated_at DESC, rowid DESC LIMIT ?"),
      counts: d.prepare<[string], { field: string; n: number }>("SELECT field, count(*) AS n FROM entries WHERE session_id = ? GROUP BY field"),
      expired: d.prepare<[number], { id: string }>("SELECT id FROM sessions WHERE updated_at <= ?"),
      version: d.prepare<[string], Pick<Row, "version" | "updated_at">>("SELECT version, updated_at FROM sessions WHERE id = ?"),
      // changes only when another connection commits (never for this one's own writes): a one-step "did anything change?"
      dataVersion: d.prepare<[], number>("PRAGMA data_version").pluck(),
    };
  }

  /** Run `fn` on the database, mapping SQLite's errors; `write` runs it in a BEGIN IMMEDIATE transaction. */
  private run<T>(fn: () => T, write = false): T {
    if (this.closed) throw new SessionStoreError("closed", `the session store ${this.location} is closed`, this.backend);
    try {
      return write ? (this.tx.immediate(fn) as T) : fn();
    } catch (e) {
      throw storeError(e, this.location);
    }
  }

  private expired(r: Row, now = this.now()): boolean {
    const at = expiry(r.updated_at, this.limits);
    return at !== null && at <= now;
  }

  /** The live row, deleting an expired one (inside a write transaction only). */
  private liveRow(id: string, write: boolean): Row | undefined {
    const r = this.q.row.get(id);
    if (!r || !this.expired(r)) return r;
    if (write) this.dropSession(id);
    return undefined;
  }

  private dropSession(id: string): void {
    this.q.dropEntries.run(id);
    this.q.drop.run(id);
  }

  /** The synchronous face (types.ts SyncSessionStore): the same checks and transactions, no promise. */
  readonly sync: SyncSessionStore = {
    get: (id) => this.getNow(id),
    patch: (id, ops, opts = {}) => this.patchNow(id, ops, opts),
    version: (id) => this.versionNow(id),
    stamp: () => this.run(() => this.q.dataVersion.get() as number),
  };

  async get(id: string): Promise<SessionRecord | undefined> {
    return this.getNow(id);
  }

  async version(id: string): Promise<number> {
    return this.versionNow(id);
  }

  private versionNow(id: string): number {
    checkSessionId(id, this.backend);
    return this.run(() => {
      const r = this.q.version.get(id);
      if (!r) return 0;
      const at = expiry(r.updated_at, this.limits);
      return at !== null && at <= this.now() ? 0 : r.version;
    });
  }

  private getNow(id: string): SessionRecord | undefined {
    checkSessionId(id, this.backend);
    return this.run(() => {
      const r = this.liveRow(id, false);
      if (!r) return undefined;
      const fields: Record<string, Record<string, Json>> = {};
      for (const e of this.q.entries.all(id)) (fields[e.field] ??= {})[e.key] = JSON.parse(e.value) as Json;
      return { id, version: r.version, createdAt: r.created_at, updatedAt: r.updated_at, expiresAt: expiry(r.updated_at, this.limits), bytes: r.bytes, fields };
    });
  }

  async patch(id: string, ops: readonly SessionOp[], opts: PatchOptions = {}): Promise<PatchResult> {
    return this.patchNow(id, ops, opts);
  }

  private patchNow(id: string, ops: readonly SessionOp[], opts: PatchOptions): PatchResult {
    checkSessionId(id, this.backend);
    checkOps(ops, this.backend);
    return this.run(() => this.applyPatch(id, ops, opts), ops.length > 0 || opts.ifVersion !== undefined);
  }

  private applyPatch(id: string, ops: readonly SessionOp[], opts: PatchOptions): PatchResult {
    const cur = this.liveRow(id, true);
    if (opts.ifVersion !== undefined && (cur?.version ?? 0) !== opts.ifVersion) {
      throw new SessionStoreError("conflict", `session ${id} is at version ${cur?.version ?? 0}, not ${opts.ifVersion}`, this.backend);
    }
    if (!ops.length) return { version: cur?.version ?? 0, bytes: cur?.bytes ?? 0 };
    const now = this.now();
    let bytes = cur?.bytes ?? 0;
    for (const o of ops) {
      if (o.op === "clear") {
        for (const e of this.q.fieldEntries.all(id, o.field)) bytes -= e.key.length + e.value.length;
        this.q.clear.run(id, o.field);
        continue;
      }
      const old = this.q.entry.get(id, o.field, o.key)?.value;
      if (old !== undefined) bytes -= o.key.length + old.length;
      if (o.op === "delete") {
        this.q.del.run(id, o.field, o.key);
        continue;
      }
      let value: Json = o.op === "set" ? o.value : o.by;
      if (o.op === "incr") {
        const prev = old === undefined ? 0 : (JSON.parse(old) as unknown);
        value = (typeof prev === "number" ? prev : 0) + o.by;
        if (o.field === FIELDS.usage) this.q.total.run(o.key, o.by, now);
      }
      const text = JSON.stringify(value);
      this.q.put.run(id, o.field, o.key, text);
      bytes += o.key.length + text.length;
    }
    if (bytes > this.limits.maxSessionBytes) {
      throw new SessionStoreError("too-large", `session ${id} would hold ${bytes} bytes, over the limit of ${this.limits.maxSessionBytes} (sessions.maxSessionBytes)`, this.backend);
    }
    const version = (cur?.version ?? 0) + 1;
    this.q.upsert.run(id, version, cur?.created_at ?? now, now, bytes);
    if (!cur) this.evict();
    return { version, bytes };
  }

  private evict(): void {
    const over = this.q.count.get()!.n - this.limits.maxSessions;
    if (over > 0) for (const { id } of this.q.oldest.all(over)) this.dropSession(id);
  }

  async list(opts: { limit?: number } = {}): Promise<SessionSummary[]> {
    await this.sweep();
    return this.run(() =>
      this.q.list.all(opts.limit ?? -1).map((r) => ({
        id: r.id,
        version: r.version,
        createdAt: r.created_at,
        updatedAt: r.updated_at,
        expiresAt: expiry(r.updated_at, this.limits),
        bytes: r.bytes,
        fields: Object.fromEntries(this.q.counts.all(r.id).map((c) => [c.field, c.n])),
      })),
    );
  }

  async remove(id: string): Promise<boolean> {
    checkSessionId(id, this.backend);
    return this.run(() => {
      const live = !!this.liveRow(id, true);
      this.dropSession(id);
      return live;
    }, true);
  }

  async usage(opts: { sessionId?: string } = {}): Promise<Record<string, UsageCount>> {
    if (opts.sessionId === undefined) return this.run(() => Object.fromEntries(this.q.totals.all().map((t) => [t.tool, { count: t.count, lastUsed: t.last_used }])));
    const id = checkSessionId(opts.sessionId, this.backend);
    return this.run(() => {
      const r = this.liveRow(id, false);
      if (!r) return {};
      return Object.fromEntries(this.q.fieldEntries.all(id, FIELDS.usage).map((e) => [e.key, { count: JSON.parse(e.value) as number, lastUsed: r.updated_at }]));
    });
  }

  async sweep(): Promise<number> {
    if (this.limits.ttlMs <= 0) return this.run(() => 0);
    return this.run(() => {
      const gone = this.q.expired.all(this.now() - this.limits.ttlMs);
      for (const { id } of gone) this.dropSession(id);
      return gone.length;
    }, true);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      this.db.close();
    } catch {
      /* already gone */
    }
  }
}
