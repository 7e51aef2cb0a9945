/** What compiling one AGENTS.md produces, and the compiler's working state (compile.ts, conflicts.ts). */
import type { AdviceKind } from "./advice.ts";
import type { Behavior } from "./bans.ts";
import type { Reminder } from "./remind.ts";
import type { Span } from "./text.ts";

export interface CompiledRule {
  behavior: Behavior;
  /** The rule in Claude Code's grammar (`Bash(git push --force *)`, `Edit(generated/**)`, `WebFetch`). */
  rule: string;
  file: string;
  /** 1-based line of the sentence. */
  line: number;
  /** The sentence as written (trimmed, markdown bullets removed). */
  text: string;
  /** The directory this AGENTS.md governs: path rules are anchored here; Bash rules apply to commands run below it. */
  scope: string;
  /** Extra guidance for the model ("use pnpm instead"). */
  hint?: string;
  /** Other lines that state the same rule (it is compiled once, citing the first). */
  also?: number[];
}

export interface Unenforced {
  file: string;
  line: number;
  text: string;
  why: string;
  /** What kind of advice it is; "unclassified" fails `toolhost agents --strict`, "conflict" names the rule it would have been. */
  kind?: AdviceKind;
}

export interface Compiled {
  rules: CompiledRule[];
  reminders: Reminder[];
  unenforced: Unenforced[];
  /** Problems worth a warning (a bad rule in an explicit block, an `allow` line). */
  problems: Unenforced[];
}

/** The compiler's state while it reads one file. */
export interface State {
  file: string;
  scope: string;
  out: Compiled;
  seen: Set<string>;
  /** Rules compiled from prose (fenced rules are exact and never conflict-checked). */
  prose: Set<CompiledRule>;
  told: Map<string, number>;
  /** Paths the file tells the agent to create or edit ("Create reproduction scripts in `repros/`"). */
  toldEdits: Map<string, number>;
  /** Sentences with code spans, in order: read into `told` / `toldEdits` only when a prose rule needs a conflict check. */
  pending: Array<{ s: string; sp: Span[]; line: number; banLike: boolean }>;
  /** Edit rules that came from "do not delete / remove": the path they name. */
  deletes: Map<CompiledRule, string>;
  prev: string[];
  program?: string;
}
