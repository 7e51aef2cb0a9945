/**
 * Session and turn events the embedder reports (host.event → build.sessionEvent): the matching handlers
 * get Claude Code's stdin (base fields + the event's own, snake_case), run in parallel, and their effects
 * apply in declaration order (session-interpret.ts says what each means).
 */
import { TRACE, type SessionEventContext } from "../../../core/index.ts";
import { PLUGIN_NAME as PLUGIN, transcriptFor, type Runtime } from "../dispatch.ts";
import { HOOK_EVENTS } from "../events-table.ts";
import { label, type Handler } from "../handlers.ts";
import { runHandler } from "../run.ts";
import { interpretSession } from "./session-interpret.ts";
import { source } from "../aggregate.ts";
import { basePayload, endPrompts, eventEnv, newPrompt, sessionEnvFile } from "../payload.ts";

/** Events Claude Code sends without permission_mode (recorded: SessionStart, SessionEnd). */
const NO_MODE = new Set(["SessionStart", "SessionEnd"]);
const DEFAULTS: Record<string, Record<string, unknown>> = { SessionStart: { source: "startup" }, SessionEnd: { reason: "other" }, Stop: { stopHookActive: false, backgroundTasks: [], sessionCrons: [] }, SubagentStop: { stopHookActive: false } };

/**
 * Claude Code's cap on Stop/SubagentStop blocks (recorded: stop-block-repeat): after a block the agent goes on and
 * the next Stop gets `stop_hook_active: true`; the 9th block in a row (CLAUDE_CODE_STOP_HOOK_BLOCK_CAP) is overridden
 * and the turn ends, with this message. Counted per host, session and event; a Stop that does not block, or a new
 * prompt (UserPromptSubmit), starts the count again. An embedder's own `stopHookActive` is passed as given.
 */
const STOP_EVENTS = new Set(["Stop", "SubagentStop"]);
const stopBlocks = new WeakMap<object, Map<string, number>>();
const blockCap = () => Math.max(1, Math.floor(Number(process.env.CLAUDE_CODE_STOP_HOOK_BLOCK_CAP)) || 9);
const capMessage = (n: number) =>
  `A hook blocked the turn from ending ${n} consecutive times—overriding and ending turn. For Stop/SubagentStop hooks, check stop_hook_active in the input and return success while it's true. Set CLAUDE_CODE_STOP_HOOK_BLOCK_CAP to raise this limit.`;
function blockCount(host: object): Map<string, number> {
  let m = stopBlocks.get(host);
  if (!m) stopBlocks.set(host, (m = new Map()));
  return m;
}

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
  const counts = blockCount(rt.host);
  const key = `${ctx.event}\0${ctx.sessionId}`;
  if (ctx.event === "UserPromptSubmit") {
    newPrompt(rt.host, ctx.sessionId, promptId);
    for (const e of STOP_EVENTS) counts.delete(`${e}\0${ctx.sessionId}`);
  }
  const active = STOP_EVENTS.has(ctx.event) && given.stopHookActive === undefined ? { stopHookActive: (counts.get(key) ?? 0) > 0 } : {};
  try {
    await runSessionHooks(rt, ctx, { ...DEFAULTS[ctx.event], ...given, ...active }, STOP_EVENTS.has(ctx.event) ? { counts, key } : undefined);
  } finally {
    if (ctx.event === "SessionEnd") {
      endPrompts(rt.host, ctx.sessionId);
      for (const e of STOP_EVENTS) counts.delete(`${e}\0${ctx.sessionId}`);
    }
  }
}

async function runSessionHooks(rt: Runtime, ctx: SessionEventContext, input: Record<string, unknown>, stop?: { counts: Map<string, number>; key: string }): Promise<void> {
  const hits = sessionHandlers(rt, { event: ctx.event, input });
  if (!hits.length) return void stop?.counts.delete(stop.key);
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
  const effects = sync.map((h, i) => interpretSession(ctx.event, h, runs[i]!, input));
  // Stop/SubagentStop: the cap-th block in a row is overridden (Claude Code's CLAUDE_CODE_STOP_HOOK_BLOCK_CAP).
  let capped = false;
  if (stop) {
    const n = effects.some((e) => e.block) ? (stop.counts.get(stop.key) ?? 0) + 1 : 0;
    capped = n >= blockCap();
    if (capped || !n) stop.counts.delete(stop.key);
    else stop.counts.set(stop.key, n);
    if (capped) {
      ctx.message(capMessage(n), PLUGIN);
      ctx[TRACE].push({ stage: `hook.${ctx.event}.block-cap`, plugin: PLUGIN, ms: 0, outcome: "overridden", detail: { consecutiveBlocks: n, cap: blockCap() } });
    }
  }
  sync.forEach((h, i) => {
    const run = runs[i]!;
    const e = effects[i]!;
    const by = source(h);
    ctx[TRACE].push({ stage: `hook.${ctx.event}`, plugin: h.plugin, ms: run.ms, outcome: e.outcome, detail: { file: h.file, jsonPath: h.jsonPath, command: label(h), exitCode: run.exitCode, status: run.status } });
    for (const t of e.context) ctx.addContext(t, by);
    for (const m of e.messages) ctx.message(m, by);
    for (const [k, v] of Object.entries(e.fields)) ctx.set(k, v, by);
    if (e.block && !capped) ctx.block(e.block.reason, e.block.message, by);
    if (e.stop) ctx.stop(e.stop, by);
  });
}
