/** The loop that runs stages: synchronous while every stage answers synchronously. */
import { isPromise, type MaybePromise } from "../hooks/dispatch.ts";
import type { ExecuteOutcome } from "../types.ts";
import type { Call } from "./call.ts";

/** A stage returns undefined to go on, or the outcome that ends the call. */
export type Stage = (call: Call) => MaybePromise<ExecuteOutcome | undefined>;

export function runStages(call: Call, stages: readonly Stage[], from = 0): MaybePromise<ExecuteOutcome | undefined> {
  for (let i = from; i < stages.length; i++) {
    const r = stages[i]!(call);
    if (isPromise(r)) return r.then((end) => end ?? runStages(call, stages, i + 1));
    if (r) return r;
  }
  return undefined;
}
