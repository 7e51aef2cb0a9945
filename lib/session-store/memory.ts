/**
 * The in-memory backend: what a library host gets by default, and the fallback when a disk or network
 * store cannot be used. Values are kept as JSON text, so no caller can change a stored value in place.
 * Two handles made from one MemoryData see the same sessions (as two processes see one file or server).
 */
import { checkOps, checkSessionId, entryBytes, expiry, resolveLimits } from "./limits.ts";
import { SessionStoreError, FIELDS, type Json, type PatchOptions, type PatchResult, type SessionOp, type SessionRecord, type SessionStore, type SessionSummary, type StoreLimits, type StoreOptions, type UsageCount } from "./types.ts";

interface Entry {
  version: number;
  createdAt: number;
  updatedAt: number;
  bytes: number;
  fields: Map<string, Map<string, string>>;
}

export interface MemoryData {
  sessions: Map<string, Entry>;
  totals: Map<string, UsageCount>;
}

export function memoryData(): MemoryData {
  return { sessions: new Map(), totals: new Map() };
}

export class MemoryStore implements SessionStore {
  readonly backend = "memory";
  readonly location = undefined;
  readonly limits: StoreLimits;
  private readonly now: () => number;
  private closed = false;

  constructor(
    opts: StoreOptions = {},
    private readonly data: MemoryData = memoryData(),
  ) {
    this.limits = resolveLimits(opts);
    this.now = opts.now ?? Date.now;
  }

  private live(id: string): Entry | undefined {
    this.open();
    const e = this.data.sessions.get(checkSessionId(id, this.backend));
    if (e && this.expired(e)) {
      this.data.sessions.delete(id);
      return undefined;
    }
    return e;
  }

  private expired(e: Entry): boolean {
    const at = expiry(e.updatedAt, this.limits);
    return at !== null && at <= this.now();
  }

  private open(): void {
    if (this.closed) throw new SessionStoreError("closed", "the memory session store is closed", this.backend);
  }

  async version(id: string): Promise<number> {
    return this.live(id)?.version ?? 0;
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    const e = this.live(id);
    if (!e) return undefined;
    const fields: Record<string, Record<string, Json>> = {};
    for (const [f, m] of e.fields) fields[f] = Object.fromEntries([...m].map(([k, v]) => [k, JSON.parse(v) as Json]));
    return { id, version: e.version, createdAt: e.createdAt, updatedAt: e.updatedAt, expiresAt: expiry(e.updatedAt, this.limits), bytes: e.bytes, fields };
  }

  async patch(id: string, ops: readonly SessionOp[], opts: PatchOptions = {}): Promise<PatchResult> {
    checkOps(ops, this.backend);
    const cur = this.live(id);
    if (opts.ifVersion !== undefined && (cur?.version ?? 0) !== opts.ifVersion) {
      throw new SessionStoreError("conflict", `session ${id} is at version ${cur?.version ?? 0}, not ${opts.ifVersion}`, this.backend);
    }
    if (!ops.length) return { version: cur?.version ?? 0, bytes: cur?.bytes ?? 0 };
    const now = this.now();
    // Work on a copy: a refused patch (too large) leaves the record as it was.
    const fields = new Map([...(cur?.fields ?? [])].map(([f, m]) => [f, new Map(m)]));
    let bytes = cur?.bytes ?? 0;
    const usage: [string, number][] = [];
    for (const o of ops) {
      let m = fields.get(o.field);
      if (o.op === "clear") {
        for (const [k, v] of m ?? []) bytes -= k.length + v.length;
        fields.delete(o.field);
        continue;
      }
      if (!m) fields.set(o.field, (m = new Map()));
      const old = m.get(o.key);
      if (old !== undefined) bytes -= o.key.length + old.length;
      if (o.op === "delete") {
        m.delete(o.key);
        if (!m.size) fields.delete(o.field);
        continue;
      }
      const value: Json = o.op === "set" ? o.value : (old !== undefined && typeof JSON.parse(old) === "number" ? (JSON.parse(old) as number) : 0) + o.by;
      if (o.op === "incr" && o.field === FIELDS.usage) usage.push([o.key, o.by]);
      const text = JSON.stringify(value);
      m.set(o.key, text);
      bytes += entryBytes(o.key, value);
    }
    if (bytes > this.limits.maxSessionBytes) {
      throw new SessionStoreError("too-large", `session ${id} would hold ${bytes} bytes, over the limit of ${this.limits.maxSessionBytes} (sessions.maxSessionBytes)`, this.backend);
    }
    const entry: Entry = { version: (cur?.version ?? 0) + 1, createdAt: cur?.createdAt ?? now, updatedAt: now, bytes, fields };
    this.data.sessions.delete(id); // re-insert: the Map's order is update order (eviction takes the first)
    this.data.sessions.set(id, entry);
    for (const [tool, by] of usage) {
      const t = this.data.totals.get(tool);
      this.data.totals.set(tool, { count: (t?.count ?? 0) + by, lastUsed: now });
    }
    this.evict();
    return { version: entry.version, bytes };
  }

  private evict(): void {
    const s = this.data.sessions;
    for (const id of s.keys()) {
      if (s.size <= this.limits.maxSessions) break;
      s.delete(id);
    }
  }

  async list(opts: { limit?: number } = {}): Promise<SessionSummary[]> {
    this.open();
    await this.sweep();
    const out: SessionSummary[] = [];
    for (const [id, e] of [...this.data.sessions].reverse()) {
      if (opts.limit !== undefined && out.length >= opts.limit) break;
      out.push({ id, version: e.version, createdAt: e.createdAt, updatedAt: e.updatedAt, expiresAt: expiry(e.updatedAt, this.limits), bytes: e.bytes, fields: Object.fromEntries([...e.fields].map(([f, m]) => [f, m.size])) });
    }
    return out;
  }

  async remove(id: string): Promise<boolean> {
    const had = !!this.live(id);
    this.data.sessions.delete(id);
    return had;
  }

  async usage(opts: { sessionId?: string } = {}): Promise<Record<string, UsageCount>> {
    this.open();
    if (opts.sessionId === undefined) return Object.fromEntries([...this.data.totals].map(([k, v]) => [k, { ...v }]));
    const e = this.live(opts.sessionId);
    const m = e?.fields.get(FIELDS.usage);
    return Object.fromEntries([...(m ?? [])].map(([k, v]) => [k, { count: JSON.parse(v) as number, lastUsed: e!.updatedAt }]));
  }

  async sweep(): Promise<number> {
    this.open();
    let n = 0;
    for (const [id, e] of this.data.sessions) if (this.expired(e) && this.data.sessions.delete(id)) n++;
    return n;
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
