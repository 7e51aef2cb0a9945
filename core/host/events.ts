/**
 * Session and turn events for embedders (host.event, host.endTurn): core only sequences them — one
 * build.sessionEvent call per event, PostToolBatch over a turn's calls. What the hooks mean (Claude Code's
 * input fields, framing, exit codes) is the command-hooks plugin's.
 */
import { series, tapped } from "../hooks/dispatch.ts";
import { runPostToolBatch } from "../call/batch.ts";
import { TRACE, type BuildView, type ExecuteOutcome, type SessionEventContext, type SessionEventName, type SessionEventOptions, type SessionEventOutcome, type TraceEntry, type TurnOutcome } from "../types.ts";

export type EventBuild = Pick<BuildView, "hooks" | "mode" | "cwd">;

/** Calls run with host.execute since the session's last turn end (bounded: a turn never ended keeps the newest). */
const MAX_TURN_CALLS = 1000;
const turns = new WeakMap<object, ExecuteOutcome[]>();

export function noteTurnCall(session: object, outcome: ExecuteOutcome): void {
  let list = turns.get(session);
  if (!list) turns.set(session, (list = []));
  list.push(outcome);
  if (list.length > MAX_TURN_CALLS) list.shift();
}

export async function runSessionEvent(build: EventBuild, sessionId: string, event: SessionEventName, input: Record<string, unknown>, opts: SessionEventOptions): Promise<SessionEventOutcome> {
  const trace: TraceEntry[] = [];
  const out: SessionEventOutcome = { event, sessionId, context: [], messages: [], fields: {}, trace };
  const ctx: SessionEventContext = {
    [TRACE]: trace,
    event,
    sessionId,
    cwd: build.cwd,
    mode: build.mode,
    input: Object.freeze({ ...input }),
    signal: opts.signal,
    addContext: (text) => void out.context.push(text),
    block: (reason, message, source) => {
      out.blocked ??= { reason, message, source };
      trace.push({ stage: `${event}.block`, plugin: source, ms: 0, outcome: "block", detail: { reason } });
    },
    stop: (reason, source) => {
      out.stop ??= { event, reason, source, kind: "continue" };
      trace.push({ stage: `${event}.stop`, plugin: source, ms: 0, outcome: "stop", detail: { reason } });
    },
    message: (text) => void out.messages.push(text),
    set: (field, value) => void (out.fields[field] = value),
  };
  if (tapped(build.hooks.sessionEvent)) await series(build.hooks.sessionEvent, ctx);
  return out;
}

/** The end of a model turn: PostToolBatch over the calls host.execute ran in the session since the last one. */
// Not async: `toolhost serve` ends a turn after every tools/call, and with no PostToolBatch hook that is all it does.
export function endTurn(build: EventBuild, session: object, sessionId: string): Promise<TurnOutcome> {
  const calls = turns.get(session);
  if (calls) turns.delete(session);
  const none: TurnOutcome = { sessionId, calls: calls?.length ?? 0, context: [], trace: [] };
  if (!calls?.length || !tapped(build.hooks.postToolBatch)) return Promise.resolve(none);
  return runPostToolBatch(build, calls.map((o) => ({ name: o.tool, input: o.input, toolUseId: o.toolUseId, outcome: o })), sessionId).then((r) => ({ ...none, context: r.context, stop: r.stop, trace: r.trace }));
}
