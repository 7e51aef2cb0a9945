/**
 * Claude Code's hook events (SDK HOOK_EVENTS, formats §3.2) and what toolhost does with each:
 *  - "call": run on every tool call by the pipeline;
 *  - "turn": PostToolBatch, after host.executeBatch and host.endTurn;
 *  - "embedder": run when the embedding program reports the event (host.event; `toolhost serve` reports
 *    SessionStart when a client initializes) — never by a one-off CLI call;
 *  - "no": toolhost has nothing that fires it; `check`, `tools` and `hooks` say so for every handler.
 * `matcher` names the input field the event's matcher filters on (none: the matcher is ignored, as in
 * Claude Code); `blocks` says whether exit 2 / `decision: "block"` blocks.
 */
import { nullProto } from "../../lib/null-proto.ts";
export type Runs = "call" | "turn" | "embedder" | "no";
export interface EventRow {
  runs: Runs;
  matcher?: string;
  blocks?: boolean;
  /** Why toolhost does not run it (runs: "no"). */
  why?: string;
}

const NO_SUBAGENTS = "toolhost has no subagents, tasks or teammates";
const NO_UI = "toolhost has no interactive UI of its own";
export const HOOK_EVENTS: Record<string, EventRow> = nullProto({
  PreToolUse: { runs: "call", matcher: "tool_name", blocks: true },
  PermissionRequest: { runs: "call", matcher: "tool_name" },
  PostToolUse: { runs: "call", matcher: "tool_name" },
  PostToolUseFailure: { runs: "call", matcher: "tool_name" },
  PostToolBatch: { runs: "turn", blocks: true },
  SessionStart: { runs: "embedder", matcher: "source" },
  SessionEnd: { runs: "embedder", matcher: "reason" },
  UserPromptSubmit: { runs: "embedder", blocks: true },
  Stop: { runs: "embedder", blocks: true },
  SubagentStart: { runs: "embedder", matcher: "agent_type" },
  SubagentStop: { runs: "embedder", matcher: "agent_type", blocks: true },
  PreCompact: { runs: "embedder", matcher: "trigger", blocks: true },
  PostCompact: { runs: "embedder", matcher: "trigger" },
  Notification: { runs: "embedder", matcher: "notification_type" },
  PermissionDenied: { runs: "no", why: "toolhost has no auto-mode classifier whose denials it could retry" },
  UserPromptExpansion: { runs: "no", why: "toolhost expands no slash commands" },
  StopFailure: { runs: "no", why: "toolhost makes no model calls whose API errors could end a turn" },
  Setup: { runs: "no", why: "toolhost has no --init / --maintenance run" },
  TaskCreated: { runs: "no", why: NO_SUBAGENTS },
  TaskCompleted: { runs: "no", why: NO_SUBAGENTS },
  TeammateIdle: { runs: "no", why: NO_SUBAGENTS },
  ConfigChange: { runs: "no", why: "toolhost rebuilds on settings changes without asking hooks" },
  InstructionsLoaded: { runs: "no", why: "toolhost loads no CLAUDE.md into a prompt (agents-md compiles rules instead)" },
  CwdChanged: { runs: "no", why: "not reported by toolhost yet (Bash keeps its cd per session)" },
  FileChanged: { runs: "no", why: "not reported by toolhost yet" },
  DirectoryAdded: { runs: "no", why: NO_UI },
  WorktreeCreate: { runs: "no", why: "toolhost creates no worktrees" },
  WorktreeRemove: { runs: "no", why: "toolhost creates no worktrees" },
  Elicitation: { runs: "no", why: "MCP elicitation is answered by the MCP plugin's client, not hooks" },
  ElicitationResult: { runs: "no", why: "MCP elicitation is answered by the MCP plugin's client, not hooks" },
  MessageDisplay: { runs: "no", why: NO_UI },
  PreModelSwitch: { runs: "no", why: "toolhost makes no model calls" },
  PostModelSwitch: { runs: "no", why: "toolhost makes no model calls" },
  PreSkillShellCommand: { runs: "no", why: "toolhost runs no skills" },
});

/** Events whose handlers this plugin compiles (every event something in toolhost fires). */
export const RUN_EVENTS = new Set(Object.keys(HOOK_EVENTS).filter((e) => HOOK_EVENTS[e]!.runs !== "no"));

/** How `toolhost hooks` and problems describe when an event's handlers run. */
export function runsText(event: string): string {
  const r = HOOK_EVENTS[event];
  if (!r) return "not run (unknown event)";
  if (r.runs === "call") return "every tool call";
  if (r.runs === "turn") return "after each model turn (host.executeBatch, host.endTurn)";
  if (r.runs === "embedder") return event === "SessionStart" ? "when the embedder reports it (host.event); toolhost serve: on client initialize" : "when the embedder reports it (host.event)";
  return `not run: ${r.why}`;
}
