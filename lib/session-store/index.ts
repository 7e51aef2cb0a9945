/**
 * Opening a session store from the `sessions` config key. A backend is one entry of BACKENDS, imported
 * only when chosen (a host that keeps sessions in memory never loads SQLite or a Redis client).
 */
import path from "node:path";
import { MemoryStore } from "./memory.ts";
import { SessionStoreError, type SessionStore, type StoreOptions } from "./types.ts";
import { nullProto } from "../null-proto.ts";

export * from "./types.ts";
export { checkSessionId, sessionIdProblem, DEFAULT_LIMITS, MAX_ID_LENGTH } from "./limits.ts";
export { MemoryStore, memoryData } from "./memory.ts";

/** The `sessions` config key (plugins/sessions contributes its schema). */
export interface SessionsConfig {
  /** "memory", "sqlite" (the on-disk default of the CLI and serve), "redis". */
  backend?: string;
  /** sqlite: the database file (default TOOLHOST_HOME/sessions.db). */
  path?: string;
  /** redis: the server URL (redis://host:port/db). */
  url?: string;
  /** redis: key prefix (default "toolhost:"), so several fleets can share one Redis. */
  prefix?: string;
  /** A session not written for this long expires (default 604800 = 7 days; 0 = never). */
  ttlSeconds?: number;
  maxSessions?: number;
  maxSessionBytes?: number;
  /** This process's name in the task registry (default `<hostname>:<pid>`; TOOLHOST_INSTANCE_ID overrides). */
  instanceId?: string;
  /** sqlite: how long a change may wait before it is written, coalesced (default 100 ms; 0 = before the call returns). */
  writeBehindMs?: number;
}

export interface OpenContext {
  /** TOOLHOST_HOME (default ~/.toolhost). */
  home: string;
  now?: () => number;
}

export type BackendFactory = (cfg: SessionsConfig, opts: StoreOptions, ctx: OpenContext) => Promise<SessionStore>;

export const BACKENDS: Record<string, BackendFactory> = nullProto({
  memory: async (_cfg, opts) => new MemoryStore(opts),
  // Imported only when chosen: a host that keeps sessions elsewhere never loads the Redis client.
  redis: async (cfg, opts) => {
    if (!cfg.url) throw new SessionStoreError("unavailable", 'sessions.backend "redis" needs sessions.url (redis://host:port/db)', "redis");
    return (await import("./redis.ts")).openRedisStore({ ...opts, url: cfg.url, prefix: cfg.prefix });
  },
  sqlite: async (cfg, opts, ctx) => new (await import("./sqlite.ts")).SqliteStore(sqlitePath(cfg, ctx), opts),
});

/** The SQLite file: `sessions.path` (relative to TOOLHOST_HOME), default TOOLHOST_HOME/sessions.db. */
export function sqlitePath(cfg: SessionsConfig, ctx: OpenContext): string {
  return path.resolve(ctx.home, cfg.path ?? "sessions.db");
}

export function storeOptions(cfg: SessionsConfig, ctx: OpenContext): StoreOptions {
  return {
    ttlMs: cfg.ttlSeconds === undefined ? undefined : cfg.ttlSeconds * 1000,
    maxSessions: cfg.maxSessions,
    maxSessionBytes: cfg.maxSessionBytes,
    now: ctx.now,
  };
}

/** Open the configured backend; an unknown name is an "unavailable" error naming the known ones. */
export async function openStore(cfg: SessionsConfig, ctx: OpenContext): Promise<SessionStore> {
  const name = cfg.backend ?? "memory";
  const make = BACKENDS[name];
  if (!make) throw new SessionStoreError("unavailable", `sessions.backend ${JSON.stringify(name)} is not one of ${Object.keys(BACKENDS).join(", ")}`, name);
  return make(cfg, storeOptions(cfg, ctx), ctx);
}
