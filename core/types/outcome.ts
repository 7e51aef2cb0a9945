/** What a call decides and returns: decisions, answers to an ask, options and the outcome. Imports only tool types. */
import type { ToolResult } from "./tool.ts";

/** Objects that carry a per-call trace; the hook interceptor appends one entry per tap it runs. */
export const TRACE = Symbol.for("toolhost.trace");
export interface TraceEntry {
  stage: string;
  plugin?: string;
  ms: number;
  outcome?: string;
  detail?: unknown;
}
export interface Traced {
  [TRACE]: TraceEntry[];
}

export type Behavior = "allow" | "deny" | "ask";

export interface Decision {
  behavior: Behavior;
  reason: string;
  /** The rule text that decided ("Bash(rm *)", "mode: plan", "hook: guard.sh"). */
  rule?: string;
  /** Plugin that owns the rule or made the decision. */
  plugin?: string;
  file?: string;
  /** True when an explicit rule decided (an explicit ask is never skipped by a hook's allow). */
  explicit?: boolean;
}

/** An answer to an ask; `interrupt: true` with a deny also ends the agent's run (Claude Code's PermissionRequest `interrupt`; ExecuteOutcome.stop). */
export type AskAnswer = "allow" | "deny" | "allowAlways" | { behavior: "allow" | "deny"; message?: string; updatedInput?: Record<string, unknown>; interrupt?: boolean };

export type CallSource = "library" | "cli" | "mcp" | "model" | "batch";

export type HookDecision = "allow" | "deny" | "ask" | "defer";

export interface ExecuteOptions {
  sessionId?: string;
  toolUseId?: string;
  source?: CallSource;
  dryRun?: boolean;
  signal?: AbortSignal;
  /** Answer an "ask"; without it (and without `yes`) an ask is not executed. */
  onAsk?: (req: AskRequest) => AskAnswer | Promise<AskAnswer>;
  /** Approve every ask (CLI --yes). Deny rules still apply. */
  yes?: boolean;
  /** Call a deferred tool by exact name without a prior ToolSearch (a person naming it, e.g. the CLI). */
  autoLoadDeferred?: boolean;
  timeoutMs?: number;
  /** Output budget for this call in characters (overrides per-tool and config budgets). */
  maxOutputChars?: number;
  onProgress?: (message: string, fraction?: number) => void;
}

export interface AskRequest {
  tool: string;
  input: unknown;
  decision: Decision;
  sessionId: string;
}

/**
 * A hook asked the agent to stop (Claude Code's `continue: false` + `stopReason`, a PermissionRequest
 * `interrupt: true`, a PostToolBatch block). Claude Code's timing: the run ends before the next model
 * call — a PreToolUse stop still runs the tool, a PostToolUse stop keeps its result from the model.
 */
export interface StopSignal {
  /** The event whose hook asked ("PreToolUse", "PostToolUse", "PermissionRequest", "PostToolBatch", "UserPromptSubmit" …). */
  event: string;
  /** stopReason (shown to the user, not the model), the deny message of an interrupt, or the block reason. */
  reason: string;
  /** Who asked: "command-hooks: ./guard.sh", "onAsk". */
  source: string;
  kind: "continue" | "interrupt" | "block";
}

export type OutcomeStatus = "ok" | "tool-error" | "denied" | "blocked" | "not-approved" | "unknown-tool" | "invalid-input" | "dry-run";

export interface ExecuteOutcome {
  tool: string;
  /** The call's tool_use id (given in ExecuteOptions, or generated). */
  toolUseId: string;
  decision: Behavior;
  executed: boolean;
  status: OutcomeStatus;
  reason?: string;
  /** The rule/plugin/file behind a deny or ask. */
  rule?: string;
  plugin?: string;
  file?: string;
  input?: unknown;
  result: ToolResult;
  trace: TraceEntry[];
  generation: number;
  /** host.executeBatch, on the batch's last outcome: a PostToolBatch hook asked the agent loop to stop, and why. */
  batchStop?: string;
  /**
   * A hook asked the agent to stop (`continue: false`, PermissionRequest `interrupt: true`, a PostToolBatch
   * block): end the run before the next model call and do not send this result to the model. A PreToolUse
   * stop still ran the tool (`executed`), as Claude Code does.
   */
  stop?: StopSignal;
}
