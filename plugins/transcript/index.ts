/**
 * An optional JSONL transcript of calls: config `transcript: "<path>"` (relative to the project
 * directory). One line per call, appended on `build.persist`: tool, input, decision, status, trace
 * summary, generation and timestamps. Lines are written in completion order through one queue per
 * file, so concurrent calls never interleave within a line.
 */
import fs from "node:fs";
import path from "node:path";
import { definePlugin, resultText, type CallRecord } from "../../core/index.ts";

const PLUGIN_NAME = "transcript";

const queues = new Map<string, Promise<void>>();

/** Append one line to `file`, after every line queued before it. */
function append(file: string, line: string): Promise<void> {
  const prev = queues.get(file) ?? Promise.resolve();
  const next = prev.then(async () => {
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    await fs.promises.appendFile(file, line + "\n", "utf8");
  });
  const settled = next.catch(() => {});
  queues.set(file, settled);
  void settled.then(() => {
    if (queues.get(file) === settled) queues.delete(file);
  });
  return next;
}

export function transcriptLine(rec: CallRecord, endedAt = Date.now()): Record<string, unknown> {
  const { call, outcome } = rec;
  const text = resultText(outcome.result);
  return {
    type: "tool_call",
    startedAt: new Date(call.startedAt).toISOString(),
    endedAt: new Date(endedAt).toISOString(),
    durationMs: endedAt - call.startedAt,
    sessionId: call.sessionId,
    toolUseId: call.toolUseId,
    generation: call.generation,
    source: call.source,
    tool: outcome.tool,
    input: outcome.input,
    ...(outcome.input !== call.rawInput ? { rawInput: call.rawInput } : {}),
    decision: outcome.decision,
    status: outcome.status,
    executed: outcome.executed,
    reason: outcome.reason,
    rule: outcome.rule,
    plugin: outcome.plugin,
    result: { isError: !!outcome.result.isError, chars: text.length, preview: text.length > 200 ? text.slice(0, 200) + "…" : text },
    trace: outcome.trace.map((t) => ({ stage: t.stage, plugin: t.plugin, ms: Math.round(t.ms * 100) / 100, outcome: t.outcome })),
  };
}

export default definePlugin({
  name: PLUGIN_NAME,
  apply(ctx) {
    ctx.contributeConfig("transcript", { type: "string" });
    ctx.hooks.build.tap(PLUGIN_NAME, (build) => {
      const target = build.config.transcript;
      if (typeof target !== "string" || !target) return;
      const file = path.resolve(build.host.cwd, target);
      build.hooks.persist.tapPromise(PLUGIN_NAME, (rec) => append(file, JSON.stringify(transcriptLine(rec))));
    });
  },
});
