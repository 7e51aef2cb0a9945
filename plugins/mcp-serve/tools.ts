/** The pool's tools and results in MCP's wire shapes. */
import { flag, type Host, type Tool, type ToolResult } from "../../core/index.ts";
import { alwaysNeedsApproval } from "../../lib/approval.ts";
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

export function toCallResult(r: ToolResult): Record<string, unknown> {
  const out: Record<string, unknown> = { content: r.content };
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
  const c = { plugins: host.plugins, mode: host.mode, hooksAnswer: true };
  return tools.filter((t) => !alwaysNeedsApproval(t, c));
}
