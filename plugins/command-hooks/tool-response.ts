/**
 * `tool_response` in Claude Code's shapes, and `updatedToolOutput` with Claude Code's semantics
 * (recorded from Claude Code 2.1.328: test/conformance/shapes/).
 * - PostToolUse: a tool's declared `toolResponse` (built-ins give Claude Code's own object: Read
 *   `{type, file: {…}}`, Bash `{stdout, stderr, …}`); an MCP tool's structuredContent as JSON text, else
 *   its content blocks (Claude Code's MCP shape); other tools' structuredContent, else content.
 * - PostToolBatch: each call's result as the model saw it: its text (Claude Code sends that string there),
 *   or its content blocks when they are not all text.
 * - updatedToolOutput on a tool with `fromToolResponse` (the built-ins): only the object form, rendered by
 *   the tool; a string, the legacy updatedMCPToolOutput or a shape the tool refuses is ignored (as Claude
 *   Code does). MCP tools: a string or content blocks replace the output, an object shows as JSON.
 *   Other tools (plugin modules, LSP): any form, as before.
 */
import { resultText, type CallState, type Tool, type ToolResult } from "../../core/index.ts";
import { toResult, type Effect } from "./interpret.ts";

export function toolResponseOf(tool: Tool | undefined, result: ToolResult): unknown {
  if (result.toolResponse !== undefined) return result.toolResponse;
  if (result.meta?.tool_response !== undefined) return result.meta.tool_response;
  if (tool?.origin === "mcp") return result.structuredContent ? JSON.stringify(result.structuredContent) : result.content;
  return result.structuredContent ?? result.content;
}

/** PostToolBatch's `tool_calls[].tool_response`: the result as the model saw it (text, or its blocks when not all text). */
export function batchResponseOf(result: ToolResult): unknown {
  return result.content.every((c) => c.type === "text") ? resultText(result) : result.content;
}

/** Resolve each effect's raw replacement for this call's tool; an ignored one becomes a notice (trace + log). */
export function resolveReplacements(call: CallState, effects: Effect[]): void {
  for (const e of effects) {
    if (!e.replacement) continue;
    const r = resolveOne(call.tool, call.input, e.replacement);
    if ("result" in r) e.updatedOutput = r.result;
    else (e.notices ??= []).push(r.ignored);
  }
}

function resolveOne(tool: Tool | undefined, input: unknown, rep: NonNullable<Effect["replacement"]>): { result: ToolResult } | { ignored: string } {
  const { field, value } = rep;
  if (tool?.fromToolResponse) {
    const name = tool.name;
    if (field !== "updatedToolOutput") return { ignored: `hookSpecificOutput.updatedMCPToolOutput is for MCP tools; ${name} is not one (Claude Code ignores it too); ignored` };
    if (!value || typeof value !== "object" || Array.isArray(value)) return { ignored: `hookSpecificOutput.updatedToolOutput for ${name} must be an object in ${name}'s tool_response shape (Claude Code ignores a string); ignored` };
    let r: ToolResult | undefined;
    try {
      r = tool.fromToolResponse(value as Record<string, unknown>, input);
    } catch {
      r = undefined;
    }
    return r ? { result: { ...r, toolResponse: value } } : { ignored: `hookSpecificOutput.updatedToolOutput does not have ${name}'s tool_response shape (see the tool_response the hook got); ignored` };
  }
  if (tool?.origin === "mcp") {
    if (typeof value === "string" || Array.isArray(value)) {
      const r = toResult(value);
      return r ? { result: r } : { ignored: `hookSpecificOutput.${field} must be a string, content blocks or an object; ignored` };
    }
    if (value && typeof value === "object") return { result: { content: [{ type: "text", text: JSON.stringify(value) }] } };
    return { ignored: `hookSpecificOutput.${field} must be a string, content blocks or an object; ignored` };
  }
  const r = toResult(value);
  return r ? { result: r } : { ignored: `hookSpecificOutput.${field} has an unsupported shape; ignored` };
}
