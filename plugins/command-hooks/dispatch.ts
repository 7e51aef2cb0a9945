/**
 * Firing one event's handlers for one call: the stdin payload, sync handlers in parallel (effects
 * returned in declaration order), async handlers in the background with their text delivered with
 * the session's next call, and the MCP caller mcp_tool hooks use.
 */
import path from "node:path";
import { TRACE, type BuildView, type CallState, type HostView, type ToolResult } from "../../core/index.ts";
import { label, type Handler } from "./handlers.ts";
import { interpret, type Effect } from "./interpret.ts";
import type { Registry } from "./registry.ts";
import { runHandler, type McpCaller } from "./run.ts";
import { traceEffect } from "./trace.ts";
import { basePayload, eventEnv } from "./payload.ts";

export const PLUGIN_NAME = "command-hooks";

/** What every event tap of one Build shares. */
export interface Runtime {
  build: BuildView;
  host: HostView;
  registry: Registry;
  /** Aborted when the plugin is disposed: kills async hooks still running. */
  shutdown: AbortSignal;
  callMcp: McpCaller;
  /** Each effect's trace detail (PreToolUse adds the keys it changed after composing). */
  details: WeakMap<Effect, Record<string, unknown>>;
}

interface PendingAsync {
  texts: string[];
  hook: string;
  event: string;
  ms: number;
}

export function createRuntime(build: BuildView, registry: Registry, shutdown: AbortSignal): Runtime {
  return { build, host: build.host, registry, shutdown, callMcp: mcpCaller(build.host), details: new WeakMap() };
}

/**
 * mcp_tool hooks call a tool of the pool's MCP servers directly (not through the pipeline: a hook is
 * the host's own check, and a hook that re-entered the pipeline would fire hooks of its own).
 */
function mcpCaller(host: HostView): McpCaller {
  return async (server, tool, input, signal) => {
    const pool = host.pool();
    const t = pool && [...pool.tools, ...pool.deferred].find((x) => x.origin === "mcp" && x.server === server && (x.sourceName === tool || x.name.endsWith(`__${tool}`)));
    if (!t) return { missing: `no MCP tool "${tool}" on server "${server}" in the pool (is the server configured and connected, and the tool not excluded?)` };
    const res = await t.call(input, { signal, cwd: host.cwd, sessionId: "hooks", toolUseId: `hook-${server}-${tool}`, progress() {}, state: new Map() });
    if (typeof res === "string") return { text: res, isError: false };
    return { text: res.content.map((c) => (c.type === "text" ? c.text ?? "" : "")).join("\n"), isError: !!res.isError };
  };
}

/** `transcript_path` from the generation's own (frozen) config: a rebuild during a call does not change it. */
export function transcriptPath(config: { transcript?: unknown }, cwd: string): string {
  return typeof config.transcript === "string" ? path.resolve(cwd, config.transcript) : "";
}

/**
 * The hook input's `transcript_path` for a session: the embedder's own transcript (createHost
 * `transcriptPath`: a path, or a function of the session id), else the Claude Code–format transcript the
 * transcript plugin writes (service "transcript.path"), else the configured call log, else "".
 */
export function transcriptFor(rt: Runtime, sessionId: string): string {
  const opt = rt.host.options.transcriptPath;
  if (typeof opt === "function") return String((opt as (id: string) => unknown)(sessionId) ?? "");
  if (typeof opt === "string" && opt) return path.resolve(rt.host.cwd, opt);
  const svc = rt.host.service<{ pathFor(sessionId: string): string | undefined }>("transcript.path");
  return svc?.pathFor(sessionId) || transcriptPath(rt.build.config, rt.host.cwd);
}

/** Run every matching handler of `event` in parallel; return effects in declaration order. */
export async function fire(rt: Runtime, event: string, call: CallState, extra: Record<string, unknown>, prepare?: (effects: Effect[]) => void): Promise<Effect[]> {
  const toolName = call.tool?.name ?? call.requestedName;
  const hits = rt.registry.matching(event, toolName, call);
  if (!hits.length) return [];
  const payload: Record<string, unknown> = {
    ...basePayload(rt.host, event, { sessionId: call.sessionId, transcriptPath: transcriptFor(rt, call.sessionId), cwd: call.cwd, mode: call.mode }),
    tool_name: toolName,
    ...extra,
  };
  if (call.tool?.origin === "mcp" && call.tool.server) payload.mcp_server = { name: call.tool.server, source: typeof call.tool.extra?.mcpSource === "string" ? call.tool.extra.mcpSource : "dynamic" };
  const stdin = JSON.stringify(payload);
  const sync = hits.filter((h) => !h.async);
  for (const h of hits) if (h.async) startAsync(rt, event, h, stdin, call);
  const env = eventEnv(event);
  const runs = await Promise.all(sync.map((h) => runHandler(h, stdin, { cwd: rt.build.cwd, projectDir: rt.host.cwd, signal: call.signal, callMcp: rt.callMcp, sessionId: call.sessionId, env })));
  const effects = sync.map((h, i) => interpret(event, h, runs[i]!));
  prepare?.(effects);
  for (const e of effects) rt.details.set(e, traceEffect(rt.host, call, event, e));
  return effects;
}

/**
 * Async hooks (formats §3.8) run in the background, detached from the call (its abort does not
 * kill them; host shutdown does). Decision fields are ignored; additionalContext and systemMessage
 * are delivered with the next call of the same session, after its result (Claude Code: next turn).
 */
function startAsync(rt: Runtime, event: string, h: Handler, stdin: string, call: CallState): void {
  const session = call.session;
  call[TRACE].push({ stage: `hook.${event}`, plugin: h.plugin, ms: 0, outcome: "async-started", detail: { file: h.file, jsonPath: h.jsonPath, command: label(h) } });
  void runHandler(h, stdin, { cwd: rt.build.cwd, projectDir: rt.host.cwd, signal: rt.shutdown, callMcp: rt.callMcp, sessionId: call.sessionId, env: eventEnv(event) }).then((run) => {
    const e = interpret(event, h, run);
    const texts = [e.additionalContext, e.systemMessage && `[hook message] ${e.systemMessage}`].filter((x): x is string => !!x);
    if (e.failure) rt.host.log.warn(`async ${event} hook "${label(h)}" (${h.plugin} ${h.file}${h.jsonPath}): ${e.failure}`);
    if (!texts.length) return;
    const pending = (session.stateFor(PLUGIN_NAME).get("pending") as PendingAsync[] | undefined) ?? [];
    pending.push({ texts, hook: `${h.plugin} ${h.file}${h.jsonPath}`, event, ms: run.ms });
    session.stateFor(PLUGIN_NAME).set("pending", pending);
  });
}

/** Shape tap: finished async hooks' texts become notes of the session's next call, after its shaped result. */
export function deliverPending(result: ToolResult, call: CallState): ToolResult {
  const st = call.session.stateFor(PLUGIN_NAME);
  const pending = st.get("pending") as PendingAsync[] | undefined;
  if (!pending?.length) return result;
  st.set("pending", []);
  for (const p of pending) {
    call.notes.push(...p.texts);
    call[TRACE].push({ stage: `hook.${p.event}.async`, plugin: p.hook.split(" ")[0], ms: p.ms, outcome: "delivered", detail: { hook: p.hook } });
  }
  return result;
}
