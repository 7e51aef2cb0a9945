/** Claude Code's tool names that rules, hooks and plugins refer to: one copy for everyone. */
import { nullProto } from "./null-proto.ts";

const table = (entries: Record<string, string>): Readonly<Record<string, string>> => Object.freeze(nullProto(entries));

/**
 * Legacy tool names still accepted in permission rules and hook matchers (SDK LEGACY_TOOL_NAME_ALIASES).
 * Tables indexed by a tool name have no prototype: `TOOL_ALIASES["toString"]` is undefined, not
 * Object.prototype's function (a tool named "toString" once got a function as its canonical name, and a deny
 * rule on it never matched).
 */
export const TOOL_ALIASES: Readonly<Record<string, string>> = table({
  Task: "Agent",
  KillShell: "TaskStop",
  KillBash: "TaskStop",
  BashOutput: "TaskOutput",
  AgentOutputTool: "TaskOutput",
  ListMcpResources: "ListMcpResourcesTool",
  ReadMcpResource: "ReadMcpResourceTool",
});

/** Editing tools and the input field that names the file they change. */
export const EDIT_TOOL_FILE_FIELD: Readonly<Record<string, string>> = table({
  Edit: "file_path",
  MultiEdit: "file_path",
  Write: "file_path",
  NotebookEdit: "notebook_path",
});
export const EDIT_TOOLS: ReadonlySet<string> = new Set(Object.keys(EDIT_TOOL_FILE_FIELD));
export const READ_TOOLS: ReadonlySet<string> = new Set(["Read", "Grep", "Glob", "LSP", "NotebookRead", "LS"]);
