/**
 * Stage runTool: a PreToolUse substitute, else build.call (bail: remote execution, recording), else the
 * tool's own call — with the call's timeout, abort and progress. A throw becomes an error result.
 */
import { errorMessage } from "../../errors.ts";
import { first, tapped } from "../../hooks/dispatch.ts";
import { textResult } from "../../tool.ts";
import type { ToolResult } from "../../types.ts";
import { ToolContext, type Call, type CallAbort } from "../call.ts";
import { normalizeResult } from "../outcome.ts";

export async function runTool(call: Call): Promise<undefined> {
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
  try {
    const hook = call.build.hooks.call;
    const res = (tapped(hook) ? await first<ToolResult>(hook, call) : undefined) ?? (await raceAbort(tool.call(call.input, new ToolContext(call, tool)), ac));
    call.result = normalizeResult(res);
    if (call.result.isError) call.error = call.result.content.map((c) => c.text ?? "").join("\n");
  } catch (e) {
    call.error = ac.aborted ? `${tool.name} was interrupted: ${errorMessage(ac.reason)}` : `${tool.name} failed: ${errorMessage(e)}`;
    call.result = textResult(call.error, true);
  } finally {
    if (timer) clearTimeout(timer);
  }
  call.mark("call", call.result.isError ? "error" : "ok");
  return undefined;
}

function raceAbort<T>(v: T | Promise<T>, ac: CallAbort): Promise<T> {
  if (ac.aborted) return Promise.reject(ac.reason);
  if (!v || typeof (v as Promise<T>).then !== "function") return Promise.resolve(v);
  // One promise settled by whichever comes first (cheaper than Promise.race with a per-call abort promise).
  return new Promise<T>((resolve, reject) => {
    ac.rejectPending = reject;
    (v as Promise<T>).then(resolve, reject);
  });
}
