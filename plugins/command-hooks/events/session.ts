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
import { basePayload, endPrompts, eventEnv, newPrompt, sessionEnvFile } from "../payload.ts";

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
  const payload = basePayload(rt.host, ctx.event, { sessionId: ctx.sessionId, transcriptPath: transcriptFor(rt, ctx.sessionId), cwd: ctx.cwd, ...(NO_MODE.has(ctx.event) ? {} : { mode: ctx.mode }) });
  for (const [k, v] of Object.entries(input)) if (v !== undefined) payload[snake(k)] = v;
  return JSON.stringify(payload);
}

/**
 * Every session event passes here, hooks or not: a UserPromptSubmit starts a prompt (its `promptId`, else a new
 * one: the `prompt_id` of the session's later hook inputs), a SessionEnd forgets it once its hooks ran.
 */
export async function sessionEvent(rt: Runtime, ctx: SessionEventContext): Promise<void> {
  const { promptId, ...given } = ctx.input as Record<string, unknown>;
  if (ctx.event === "UserPromptSubmit") newPrompt(rt.host, ctx.sessionId, promptId);
  try {
    await runSessionHooks(rt, ctx, { ...DEFAULTS[ctx.event], ...given });
  } finally {
    if (ctx.event === "SessionEnd") endPrompts(rt.host, ctx.sessionId);
  }
}

async function runSessionHooks(rt: Runtime, ctx: SessionEventContext, input: Record<string, unknown>): Promise<void> {
  const hits = sessionHandlers(rt, { event: ctx.event, input });
  if (!hits.length) return;
  const stdin = sessionStdin(rt, ctx, input);
  const opts = { cwd: rt.build.cwd, projectDir: rt.host.cwd, callMcp: rt.callMcp, sessionId: ctx.sessionId };
  // SessionStart hooks each get their own CLAUDE_ENV_FILE (Claude Code: sessionstart-hook-<n>.sh, n in hook order).
  const envOf = (h: Handler) => ({ ...eventEnv(ctx.event), ...(ctx.event === "SessionStart" ? { CLAUDE_ENV_FILE: sessionEnvFile(ctx.sessionId, hits.indexOf(h)) } : {}) });
  for (const h of hits.filter((x) => x.async)) {
    ctx[TRACE].push({ stage: `hook.${ctx.event}`, plugin: h.plugin, ms: 0, outcome: "async-started", detail: { file: h.file, jsonPath: h.jsonPath, command: label(h) } });
    void runHandler(h, stdin, { ...opts, signal: rt.shutdown, env: envOf(h) });
  }
  const sync = hits.filter((x) => !x.async);
  const runs = await Promise.all(sync.map((h) => runHandler(h, stdin, { ...opts, signal: ctx.signal, env: envOf(h) })));
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
