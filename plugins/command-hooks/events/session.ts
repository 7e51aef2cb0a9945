/**
 * Session and turn events the embedder reports (host.event → build.sessionEvent): the matching handlers
 * get Claude Code's stdin (base fields + the event's own, snake_case), run in parallel, and their effects
 * apply in declaration order (session-interpret.ts says what each means).
 */
import { TRACE, type SessionEventContext } from "../../../core/index.ts";
import { transcriptFor, type Runtime } from "../dispatch.ts";
import { HOOK_EVENTS } from "../events-table.ts";
import { label, type Handler } from "../handlers.ts";
import { runHandler } from "../run.ts";
import { interpretSession } from "./session-interpret.ts";
import { source } from "../aggregate.ts";

/** Events Claude Code sends without permission_mode (recorded: SessionStart, SessionEnd). */
const NO_MODE = new Set(["SessionStart", "SessionEnd"]);
const DEFAULTS: Record<string, Record<string, unknown>> = { SessionStart: { source: "startup" }, SessionEnd: { reason: "other" }, Stop: { stopHookActive: false, backgroundTasks: [], sessionCrons: [] }, SubagentStop: { stopHookActive: false } };

const snake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

export function sessionHandlers(rt: Runtime, ctx: { event: string; input: Readonly<Record<string, unknown>> }): Handler[] {
  const field = HOOK_EVENTS[ctx.event]?.matcher;
  const value = field ? String(ctx.input[field.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())] ?? "") : "";
  // `if` never runs on a non-tool event (formats §3.3): such handlers never fire.
  return rt.registry.list(ctx.event).filter((h) => !h.if && (!field || h.matches(value)));
}

export function sessionStdin(rt: Runtime, ctx: SessionEventContext, input: Record<string, unknown>): string {
  const payload: Record<string, unknown> = { session_id: ctx.sessionId, transcript_path: transcriptFor(rt, ctx.sessionId), cwd: ctx.cwd };
  if (!NO_MODE.has(ctx.event)) payload.permission_mode = ctx.mode;
  payload.hook_event_name = ctx.event;
  for (const [k, v] of Object.entries(input)) if (v !== undefined) payload[snake(k)] = v;
  return JSON.stringify(payload);
}

export async function sessionEvent(rt: Runtime, ctx: SessionEventContext): Promise<void> {
  const input = { ...DEFAULTS[ctx.event], ...ctx.input };
  const hits = sessionHandlers(rt, { event: ctx.event, input });
  if (!hits.length) return;
  const stdin = sessionStdin(rt, ctx, input);
  const opts = { cwd: rt.build.cwd, projectDir: rt.host.cwd, callMcp: rt.callMcp, sessionId: ctx.sessionId };
  for (const h of hits.filter((x) => x.async)) {
    ctx[TRACE].push({ stage: `hook.${ctx.event}`, plugin: h.plugin, ms: 0, outcome: "async-started", detail: { file: h.file, jsonPath: h.jsonPath, command: label(h) } });
    void runHandler(h, stdin, { ...opts, signal: rt.shutdown });
  }
  const sync = hits.filter((x) => !x.async);
  const runs = await Promise.all(sync.map((h) => runHandler(h, stdin, { ...opts, signal: ctx.signal })));
  sync.forEach((h, i) => {
    const run = runs[i]!;
    const e = interpretSession(ctx.event, h, run, input);
    const by = source(h);
    ctx[TRACE].push({ stage: `hook.${ctx.event}`, plugin: h.plugin, ms: run.ms, outcome: e.outcome, detail: { file: h.file, jsonPath: h.jsonPath, command: label(h), exitCode: run.exitCode, status: run.status } });
    for (const t of e.context) ctx.addContext(t, by);
    for (const m of e.messages) ctx.message(m, by);
    for (const [k, v] of Object.entries(e.fields)) ctx.set(k, v, by);
    if (e.block) ctx.block(e.block.reason, e.block.message, by);
    if (e.stop) ctx.stop(e.stop, by);
  });
}
