/** The pool one Build serves and the values its assembly phases exchange. Imports only tool types. */
import type { ProblemReport } from "../errors.ts";
import type { Tool } from "./tool.ts";

export interface Exclusion {
  name: string;
  reason: string;
  /** The rule that excluded it ("deny: Bash", "mode: plan", "schema"). */
  rule?: string;
  /** Plugin that made the decision. */
  plugin?: string;
  /** File the rule came from. */
  file?: string;
  /** Plugin that contributed the tool. */
  toolPlugin?: string;
}

export interface DeferDecision {
  defer: boolean;
  reason: string;
  rule: string;
  plugin?: string;
  file?: string;
}

export interface ToolCollector {
  add(tool: Tool): void;
  /** Report a problem with a source without failing the build. */
  problem(p: ProblemReport): void;
}

export interface PoolContext {
  generation: number;
  mode: string;
  cwd: string;
  /**
   * Report a problem with this generation's pool (a filter's unknown tool set, mode or member). An error
   * reported here fails the rebuild: the last good pool keeps serving (filters fail closed).
   */
  problem?(p: ProblemReport): void;
  /** Every name collected this generation, before any filter or name rule (to check names a filter lists). */
  collectedNames?: ReadonlySet<string>;
}

export interface PoolSnapshot {
  readonly generation: number;
  /** Model-visible eager tools, in their contract order. */
  readonly tools: readonly Tool[];
  /** Deferred tools (the model sees their names only, until ToolSearch loads them). */
  readonly deferred: readonly Tool[];
  readonly excluded: readonly Exclusion[];
  /** Why each pooled tool is eager or deferred. */
  readonly deferral: ReadonlyMap<string, DeferDecision>;
  readonly problems: readonly ProblemReport[];
  /** sha256 of the model-visible block: eager names, descriptions, schemas, order; deferred names. */
  readonly fingerprint: string;
  /** Every pooled tool (eager and deferred) by name. */
  readonly byName: ReadonlyMap<string, Tool>;
  readonly createdAt: number;
}

export interface PoolDiff {
  added: string[];
  removed: string[];
  changed: string[];
  fingerprintChanged: boolean;
}
