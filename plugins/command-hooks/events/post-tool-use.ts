import { TRACE, type PostToolUseContext } from "../../../core/index.ts";
import { applyPostToolUse } from "../aggregate.ts";
import { fire, type Runtime } from "../dispatch.ts";
import { resolveReplacements, toolResponseOf } from "../tool-response.ts";

/** PostToolUse / PostToolUseFailure: block feedback, context and output replacement. */
export async function postToolUse(rt: Runtime, event: "PostToolUse" | "PostToolUseFailure", post: PostToolUseContext): Promise<void> {
  const extra: Record<string, unknown> = { tool_input: post.call.input, tool_use_id: post.call.toolUseId };
  const callEntry = post.call[TRACE].findLast((t) => t.stage === "call");
  if (callEntry) extra.duration_ms = Math.round(callEntry.ms);
  if (event === "PostToolUse") extra.tool_response = toolResponseOf(post.call.tool, post.result);
  else {
    extra.error = post.error ?? "";
    extra.is_interrupt = post.call.signal.aborted;
  }
  applyPostToolUse(post, event, await fire(rt, event, post.call, extra, (effects) => resolveReplacements(post.call, effects)));
}
