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

export type AskAnswer = "allow" | "deny" | "allowAlways" | { behavior: "allow" | "deny"; message?: string; updatedInput?: Record<string, unknown> };

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
}
