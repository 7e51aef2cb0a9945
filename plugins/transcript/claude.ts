/**
 * A transcript in Claude Code's JSONL format, so hooks that read `transcript_path` work (issue 15 item 6).
 * The embedder's own transcript wins (createHost `transcriptPath`: a path or a function of the session id;
 * toolhost never writes it). Otherwise, while the generation has hooks, toolhost writes one file per session
 * at `TOOLHOST_HOME/projects/<cwd with every non-alphanumeric as "-">/<session>.jsonl` (Claude Code:
 * `~/.claude/projects/…`) for what it sees: each call's assistant `tool_use` line (before PreToolUse hooks
 * run, as Claude Code writes it before they read it), its user `tool_result` line with `toolUseResult`, the
 * prompts of UserPromptSubmit (after its hooks) and Stop's `lastAssistantMessage` (before its hooks). Lines
 * carry the fields of the recorded format (test/conformance/events/basic.json) a reader uses: `type`,
 * `message`, `uuid`, `parentUuid`, `timestamp`, `sessionId`, `cwd`. Appends are synchronous: the hook
 * process reads the file right after.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { resultText, type CallRecord, type CallState, type HostView, type SessionEventContext } from "../../core/index.ts";

const VERSION = "toolhost";

export function projectsDir(): string {
  return path.join(process.env.TOOLHOST_HOME || path.join(os.homedir(), ".toolhost"), "projects");
}

/** Claude Code's project folder name: the cwd with every character outside [A-Za-z0-9] as "-". */
export function projectSlug(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, "-");
}

export class ClaudeTranscript {
  /** Whether the current generation writes (it has hooks, and the embedder passed no transcript of its own). */
  active = false;
  private readonly last = new Map<string, string>();
  private readonly written = new Set<string>();
  private failed = false;
  constructor(
    private readonly host: HostView,
    private readonly warn: (message: string) => void,
  ) {}

  /** The embedder's transcript, else this session's file while active, else "". */
  pathFor(sessionId: string): string {
    const opt = this.host.options.transcriptPath;
    if (typeof opt === "function") return String((opt as (id: string) => unknown)(sessionId) ?? "");
    if (typeof opt === "string" && opt) return path.resolve(this.host.cwd, opt);
    return this.active ? path.join(projectsDir(), projectSlug(this.host.cwd), `${sessionId.replace(/[^A-Za-z0-9_.-]/g, "_")}.jsonl`) : "";
  }

  private ownsFile(): boolean {
    return this.active && this.host.options.transcriptPath === undefined;
  }

  private append(sessionId: string, type: "user" | "assistant", message: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
    const uuid = randomUUID();
    const line = { parentUuid: this.last.get(sessionId) ?? null, isSidechain: false, type, message, uuid, timestamp: new Date().toISOString(), userType: "external", entrypoint: "toolhost", cwd: this.host.cwd, sessionId, version: VERSION, ...extra };
    this.last.set(sessionId, uuid);
    const file = this.pathFor(sessionId);
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.appendFileSync(file, JSON.stringify(line) + "\n");
      this.failed = false;
    } catch (e) {
      if (!this.failed) this.warn(`cannot write the Claude Code transcript ${file}: ${(e as Error).message}; hooks reading transcript_path see an older file`);
      this.failed = true;
    }
    return uuid;
  }

  /** The model's tool_use, once per call (before PreToolUse hooks; or with the result for a call that ended earlier). */
  toolUse(call: CallState, input: unknown): void {
    if (!this.ownsFile() || this.written.has(call.toolUseId)) return;
    this.written.add(call.toolUseId);
    const name = call.tool?.name ?? call.requestedName;
    const uuid = this.append(call.sessionId, "assistant", { role: "assistant", type: "message", content: [{ type: "tool_use", id: call.toolUseId, name, input }], stop_reason: "tool_use" });
    call.data.set("transcript.assistantUuid", uuid);
  }

  toolResult(rec: CallRecord): void {
    if (!this.ownsFile()) return;
    const { call, outcome } = rec;
    this.toolUse(call, outcome.input);
    this.written.delete(call.toolUseId);
    const r = outcome.result;
    const content = { tool_use_id: call.toolUseId, type: "tool_result", content: resultText(r), is_error: !!r.isError };
    const toolUseResult = r.meta?.tool_response ?? r.structuredContent ?? resultText(r);
    this.append(call.sessionId, "user", { role: "user", content: [content] }, { toolUseResult, sourceToolAssistantUUID: call.data.get("transcript.assistantUuid") });
  }

  /** Before an event's hooks: Stop / SubagentStop's last assistant message. */
  beforeEvent(ev: SessionEventContext): void {
    const text = ev.input.lastAssistantMessage;
    if (!this.ownsFile() || (ev.event !== "Stop" && ev.event !== "SubagentStop") || typeof text !== "string") return;
    this.append(ev.sessionId, "assistant", { role: "assistant", type: "message", content: [{ type: "text", text }], stop_reason: "end_turn" });
  }

  /** After an event's hooks: the user's prompt (Claude Code writes it even when a hook blocked it). */
  afterEvent(ev: SessionEventContext): void {
    if (!this.ownsFile() || ev.event !== "UserPromptSubmit" || typeof ev.input.prompt !== "string") return;
    this.append(ev.sessionId, "user", { role: "user", content: ev.input.prompt });
  }
}
