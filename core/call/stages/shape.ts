/** Stage shapeResult: build.shape (waterfall: budget, truncation, headers), then hook notes after the result. */
import { isPromise, reduce, tapped, type MaybePromise } from "../../hooks/dispatch.ts";
import type { ExecuteOutcome, ToolResult } from "../../types.ts";
import type { Call } from "../call.ts";
import { finishRan } from "../outcome.ts";

export function shapeResult(call: Call): MaybePromise<ExecuteOutcome> {
  const hook = call.build.hooks.shape;
  if (!tapped(hook)) return done(call, call.result!);
  const r = reduce(hook, call.result!, call);
  return isPromise(r) ? r.then((shaped) => done(call, shaped)) : done(call, r);
}

function done(call: Call, shaped: ToolResult): ExecuteOutcome {
  if (call.notes.length) shaped = { ...shaped, content: [...shaped.content, { type: "text", text: call.notes.join("\n") }] };
  return finishRan(call, shaped, call.decision!);
}
