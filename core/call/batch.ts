/**
 * A parallel batch, as a model emits it: consecutive concurrency-safe calls run together, any other
 * call runs alone; results come back in call order, all on one generation. Then PostToolBatch hooks:
 * their context follows the last result, a stop sets `batchStop` on the last outcome.
 */
import { resolveFlag } from "../tool.ts";
import { series } from "../hooks/dispatch.ts";
import { TRACE, type ExecuteOptions, type ExecuteOutcome, type PostToolBatchContext, type StopSignal, type TraceEntry } from "../types.ts";
import type { CallBuild } from "./call.ts";

export interface BatchCall {
  name: string;
  input: unknown;
  toolUseId?: string;
}
export interface BatchRunner extends Pick<CallBuild, "pool" | "hooks" | "mode" | "cwd"> {
  execute(name: string, input: unknown, opts: ExecuteOptions): Promise<ExecuteOutcome>;
}

export async function executeBatch(run: BatchRunner, calls: BatchCall[], opts: ExecuteOptions, sessionId: string): Promise<ExecuteOutcome[]> {
  const out: ExecuteOutcome[] = new Array(calls.length);
  const one = async (i: number) => void (out[i] = await run.execute(calls[i]!.name, calls[i]!.input, { source: "batch", ...opts, toolUseId: calls[i]!.toolUseId }));
  let group: number[] = [];
  for (let i = 0; i < calls.length; i++) {
    const t = run.pool.byName.get(calls[i]!.name);
    if (t && resolveFlag(t.isConcurrencySafe, calls[i]!.input as never, false)) {
      group.push(i);
      continue;
    }
    await Promise.all(group.map(one));
    group = [];
    await one(i);
  }
  await Promise.all(group.map(one));
  if (calls.length && run.hooks.postToolBatch.isUsed()) await postToolBatch(run, calls, out, sessionId);
  return out;
}

async function postToolBatch(run: BatchRunner, calls: BatchCall[], out: ExecuteOutcome[], sessionId: string): Promise<void> {
  const r = await runPostToolBatch(run, calls.map((c, i) => ({ name: c.name, input: out[i]!.input ?? c.input, toolUseId: out[i]!.toolUseId, outcome: out[i]! })), sessionId);
  const last = out[out.length - 1]!;
  last.trace.push(...r.trace);
  if (r.context.length) last.result = { ...last.result, content: [...last.result.content, ...r.context.map((text) => ({ type: "text" as const, text }))] };
  if (r.stop) {
    last.batchStop = r.stop.reason;
    last.stop ??= r.stop;
  }
}

/** PostToolBatch over one turn's calls (executeBatch's, or host.endTurn's): the context and stop the hooks gave. */
export async function runPostToolBatch(run: Pick<BatchRunner, "hooks" | "mode" | "cwd">, calls: PostToolBatchContext["calls"], sessionId: string): Promise<{ context: string[]; stop?: StopSignal; trace: TraceEntry[] }> {
  const context: string[] = [];
  let stop: StopSignal | undefined;
  const trace: TraceEntry[] = [];
  const batch: PostToolBatchContext = {
    [TRACE]: trace,
    sessionId,
    cwd: run.cwd,
    mode: run.mode,
    calls,
    addContext: (text, source) => {
      context.push(text);
      trace.push({ stage: "postToolBatch.context", plugin: source, ms: 0 });
    },
    stop: (reason, source) => {
      stop ??= { event: "PostToolBatch", reason, source, kind: "block" };
      trace.push({ stage: "postToolBatch.stop", plugin: source, ms: 0, outcome: "stop", detail: { reason } });
    },
  };
  await series(run.hooks.postToolBatch, batch);
  return { context, stop, trace };
}
