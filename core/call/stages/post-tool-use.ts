/** Stage postToolUse: PostToolUse (or PostToolUseFailure) handlers block, add context or rewrite the output. */
import { isPromise, series, tapped } from "../../hooks/dispatch.ts";
import { TRACE, type PostToolUseContext } from "../../types.ts";
import type { Call } from "../call.ts";

export function postToolUse(call: Call): Promise<undefined> | undefined {
  const hook = call.error ? call.build.hooks.postToolUseFailure : call.build.hooks.postToolUse;
  if (!tapped(hook)) return undefined;
  const post: PostToolUseContext = {
    [TRACE]: call[TRACE],
    call,
    result: call.result!,
    error: call.error,
    block: (reason) => void call.notes.push(`PostToolUse hook feedback: ${reason}`),
    addContext: (text) => void call.notes.push(text),
    updateOutput: (r) => {
      post.result = typeof r === "string" ? { ...post.result, content: [{ type: "text", text: r }] } : r;
    },
    stop: (reason, source) => call.requestStop({ event: call.error ? "PostToolUseFailure" : "PostToolUse", reason, source, kind: "continue" }),
  };
  const ran = series(hook, post);
  const after = () => {
    if (!call.error) call.tool?.afterPostToolUse?.(post);
    call.result = post.result;
  };
  if (!isPromise(ran)) {
    after();
    return undefined;
  }
  return ran.then(() => void after());
}
