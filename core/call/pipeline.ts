/**
 * The one execution path. Every call — library, CLI, MCP, model tool_use, ToolSearch-loaded tools —
 * runs these stages of one Build, in order; a stage returns undefined to go on, or the outcome that
 * ends the call. The loop stays synchronous while every tap answers synchronously.
 */
import { parallel, tapped } from "../hooks/dispatch.ts";
import type { ExecuteOptions, ExecuteOutcome, HostView, SessionData } from "../types.ts";
import { errorMessage } from "../errors.ts";
import { Call, type CallBuild } from "./call.ts";
import { badName, badOptions, nameText } from "./guard.ts";
import { refuse } from "./outcome.ts";
import { runStages, type Stage } from "./run.ts";
import { askIfNeeded, dryRun } from "./stages/ask.ts";
import { checkDeny, decidePermission } from "./stages/decide.ts";
import { repairInput, validate } from "./stages/input.ts";
import { lookup } from "./stages/lookup.ts";
import { postToolUse } from "./stages/post-tool-use.ts";
import { preToolUse } from "./stages/pre-tool-use.ts";
import { runTool } from "./stages/run-tool.ts";
import { shapeResult } from "./stages/shape.ts";

export const STAGES = [
  lookup, //           pool name → alias → build.lookup; a deferred tool must be loaded by ToolSearch first
  repairInput, //      build.repairInput (waterfall)
  validate, //         ajv (compiled at seal) → tool.validateInput → build.validateInput (bail)
  checkDeny, //        build.deny (bail), always first: any deny ends the call
  decidePermission, // build.permission (bail, by stage); no answer = ask
  preToolUse, //       build.preToolUse; a changed input → validate + checkDeny + decidePermission again
  askIfNeeded, //      build.permissionRequest → onAsk → --yes
  dryRun, //           a dry run ends here, with the decision
  runTool, //          build.call (bail) ?? tool.call, with timeout, abort, progress
  postToolUse, //      build.postToolUse | build.postToolUseFailure
  shapeResult, //      build.shape (waterfall), then hook notes after the result
] as const satisfies readonly Stage[];

export async function executeCall(build: CallBuild, host: HostView, session: SessionData, name: string, input: unknown, opts: ExecuteOptions): Promise<ExecuteOutcome> {
  const call = new Call(build, host, session, nameText(name), input, opts);
  const bad = badName(name) ?? badOptions(opts as Record<string, unknown>);
  if (bad) return refuse(call, typeof name === "string" ? "invalid-input" : "unknown-tool", bad);
  let stop: (() => void) | undefined;
  try {
    stop = interruptOn(call, opts.signal);
    const outcome = (await runStages(call, STAGES))!;
    if (call.stopSignal) outcome.stop = call.stopSignal;
    if (tapped(build.hooks.persist)) await parallel(build.hooks.persist, { call, outcome });
    return outcome;
  } catch (e) {
    // A stage or hook that throws past its own policy (a bug, or input no check foresaw) still ends
    // the call with an outcome, never a rejected execute().
    return refuse(call, call.tool ? "tool-error" : "invalid-input", `The call could not be completed: ${errorMessage(e)}`);
  } finally {
    stop?.();
  }
}

/** The caller's interrupt aborts the call, except a tool with interruptBehavior "block" that is running. */
function interruptOn(call: Call, signal: AbortSignal | undefined): (() => void) | undefined {
  if (!signal) return undefined;
  const onAbort = () => {
    if (call.tool?.interruptBehavior !== "block" || !call.calling) call.cancellation.abort(signal.reason);
    else call.notes.push(`${call.tool.name} kept running after an interrupt (interruptBehavior: block).`);
  };
  signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}
