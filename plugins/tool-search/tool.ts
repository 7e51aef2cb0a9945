/**
 * The model-facing ToolSearch tool (Claude Code's contract: `{query, max_results?}`, formats.md §5.1).
 * It searches the deferred tools of the current pool, marks what it found as loaded for the session
 * (load order never changes) and returns the full definitions as text, as `structuredContent.tools`
 * and as `tool_reference` blocks in `meta.toolReferences` for the Anthropic adapter.
 */
import type { HostView, ToolCallContext, ToolDefinition, ToolResult } from "../../core/index.ts";
import { toolReferenceBlocks } from "./adapters.ts";
import { indexFor, search, type SearchOutcome } from "./search.ts";

export const TOOL_SEARCH_NAME = "ToolSearch";
export const DEFAULT_MAX_RESULTS = 5;
export const MAX_RESULTS_CAP = 50;

export const TOOL_SEARCH_DESCRIPTION = `Search for deferred tools and load their full definitions so you can call them.

Deferred tools are announced by name only; you cannot call one until ToolSearch has returned its definition. Query forms:
- "select:mcp__github__create_issue,mcp__slack__send_message" — load these exact tools (a short MCP tool name such as "create_issue" works when only one server has it)
- "notebook jupyter" — keyword search; returns up to max_results tools, best first
- "+slack send" — every +term must appear in the tool name; the other words rank the results ("+github" lists that server's tools)

Found tools stay loaded for the rest of the conversation.`;

export const TOOL_SEARCH_SCHEMA = {
  type: "object",
  properties: {
    query: { type: "string", description: 'What to look for: keywords, "select:<name>[,<name>…]" or "+<required> <keywords>"' },
    max_results: { type: "integer", minimum: 1, maximum: MAX_RESULTS_CAP, default: DEFAULT_MAX_RESULTS, description: "Maximum number of tools to return (default 5)" },
  },
  required: ["query"],
  additionalProperties: false,
} as const;

/** The plain definition (name, description, schema), e.g. for token accounting. */
export const TOOL_SEARCH_DEFINITION = { name: TOOL_SEARCH_NAME, description: TOOL_SEARCH_DESCRIPTION, inputSchema: TOOL_SEARCH_SCHEMA as unknown as Record<string, unknown> };

export interface ToolSearchInput {
  query: string;
  max_results?: number;
}

export function toolSearchTool(getHost: () => HostView | undefined): ToolDefinition<ToolSearchInput> {
  return {
    ...TOOL_SEARCH_DEFINITION,
    searchHint: "find discover load deferred mcp tools",
    isReadOnly: true,
    isConcurrencySafe: true,
    call(input: ToolSearchInput, ctx: ToolCallContext): ToolResult {
      const host = getHost();
      const pool = host?.pool();
      if (!host || !pool) return { content: [{ type: "text", text: "ToolSearch is not ready: the tool pool is not built yet." }], isError: true };
      const limit = Math.min(MAX_RESULTS_CAP, Math.max(1, Math.floor(input.max_results ?? DEFAULT_MAX_RESULTS)));
      const outcome = search(indexFor(pool), input.query, limit, pool);
      const names = outcome.tools.map((t) => t.name);
      if (names.length) host.session(ctx.sessionId).load(names);
      const result = renderResult(outcome, names.map((n) => pool.byName.get(n)!).filter(Boolean));
      // Claude Code's tool_response for hooks (recorded, test/conformance/shapes/bash.json)
      return { ...result, toolResponse: { matches: names, query: input.query, total_deferred_tools: pool.deferred.length } };
    },
  };
}

export function renderResult(outcome: SearchOutcome, tools: ReadonlyArray<{ name: string; description: string; inputSchema: Record<string, unknown> }>): ToolResult {
  const defs = tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema }));
  const notes: string[] = [];
  for (const a of outcome.ambiguous) notes.push(`"${a.name}" is ambiguous (${a.candidates.join(", ")}); use the full name.`);
  for (const n of outcome.alreadyLoaded) notes.push(`"${n}" is already loaded; call it directly.`);
  for (const n of outcome.unresolved) notes.push(`No deferred tool named "${n}".`);
  let text: string;
  if (!defs.length) {
    text = ["No matching deferred tools found.", ...notes, ...outcome.suggestions].join("\n");
  } else {
    text =
      `Loaded ${defs.length} tool${defs.length === 1 ? "" : "s"}; you can call ${defs.length === 1 ? "it" : "them"} now:\n<functions>\n` +
      defs.map((d) => `<function>${JSON.stringify({ description: d.description, name: d.name, parameters: d.input_schema })}</function>`).join("\n") +
      `\n</functions>` +
      (notes.length ? `\n${notes.join("\n")}` : "") +
      (outcome.suggestions.length ? `\n${outcome.suggestions.join("\n")}` : "");
  }
  return {
    content: [{ type: "text", text }],
    structuredContent: { tools: defs, query: outcome.query.kind === "select" ? { select: outcome.query.names } : { required: outcome.query.required, keywords: outcome.query.text } },
    meta: { toolReferences: toolReferenceBlocks(defs.map((d) => d.name)), scores: outcome.tools, unresolved: outcome.unresolved, ambiguous: outcome.ambiguous },
  };
}
