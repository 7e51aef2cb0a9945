/** What every backend checks the same way: session ids, default limits, record sizes. */
import { SessionStoreError, type Json, type SessionOp, type StoreLimits, type StoreOptions } from "./types.ts";

export const DEFAULT_LIMITS: StoreLimits = { ttlMs: 7 * 24 * 3600_000, maxSessions: 1000, maxSessionBytes: 1024 * 1024 };

/** Longest session id accepted. */
export const MAX_ID_LENGTH = 128;
const ID = /^[A-Za-z0-9][A-Za-z0-9._:@-]*$/;

/** Why an id is refused (undefined: fine). Letters, digits and `._:@-`, starting with a letter or digit, ≤ 128 characters. */
export function sessionIdProblem(id: unknown): string | undefined {
  if (typeof id !== "string") return `a session id must be a string, got ${id === null ? "null" : typeof id}`;
  if (id.length === 0) return "a session id may not be empty";
  if (id.length > MAX_ID_LENGTH) return `a session id may have at most ${MAX_ID_LENGTH} characters (got ${id.length})`;
  if (!ID.test(id)) {
    const bad = [...id].find((c) => !/[A-Za-z0-9._:@-]/.test(c));
    const what = bad === undefined ? `it must start with a letter or digit` : `${JSON.stringify(bad)} is not allowed`;
    return `session id ${JSON.stringify(id.slice(0, 40))}${id.length > 40 ? "…" : ""} is refused: ${what} (letters, digits and . _ : @ - only)`;
  }
  return undefined;
}

export function checkSessionId(id: unknown, backend?: string): string {
  const p = sessionIdProblem(id);
  if (p) throw new SessionStoreError("bad-id", p, backend);
  return id as string;
}

export function resolveLimits(o: StoreOptions = {}): StoreLimits {
  const pick = (v: number | undefined, d: number) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : d);
  return { ttlMs: pick(o.ttlMs, DEFAULT_LIMITS.ttlMs), maxSessions: pick(o.maxSessions, DEFAULT_LIMITS.maxSessions) || DEFAULT_LIMITS.maxSessions, maxSessionBytes: pick(o.maxSessionBytes, DEFAULT_LIMITS.maxSessionBytes) || DEFAULT_LIMITS.maxSessionBytes };
}

/** Size of one stored key/value as the limit counts it (UTF-16 length of key + JSON). */
export function entryBytes(key: string, value: Json): number {
  return key.length + JSON.stringify(value).length;
}

/** Ops are data from plugins: refuse malformed ones before any backend writes. */
export function checkOps(ops: readonly SessionOp[], backend?: string): void {
  if (!Array.isArray(ops)) throw new SessionStoreError("bad-op", "patch: ops must be an array", backend);
  for (const o of ops) {
    if (!o || typeof o.field !== "string" || !o.field) throw new SessionStoreError("bad-op", `patch: every op needs a field (got ${JSON.stringify(o)})`, backend);
    if (o.op !== "clear" && typeof o.key !== "string") throw new SessionStoreError("bad-op", `patch: op ${o.op} on ${o.field} needs a string key`, backend);
    if (o.op === "incr" && !Number.isFinite(o.by)) throw new SessionStoreError("bad-op", `patch: incr on ${o.field}/${o.key} needs a finite number`, backend);
    if (o.op === "set" && o.value === undefined) throw new SessionStoreError("bad-op", `patch: set on ${o.field}/${o.key} needs a JSON value`, backend);
  }
}

export function expiry(updatedAt: number, limits: StoreLimits): number | null {
  return limits.ttlMs > 0 ? updatedAt + limits.ttlMs : null;
}
