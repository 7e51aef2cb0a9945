/**
 * The MCP `tools/list` entry of a tool: one shape for `toolhost serve` and the public `toMcpTools`
 * adapter. Pure: the caller evaluates a tool's facets (read-only, destructive) into `annotations`.
 */

export interface McpToolEntry {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** `{name, description, inputSchema[, outputSchema][, annotations]}`, in that key order. */
export function toMcpToolEntry(t: { name: string; description: string; inputSchema: object; outputSchema?: object }, annotations?: Record<string, unknown>): McpToolEntry {
  const out: McpToolEntry = { name: t.name, description: t.description, inputSchema: t.inputSchema as Record<string, unknown> };
  if (t.outputSchema) out.outputSchema = t.outputSchema as Record<string, unknown>;
  if (annotations) out.annotations = annotations;
  return out;
}
