/**
 * Sessions that outlive a process: a session's loaded deferred tools, file read state, Bash cwd,
 * "allow always" approvals, usage counts and background-task registry in a SessionStore
 * (lib/session-store: memory, SQLite on disk — the CLI's default —, Redis). Core only offers the seam:
 * host.hooks.sessionOpen restores a session on first use, Session.version says when to save; this
 * plugin saves after each call that changed something (build.hooks.persist). Provides
 * "sessions.usage" (usage counts for usage-driven deferral) and "sessions.admin" (`toolhost sessions`).
 */
import { definePlugin } from "../../core/index.ts";
import type { SessionUsage } from "../../lib/session-store/index.ts";
import { PLUGIN_NAME, Runtime } from "./runtime.ts";

export const SESSIONS_SCHEMA = {
  type: "object",
  additionalProperties: false,
  properties: {
    backend: { enum: ["memory", "sqlite", "redis"], description: "where sessions are kept (default: sqlite for the toolhost CLI, memory for a library host)" },
    path: { type: "string", minLength: 1, description: "sqlite: the database file, relative to TOOLHOST_HOME (default sessions.db)" },
    url: { type: "string", minLength: 1, description: "redis: the server URL" },
    prefix: { type: "string", minLength: 1, maxLength: 100, description: "redis: key prefix (default toolhost:), so several fleets or test runs share one Redis" },
    ttlSeconds: { type: "integer", minimum: 0, description: "a session not written for this long expires (default 604800 = 7 days; 0 = never)" },
    maxSessions: { type: "integer", minimum: 1, description: "sessions kept at most; the least recently used are dropped (default 1000)" },
    maxSessionBytes: { type: "integer", minimum: 1024, description: "bytes per session at most (default 1048576)" },
    instanceId: { type: "string", minLength: 1, maxLength: 200, description: "this process's name in the task registry (default <hostname>:<pid>)" },
    writeBehindMs: { type: "integer", minimum: 0, maximum: 60000, description: "sqlite: how long a change other than a ToolSearch load, an approval or a task may wait before it is written, coalesced with others (default 100; 0 = before the call returns). Flushed on close and at process exit" },
  },
};

/** What `toolhost sessions` uses (the "sessions.admin" service). */
export interface SessionsAdmin {
  runtime: Runtime;
}

export default definePlugin({
  name: PLUGIN_NAME,
  apply(ctx) {
    ctx.contributeConfig("sessions", SESSIONS_SCHEMA);
    const rt = new Runtime(ctx);
    ctx.hooks.sessionOpen.tapPromise(PLUGIN_NAME, (s) => rt.open(s));
    // An observer: runs before the permissions plugin takes the update, never takes it.
    ctx.hooks.addPermissionRule.tap({ name: PLUGIN_NAME, stage: -100 }, (u) => rt.approvals.record(u));
    ctx.hooks.build.tap(PLUGIN_NAME, (build) => {
      // in memory nothing is written: a sync tap keeps the per-call path free of promises (pipeline-ab: a
      // promise tap here cost about 1.2 µs, a quarter of a call with no hooks)
      // (no build.hooks.call tap: a task another instance runs is answered when builtin-tools asks, REMOTE_TASK_KEY —
      // a tap there cost every call of a stored session ≈ 4% of a no-op call)
      const backend = rt.cfg(build.config).backend;
      if (backend === "memory") build.hooks.persist.tap(PLUGIN_NAME, (r) => void rt.count(r));
      // a synchronous store: a sync tap, so a call in a stored session makes no extra promise either
      else if (backend === "sqlite") build.hooks.persist.tap(PLUGIN_NAME, (r) => rt.afterSync(r));
      else build.hooks.persist.tapPromise(PLUGIN_NAME, (r) => rt.after(r));
    });
    const usage: SessionUsage = { counts: (o) => rt.usage(o), sessionCounts: () => rt.sessionCounts() };
    ctx.provide("sessions.usage", usage);
    ctx.provide("sessions.admin", { runtime: rt } satisfies SessionsAdmin);
    ctx.onDispose(() => rt.close());
  },
});
