/**
 * The Redis backend (`sessions.backend: "redis"`, `sessions.url: "redis://127.0.0.1:6379/0"`): the store
 * several `toolhost serve` instances share. Every write is one Lua script (redis-scripts.ts), so patches
 * are atomic across instances; reads are single commands. The client is @redis/client, with no offline
 * queue and a per-command timeout: when Redis is down a call fails at once with code "unavailable"
 * (the sessions plugin then warns and falls back per field), and the client reconnects in the
 * background so the store works again as soon as Redis is back.
 */
import { createHash } from "node:crypto";
import { checkOps, checkSessionId, expiry, resolveLimits } from "./limits.ts";
import { PATCH, REMOVE, SWEEP } from "./redis-scripts.ts";
import { SessionStoreError, type Json, type PatchOptions, type PatchResult, type SessionOp, type SessionRecord, type SessionStore, type SessionSummary, type StoreLimits, type StoreOptions, type UsageCount } from "./types.ts";

type Client = ReturnType<typeof import("@redis/client").createClient>;

export interface RedisStoreOptions extends StoreOptions {
  url: string;
  /** Key prefix (default "toolhost:"): several toolhost fleets, or test runs, can share one Redis. */
  prefix?: string;
  /** A command not answered within this many ms fails with "unavailable" (default 2000). */
  timeoutMs?: number;
}

const sha = (s: string) => createHash("sha1").update(s).digest("hex");
const SCRIPTS = { patch: { text: PATCH, sha: sha(PATCH) }, remove: { text: REMOVE, sha: sha(REMOVE) }, sweep: { text: SWEEP, sha: sha(SWEEP) } };

/** The URL without credentials (for messages and `location`). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = "";
    u.password = "";
    return u.toString();
  } catch {
    return "redis://(unparsable url)";
  }
}

/** Open a Redis store: connects first, and refuses (code "unavailable") when Redis cannot be reached. */
export async function openRedisStore(opts: RedisStoreOptions): Promise<RedisStore> {
  const { createClient } = await import("@redis/client");
  const timeoutMs = opts.timeoutMs ?? 2000;
  const where = redactUrl(opts.url);
  let lastError = "";
  let connected = false;
  const client = createClient({
    url: opts.url,
    disableOfflineQueue: true,
    // The first connection fails at once (a refused port is an answer); once connected, a lost connection is
    // retried in the background with backoff while calls fail fast (no offline queue).
    socket: { connectTimeout: timeoutMs, reconnectStrategy: (retries: number, cause: Error) => (connected ? Math.min(50 * 2 ** Math.min(retries, 10), 2000) : cause) },
  });
  client.on("error", (e: Error) => void (lastError = e.message));
  try {
    await withTimeout(client.connect(), timeoutMs, () => `no connection within ${timeoutMs} ms${lastError ? ` (${lastError})` : ""}`);
    connected = true;
  } catch (e) {
    client.destroy();
    throw new SessionStoreError("unavailable", `cannot reach Redis at ${where}: ${(e as Error).message}`, "redis");
  }
  return new RedisStore(client as Client, opts, where, () => lastError);
}

function withTimeout<T>(p: Promise<T>, ms: number, why: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(why())), ms)));
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

/** "<byte length>:<field><key>" → [field, key] (the layout of redis-scripts.ts). */
function splitName(hf: string): [string, string] | undefined {
  const colon = hf.indexOf(":");
  const n = Number(hf.slice(0, colon));
  if (!(colon > 0) || !Number.isInteger(n)) return undefined;
  const rest = Buffer.from(hf.slice(colon + 1));
  return [rest.subarray(0, n).toString(), rest.subarray(n).toString()];
}

export class RedisStore implements SessionStore {
  readonly backend = "redis";
  readonly limits: StoreLimits;
  private readonly now: () => number;
  private readonly prefix: string;
  private readonly timeoutMs: number;
  private closed = false;

  constructor(
    private readonly client: Client,
    opts: RedisStoreOptions,
    readonly location: string,
    private readonly lastError: () => string,
  ) {
    this.limits = resolveLimits(opts);
    this.now = opts.now ?? Date.now;
    this.prefix = opts.prefix ?? "toolhost:";
    this.timeoutMs = opts.timeoutMs ?? 2000;
  }

  private key(id: string): string {
    return `${this.prefix}s:${id}`;
  }
  private get idx(): string {
    return `${this.prefix}idx`;
  }

  /** One command, with the store's timeout; a failure is "unavailable", naming the server. */
  private async cmd<T>(args: string[]): Promise<T> {
    if (this.closed) throw new SessionStoreError("closed", "the Redis session store is closed", this.backend);
    try {
      return await withTimeout(this.client.sendCommand<T>(args), this.timeoutMs, () => `no answer within ${this.timeoutMs} ms`);
    } catch (e) {
      if (e instanceof SessionStoreError) throw e;
      const msg = (e as Error).message || this.lastError();
      throw new SessionStoreError("unavailable", `Redis at ${this.location}: ${msg}${this.lastError() && !msg.includes(this.lastError()) ? ` (${this.lastError()})` : ""}`, this.backend);
    }
  }

  private async script<T>(s: { text: string; sha: string }, keys: string[], args: string[]): Promise<T> {
    try {
      return await this.cmd<T>(["EVALSHA", s.sha, String(keys.length), ...keys, ...args]);
    } catch (e) {
      if (!/NOSCRIPT/.test((e as Error).message)) throw e;
      return this.cmd<T>(["EVAL", s.text, String(keys.length), ...keys, ...args]);
    }
  }

  private parse(id: string, flat: string[] | Record<string, string>): SessionRecord | undefined {
    const entries = Array.isArray(flat) ? pairs(flat) : Object.entries(flat);
    const meta: Record<string, number> = {};
    const fields: Record<string, Record<string, Json>> = {};
    for (const [hf, v] of entries) {
      if (hf.startsWith("m:")) {
        meta[hf.slice(2)] = Number(v);
        continue;
      }
      const fk = splitName(hf);
      if (!fk) throw new SessionStoreError("corrupt", `Redis at ${this.location}: session ${id} has an entry ${JSON.stringify(hf.slice(0, 60))} that is not toolhost's`, this.backend);
      try {
        (fields[fk[0]] ??= {})[fk[1]] = JSON.parse(v) as Json;
      } catch {
        throw new SessionStoreError("corrupt", `Redis at ${this.location}: session ${id}, ${fk[0]}/${fk[1]} is not JSON`, this.backend);
      }
    }
    if (!meta.version) return undefined;
    const rec: SessionRecord = { id, version: meta.version, createdAt: meta.createdAt!, updatedAt: meta.updatedAt!, expiresAt: expiry(meta.updatedAt!, this.limits), bytes: meta.bytes!, fields };
    return rec.expiresAt !== null && rec.expiresAt <= this.now() ? undefined : rec;
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    checkSessionId(id, this.backend);
    return this.parse(id, await this.cmd<string[]>(["HGETALL", this.key(id)]));
  }

  /** One HMGET: the version, 0 when the record is absent or past its expiry. */
  async version(id: string): Promise<number> {
    checkSessionId(id, this.backend);
    const [v, at] = await this.cmd<(string | null)[]>(["HMGET", this.key(id), "m:version", "m:updatedAt"]);
    const version = Number(v ?? 0);
    const exp = expiry(Number(at ?? 0), this.limits);
    return version > 0 && (exp === null || exp > this.now()) ? version : 0;
  }

  async patch(id: string, ops: readonly SessionOp[], opts: PatchOptions = {}): Promise<PatchResult> {
    checkSessionId(id, this.backend);
    checkOps(ops, this.backend);
    const wire = ops.map((o) => (o.op === "set" ? { op: "set", field: o.field, key: o.key, text: JSON.stringify(o.value) } : o));
    const l = this.limits;
    const r = await this.script<[string, number, number?]>(SCRIPTS.patch, [this.key(id), this.idx, `${this.prefix}totals`, `${this.prefix}totalsAt`], [id, String(Math.floor(this.now())), String(l.ttlMs), String(l.maxSessionBytes), String(l.maxSessions), String(opts.ifVersion ?? -1), JSON.stringify(wire), this.prefix]);
    if (r[0] === "conflict") throw new SessionStoreError("conflict", `session ${id} is at version ${r[1]}, not ${opts.ifVersion}`, this.backend);
    if (r[0] === "too-large") throw new SessionStoreError("too-large", `session ${id} would hold ${r[1]} bytes, over the limit of ${l.maxSessionBytes} (sessions.maxSessionBytes)`, this.backend);
    return { version: Number(r[1]), bytes: Number(r[2]) };
  }

  async list(opts: { limit?: number } = {}): Promise<SessionSummary[]> {
    await this.sweep();
    const ids = await this.cmd<string[]>(["ZREVRANGE", this.idx, "0", "-1"]);
    const out: SessionSummary[] = [];
    for (let i = 0; i < ids.length && (opts.limit === undefined || out.length < opts.limit); i += 64) {
      const batch = ids.slice(i, i + 64);
      const recs = await Promise.all(batch.map((id) => this.cmd<string[]>(["HGETALL", this.key(id)]).then((flat) => this.parse(id, flat))));
      for (const r of recs) {
        if (!r || (opts.limit !== undefined && out.length >= opts.limit)) continue;
        const { fields, ...rest } = r;
        out.push({ ...rest, fields: Object.fromEntries(Object.entries(fields).map(([f, m]) => [f, Object.keys(m).length])) });
      }
    }
    return out;
  }

  async remove(id: string): Promise<boolean> {
    checkSessionId(id, this.backend);
    return (await this.script<number>(SCRIPTS.remove, [this.key(id), this.idx], [id, String(Math.floor(this.now())), String(this.limits.ttlMs)])) === 1;
  }

  async usage(opts: { sessionId?: string } = {}): Promise<Record<string, UsageCount>> {
    if (opts.sessionId !== undefined) {
      const r = await this.get(opts.sessionId);
      return Object.fromEntries(Object.entries(r?.fields.usage ?? {}).map(([k, v]) => [k, { count: v as number, lastUsed: r!.updatedAt }]));
    }
    const [counts, at] = await Promise.all([this.cmd<string[]>(["HGETALL", `${this.prefix}totals`]), this.cmd<string[]>(["HGETALL", `${this.prefix}totalsAt`])]);
    const last = Object.fromEntries(pairs(at));
    return Object.fromEntries(pairs(counts).map(([k, v]) => [k, { count: Number(v), lastUsed: Number(last[k] ?? 0) }]));
  }

  async sweep(): Promise<number> {
    return Number(await this.script<number>(SCRIPTS.sweep, [this.idx], [String(Math.floor(this.now())), String(this.limits.ttlMs), this.prefix]));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.client.close().catch(() => this.client.destroy());
  }
}

function pairs(flat: string[] | Record<string, string>): [string, string][] {
  if (!Array.isArray(flat)) return Object.entries(flat);
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
  return out;
}
