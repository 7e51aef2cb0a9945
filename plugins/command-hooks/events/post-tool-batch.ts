import { TRACE, type PostToolBatchContext } from "../../../core/index.ts";
import { applyPostToolBatch } from "../aggregate.ts";
import { transcriptFor, type Runtime } from "../dispatch.ts";
import { label, type Handler } from "../handlers.ts";
import { interpret } from "../interpret.ts";
import { runHandler } from "../run.ts";
import { batchResponseOf } from "../tool-response.ts";
import { basePayload, eventEnv } from "../payload.ts";

/** PostToolBatch has no matcher, and `if` never runs on a non-tool event: handlers with `if` never fire. */
export function batchHandlers(rt: Runtime): Handler[] {
  return rt.registry.list("PostToolBatch").filter((h) => !h.if);
}

/** After host.executeBatch: every handler runs; context is appended after the batch, a block stops the agent loop. */
export async function postToolBatch(rt: Runtime, batch: PostToolBatchContext): Promise<void> {
  const handlers = batchHandlers(rt);
  const stdin = JSON.stringify({
    ...basePayload(rt.host, "PostToolBatch", { sessionId: batch.sessionId, transcriptPath: transcriptFor(rt, batch.sessionId), cwd: batch.cwd, mode: batch.mode }),
    tool_calls: batch.calls.map((c) => ({
      tool_name: c.name,
      tool_input: c.input,
      tool_use_id: c.toolUseId,
      tool_response: batchResponseOf(c.outcome.result),
    })),
  });
  const runs = await Promise.all(handlers.map((h) => runHandler(h, stdin, { cwd: rt.build.cwd, projectDir: rt.host.cwd, signal: rt.shutdown, callMcp: rt.callMcp, sessionId: batch.sessionId, env: eventEnv("PostToolBatch") })));
  handlers.forEach((h, i) => {
    const run = runs[i]!;
    const e = interpret("PostToolBatch", h, run);
    batch[TRACE].push({ stage: "hook.PostToolBatch", plugin: h.plugin, ms: run.ms, outcome: run.status, detail: { file: h.file, jsonPath: h.jsonPath, command: label(h), ...(e.failure ? { failure: e.failure } : {}) } });
    applyPostToolBatch(batch, e);
  });
}
