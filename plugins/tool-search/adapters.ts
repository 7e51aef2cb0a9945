/**
 * Provider adapters: the pool as a model provider wants it, and token counts per tool.
 *
 *  - Anthropic Messages `tools`: eager tools as usual, deferred tools with `defer_loading: true`
 *    (the API keeps them out of the prompt until a `tool_reference` block names them); ToolSearch
 *    results become `tool_reference` blocks inside the `tool_result`.
 *  - OpenAI function tools: no deferral on that side, so deferred tools are omitted until the
 *    session loaded them (ToolSearch), then appended in load order (prompt-cache friendly).
 *  - MCP `tools/list` shape (name, description, inputSchema) for `toolhost serve`.
 *
 * Token counts (o200k, an approximation of Claude's tokenizer) come from lib/tokens.ts, the one counter
 * `toolhost tools` uses too; they are re-exported here under their documented names.
 */
import type { JsonSchema, PoolSnapshot, Tool } from "../../core/index.ts";
import { toMcpToolEntry } from "../../lib/mcp-tool.ts";
import { countTokens, poolTokens, toolTokens, TOKENIZER } from "../../lib/tokens.ts";

export { countTokens, poolTokens, toolTokens, TOKENIZER };

/** The minimum a tool needs for a provider definition. */
export interface ToolLike {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

/** What the adapters need from a host (a `Host` satisfies it). */
export interface HostLike {
  readonly pool: PoolSnapshot;
  visibleTools(sessionId?: string): Tool[];
}

export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: JsonSchema;
  defer_loading?: boolean;
}

export function anthropicTool(t: ToolLike, deferLoading = false): AnthropicTool {
  const out: AnthropicTool = { name: t.name, description: t.description, input_schema: t.inputSchema };
  if (deferLoading) out.defer_loading = true;
  return out;
}

export function anthropicToolsTokens(tools: readonly ToolLike[]): number {
  let n = 0;
  for (const t of tools) n += toolTokens(t);
  return n;
}

/** The by-name announcement of deferred tools (what a client puts in a system reminder). */
export function deferredAnnouncement(names: readonly string[]): string {
  if (!names.length) return "";
  return `<available-deferred-tools>\n${names.join("\n")}\n</available-deferred-tools>\nThese tools are deferred: only their names are known. Call ToolSearch to load a tool's schema before calling it.`;
}

/**
 * Anthropic Messages `tools`: eager tools first (contract order), then every deferred tool with
 * `defer_loading: true`. The API expands the deferred ones when a `tool_reference` names them.
 */
export function toAnthropicTools(host: HostLike): AnthropicTool[] {
  const pool = host.pool;
  return [...pool.tools.map((t) => anthropicTool(t)), ...pool.deferred.map((t) => anthropicTool(t, true))];
}

export interface ToolReferenceBlock {
  type: "tool_reference";
  tool_name: string;
}

/** ToolSearch results as `tool_reference` blocks (to put inside `tool_result.content`). */
export function toolReferenceBlocks(names: readonly string[]): ToolReferenceBlock[] {
  return names.map((tool_name) => ({ type: "tool_reference", tool_name }));
}

export interface OpenAIFunctionTool {
  type: "function";
  function: { name: string; description: string; parameters: JsonSchema };
}

/** OpenAI function tools: eager tools plus the deferred tools this session loaded, in load order. */
export function toOpenAITools(host: HostLike, sessionId?: string): OpenAIFunctionTool[] {
  return host.visibleTools(sessionId).map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.inputSchema } }));
}

export interface McpToolShape {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
}

/** MCP `tools/list` entries for a session's visible tools (eager + loaded), or any tool list. */
export function toMcpTools(tools: readonly (ToolLike & { outputSchema?: JsonSchema })[]): McpToolShape[] {
  return tools.map((t) => toMcpToolEntry(t) as McpToolShape);
}
