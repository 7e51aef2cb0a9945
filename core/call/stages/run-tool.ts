/**
 * Stage runTool: a PreToolUse substitute, else build.call (bail: remote execution, recording), else the
 * tool's own call — with the call's timeout, abort and progress. A throw becomes an error result. A tool
 * that answers synchronously is not awaited (no promise on the hot path).
 */
import { errorMessage } from "../../errors.ts";
import { first, isPromise, tapped } from "../../hooks/dispatch.ts";
import { textResult } from "../../tool.ts";
import type { ToolResult } from "../../types.ts";
import { ToolContext, type Call, type CallAbort } from "../call.ts";
import { normalizeResult } from "../outcome.ts";

export function runTool(call: Call): Promise<undefined> | undefined {
  if (call.substitute) {
    call.result = call.substitute;
    call.mark("call", call.result.isError ? "error" : "ok");
    return undefined;
  }
  const tool = call.tool!;
  const ac = call.cancellation;
  const timeoutMs = call.opts.timeoutMs ?? tool.timeoutMs;
  call.calling = true;
  if (call.opts.signal?.aborted && tool.interruptBehavior !== "block") ac.abort(call.opts.signal.reason);
  const timer = timeoutMs ? setTimeout(() => ac.abort(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs) : undefined;
  const stop = () => timer && clearTimeout(timer);
  let v: unknown;
  try {
    const hook = call.build.hooks.call;
    v = tapped(hook) ? replaced(call, first<ToolResult>(hook, call)) : tool.call(call.input, new ToolContext(call, tool));
  } catch (e) {
    stop();
    return done(call, failure(call, e));
  }
  if (!isPromise(v) && !ac.aborted) {
    stop();
    return done(call, normalizeResult(v));
  }
  return raceAbort(v, ac).then(
    (r) => (stop(), done(call, normalizeResult(r))),
    (e: unknown) => (stop(), done(call, failure(call, e))),
  );
}

/** build.call's answer, or the tool's own call when no tap answered. */
function replaced(call: Call, r: ToolResult | undefined | Promise<ToolResult | undefined>): unknown {
  const own = () => call.tool!.call(call.input, new ToolContext(call, call.tool!));
  if (isPromise(r)) return r.then((x) => x ?? own());
  return r ?? own();
}

function failure(call: Call, e: unknown): ToolResult {
  const ac = call.cancellation;
  return textResult(ac.aborted ? `${call.tool!.name} was interrupted: ${errorMessage(ac.reason)}` : `${call.tool!.name} failed: ${errorMessage(e)}`, true);
}

function done(call: Call, result: ToolResult): undefined {
  call.result = result;
  if (result.isError) call.error = result.content.map((c) => c.text ?? "").join("\n");
  call.mark("call", result.isError ? "error" : "ok");
  return undefined;
}

function raceAbort<T>(v: T | Promise<T>, ac: CallAbort): Promise<T> {
  if (ac.aborted) return Promise.reject(ac.reason);
  if (!isPromise(v)) return Promise.resolve(v);
  // One promise settled by whichever comes first (cheaper than Promise.race with a per-call abort promise).
  return new Promise<T>((resolve, reject) => {
    ac.rejectPending = reject;
    v.then(resolve, reject);
  });
}
