/** MCP wire helpers of the client: paginated lists and tool results, read leniently (servers vary). */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { ToolResult } from "../../core/index.ts";
import { sdkLoaded } from "./sdk.ts";

export type Lenient = { [k: string]: unknown };

/**
 * A paginated MCP list request (`tools/list`, `resources/list`, `prompts/list`) with a lenient result
 * schema: the `field` arrays of every page, following `nextCursor` for at most `maxPages` pages.
 */
export async function listAll(client: Client, method: string, field: string, maxPages: number, timeout: number): Promise<unknown[]> {
  const out: unknown[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const res = (await client.request({ method, params: cursor ? { cursor } : {} }, sdkLoaded().types.ResultSchema, { timeout })) as Lenient;
    const items = res[field];
    if (Array.isArray(items)) out.push(...(items as unknown[]));
    cursor = typeof res.nextCursor === "string" && res.nextCursor ? res.nextCursor : undefined;
    if (!cursor) break;
  }
  return out;
}

export function err(text: string): ToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

export function toToolResult(res: Lenient): ToolResult {
  let content = Array.isArray(res.content) ? (res.content as ToolResult["content"]) : [];
  // Old servers (protocol 2024-10-07) answer `toolResult` instead of `content`.
  if (!Array.isArray(res.content) && res.toolResult !== undefined) content = [{ type: "text", text: typeof res.toolResult === "string" ? res.toolResult : JSON.stringify(res.toolResult) }];
  const out: ToolResult = { content };
  if (res.isError === true) out.isError = true;
  if (res.structuredContent && typeof res.structuredContent === "object") {
    out.structuredContent = res.structuredContent as Record<string, unknown>;
    // Claude Code shows the model a result's structuredContent as compact JSON in place of its text blocks (recorded:
    // plugin-mcp); an error keeps its text, and images or resources beside it are kept.
    if (res.isError !== true) out.content = [{ type: "text", text: JSON.stringify(res.structuredContent) }, ...content.filter((b) => b.type !== "text")];
  }
  if (res._meta && typeof res._meta === "object") out.meta = { _meta: res._meta };
  return out;
}
