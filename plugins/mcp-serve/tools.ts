/** The pool's tools and results in MCP's wire shapes. */
import { flag, type Host, type StopSignal, type Tool, type ToolResult } from "../../core/index.ts";
import { alwaysNeedsApproval, grantCheck } from "../../lib/approval.ts";
import { toMcpToolEntry, type McpToolEntry } from "../../lib/mcp-tool.ts";

export type McpTool = McpToolEntry;

/** A tools/list entry with annotations from the tool's facets (evaluated without input). */
export function toMcpTool(t: Tool): McpTool {
  const readOnly = flag(t.isReadOnly, {} as never, false);
  const destructive = flag(t.isDestructive, {} as never, false);
  const ann: Record<string, unknown> = { readOnlyHint: readOnly };
  if (!readOnly) ann.destructiveHint = destructive;
  if (t.userFacingName) ann.title = t.userFacingName;
  return toMcpToolEntry(t, ann);
}

/**
 * A tools/call result. A hook's stop request (`continue: false`, `interrupt: true`, a PostToolBatch block)
 * cannot end an MCP client's run, so the client's model is told to stop instead of seeing the result
 * (Claude Code never shows it to the model either); `_meta["toolhost/stop"]` carries the signal.
 * Context from PostToolBatch hooks follows the result.
 */
export function toCallResult(r: ToolResult, stop?: StopSignal, context: string[] = []): Record<string, unknown> {
  if (stop) {
    const text = `A ${stop.event} hook stopped this run (${stop.reason}). Stop working on the task now and report this to the user; do not retry.`;
    return { content: [{ type: "text", text }], isError: true, _meta: { "toolhost/stop": stop } };
  }
  const out: Record<string, unknown> = { content: context.length ? [...r.content, ...context.map((text) => ({ type: "text", text }))] : r.content };
  if (r.isError) out.isError = true;
  if (r.structuredContent) out.structuredContent = r.structuredContent;
  return out;
}

/**
 * What a client sees: a client that cannot be asked (no elicitation capability) is not offered tools
 * every call of which needs approval — it could never run them (`toolhost explain` notes which).
 */
export function offeredTools(host: Host, sessionId: string, canAsk: boolean): Tool[] {
  const tools = host.visibleTools(sessionId);
  if (canAsk) return tools;
  const c = { plugins: host.plugins, mode: host.mode, hooksAnswer: true, mayGrant: grantCheck(host) };
  return tools.filter((t) => !alwaysNeedsApproval(t, c));
}
