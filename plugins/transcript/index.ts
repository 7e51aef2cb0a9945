/**
 * An optional JSONL transcript of calls: config `transcript: "<path>"` (relative to the project
 * directory). One line per call, appended on `build.persist`: tool, input, decision, status, trace
 * summary, generation and timestamps. Lines are written in completion order through one queue per
 * file, so concurrent calls never interleave within a line. A file that cannot be written (disk full,
 * unwritable) is reported once (problem + logger); its lines wait in memory and are written, in order,
 * once it can be written again — never a silent loss.
 *
 * Besides that call log, the Claude Code–format transcript hooks read through `transcript_path` (claude.ts),
 * offered to command-hooks as the "transcript.path" service.
 */
import fs from "node:fs";
import path from "node:path";
import { definePlugin, resultText, TRANSCRIPT_STAGE_AFTER_HOOKS, TRANSCRIPT_STAGE_BEFORE_HOOKS, type CallRecord, type LoadedPlugin } from "../../core/index.ts";
import { ClaudeTranscript } from "./claude.ts";

const PLUGIN_NAME = "transcript";

/** Lines kept in memory while the file cannot be written (a full disk), written once it can be again. */
export const MAX_PENDING_LINES = 10_000;

interface Reporter {
  failed(file: string, why: string): void;
  recovered(file: string, late: number, lost: number): void;
}

/**
 * One writer per file: lines are appended in order through one queue. When an append fails (ENOSPC,
 * EACCES, a directory where the file should be) the file is cut back to its last whole line, the
 * lines wait in memory (at most MAX_PENDING_LINES; beyond that the oldest are counted as lost) and are
 * written before the next line once the file can be written again.
 */
class Writer {
  private queue: Promise<void> = Promise.resolve();
  private pending: string[] = [];
  private lost = 0;
  private failing = false;
  constructor(
    readonly file: string,
    private readonly report: Reporter,
  ) {}
  append(line: string): Promise<void> {
    this.pending.push(line);
    if (this.pending.length > MAX_PENDING_LINES) this.lost += this.pending.splice(0, this.pending.length - MAX_PENDING_LINES).length;
    this.queue = this.queue.then(() => this.flush());
    return this.queue;
  }
  /** Try once more to write what waits (host close). */
  drain(): Promise<void> {
    this.queue = this.queue.then(() => this.flush());
    return this.queue;
  }
  /** Lines not written (yet), and lines dropped because too many waited. */
  get backlog(): { pending: number; lost: number } {
    return { pending: this.pending.length, lost: this.lost };
  }
  async flush(): Promise<void> {
    if (!this.pending.length) return;
    // A copy: lines appended while this write is in flight wait for the next flush (their own, queued behind this one).
    const lines = this.pending.slice();
    let size = 0;
    try {
      await fs.promises.mkdir(path.dirname(this.file), { recursive: true });
      size = await fs.promises.stat(this.file).then((st) => st.size, () => 0);
      await fs.promises.appendFile(this.file, lines.join("\n") + "\n", "utf8");
    } catch (e) {
      await fs.promises.truncate(this.file, size).catch(() => {}); // no half line stays behind
      if (!this.failing) this.report.failed(this.file, (e as Error).message);
      this.failing = true;
      return;
    }
    this.pending = this.pending.slice(lines.length);
    if (this.failing) this.report.recovered(this.file, lines.length - 1, this.lost);
    this.failing = false;
    this.lost = 0;
  }
}

const writers = new Map<string, Writer>();
const hasHooks = (p: LoadedPlugin) => p.components.hooks.some((c) => Object.keys(c.value).length > 0);
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
    // Loud once per failure, and again when it is over: a transcript that silently loses calls is worse than none.
    const report: Reporter = {
      failed(file, why) {
        const message = `cannot write the transcript ${file}: ${why}; calls go on and their records wait in memory (up to ${MAX_PENDING_LINES}) until it can be written`;
        ctx.report({ file, path: "transcript", message, severity: "error" });
        ctx.host.log.error(`toolhost: ${message}`);
      },
      recovered(file, late, lost) {
        ctx.host.log.warn(`toolhost: the transcript ${file} is written again (${late} waiting records written late${lost ? `; ${lost} records were lost` : ""})`);
        if (lost) ctx.report({ file, path: "transcript", message: `${lost} call records were lost while the transcript could not be written`, severity: "error" });
      },
    };
    const mine = new Set<Writer>();
    const cc = new ClaudeTranscript(ctx.host, (m) => ctx.host.log.warn(`toolhost: ${m}`));
    ctx.provide("transcript.path", { pathFor: (sessionId: string) => cc.pathFor(sessionId) });
    ctx.hooks.build.tap(PLUGIN_NAME, (build) => {
      // Only hooks read transcripts: a generation without any writes none (and costs no call anything).
      cc.active = build.plugins.some(hasHooks);
      if (cc.active && ctx.host.options.transcriptPath === undefined) {
        build.hooks.preToolUse.tap({ name: PLUGIN_NAME, stage: TRANSCRIPT_STAGE_BEFORE_HOOKS }, (pre) => cc.toolUse(pre.call, pre.input));
        build.hooks.persist.tap(PLUGIN_NAME, (rec) => cc.toolResult(rec));
        build.hooks.sessionEvent.tap({ name: PLUGIN_NAME, stage: TRANSCRIPT_STAGE_BEFORE_HOOKS }, (ev) => cc.beforeEvent(ev));
        build.hooks.sessionEvent.tap({ name: PLUGIN_NAME, stage: TRANSCRIPT_STAGE_AFTER_HOOKS }, (ev) => cc.afterEvent(ev));
      }
      const target = build.config.transcript;
      if (typeof target !== "string" || !target) return;
      const file = path.resolve(build.host.cwd, target);
      let w = writers.get(file);
      if (!w) writers.set(file, (w = new Writer(file, report)));
      mine.add(w);
      const writer = w;
      build.hooks.persist.tapPromise(PLUGIN_NAME, (rec) => writer.append(JSON.stringify(transcriptLine(rec))));
    });
    ctx.onDispose(async () => {
      for (const w of mine) {
        await w.drain();
        const { pending, lost } = w.backlog;
        if (pending || lost) ctx.host.log.error(`toolhost: ${pending + lost} call records never reached the transcript ${w.file}`);
        writers.delete(w.file);
      }
    });
  },
});
