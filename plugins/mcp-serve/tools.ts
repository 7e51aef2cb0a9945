/** The pool's tools and results in MCP's wire shapes. */
import { flag, type Tool, type ToolResult } from "../../core/index.ts";
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
