/**
 * Session and turn events an embedding program reports to the host (`host.event`, `host.endTurn`), and the
 * stop signal hooks send back. Core only sequences them: the command-hooks plugin runs Claude Code's hooks
 * on them and frames what they add as Claude Code does. Imports only outcome types.
 */
import type { StopSignal, Traced, TraceEntry } from "./outcome.ts";

/** Each event's own input fields (camelCase here; hooks get them in Claude Code's snake_case). */
export interface SessionEventInputs {
  SessionStart: { source?: "startup" | "resume" | "clear" | "compact" | "fork"; model?: string; agentType?: string };
  SessionEnd: { reason?: "clear" | "resume" | "logout" | "prompt_input_exit" | "other" };
  /** promptId: the prompt's id, which later hook inputs of the session carry as `prompt_id` (default: a new UUID). */
  UserPromptSubmit: { prompt: string; source?: string; promptId?: string };
  /** backgroundTasks / sessionCrons default to [] (Claude Code sends both). */
  Stop: { stopHookActive?: boolean; lastAssistantMessage?: string; backgroundTasks?: unknown[]; sessionCrons?: unknown[] };
  SubagentStart: { agentId: string; agentType: string };
  SubagentStop: { agentId: string; agentType: string; agentTranscriptPath?: string; stopHookActive?: boolean; lastAssistantMessage?: string };
  PreCompact: { trigger: "manual" | "auto"; customInstructions?: string };
  PostCompact: { trigger: "manual" | "auto"; compactSummary?: string };
  Notification: { message: string; title?: string; notificationType: string };
}
export type SessionEventName = keyof SessionEventInputs;

export interface SessionEventOptions {
  sessionId?: string;
  signal?: AbortSignal;
}

/** What an event's taps (the command-hooks plugin) receive. */
export interface SessionEventContext extends Traced {
  readonly event: SessionEventName;
  readonly sessionId: string;
  readonly cwd: string;
  readonly mode: string;
  readonly input: Readonly<Record<string, unknown>>;
  readonly signal?: AbortSignal;
  /** Text for the model, already framed ("SessionStart hook additional context: …"). */
  addContext(text: string, source: string): void;
  /** A block: the prompt is erased (UserPromptSubmit), the agent goes on (Stop), compaction is skipped (PreCompact). */
  block(reason: string, message: string, source: string): void;
  /** `continue: false`: the agent's run ends now. */
  stop(reason: string, source: string): void;
  /** A message for the user (systemMessage, a non-blocking error), never the model. */
  message(text: string, source: string): void;
  /** An event-specific answer field (sessionTitle, initialUserMessage, watchPaths …). */
  set(field: string, value: unknown, source: string): void;
}

export interface SessionEventOutcome {
  event: SessionEventName;
  sessionId: string;
  /** Add these to the model's context (SessionStart: the system prompt; UserPromptSubmit: with the prompt; Stop: before going on). */
  context: string[];
  /** Set when a hook blocked: `reason` as the hook gave it, `message` as Claude Code frames it (for the user, or the model on Stop). */
  blocked?: { reason: string; message: string; source: string };
  stop?: StopSignal;
  /** For the user only (systemMessage, non-blocking errors). */
  messages: string[];
  fields: Record<string, unknown>;
  trace: TraceEntry[];
}

/** `host.endTurn`: PostToolBatch over the session's calls since the last turn end. */
export interface TurnOutcome {
  sessionId: string;
  /** How many calls the turn held (0: no PostToolBatch ran). */
  calls: number;
  /** Text for the model before its next call. */
  context: string[];
  stop?: StopSignal;
  trace: TraceEntry[];
}

/** One edge of a long step (`ctx.step`, `hooks.step`): `start`, then `end` with its duration. */
export interface StepEvent {
  /** Unique per host; pairs a step's start with its end. */
  id: number;
  plugin: string;
  label: string;
  phase: "start" | "end";
  /** On `end`: how long the step took, and whether it succeeded (default true). */
  ms?: number;
  ok?: boolean;
}
