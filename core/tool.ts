/** Declaring tools and reading their results: the helpers of the tool contract (types/tool.ts). */
import type { JsonSchema, ToolDefinition, ToolResult } from "./types/tool.ts";
import type { FromSchema } from "./types/schema-input.ts";
export type * from "./types/tool.ts";


export const TOOL_MARK = Symbol.for("toolhost.tool");

/**
 * Declare a tool. Input schemas get `additionalProperties: false` unless the author sets it.
 * Identity apart from that default, so a module can export plain objects too.
 * The input type is inferred from an inline `inputSchema` (FromSchema), or given: `defineTool<Input>({…})`.
 */
export function defineTool<const S extends JsonSchema>(def: ToolDefinition<FromSchema<S>> & { inputSchema: S }): ToolDefinition<FromSchema<S>>;
export function defineTool<I = any>(def: ToolDefinition<I>): ToolDefinition<I>;
export function defineTool<I = any>(def: ToolDefinition<I>): ToolDefinition<I> {
  const schema = { type: "object", ...def.inputSchema } as JsonSchema;
  if (schema.type === "object" && !("additionalProperties" in schema)) schema.additionalProperties = false;
  const out = { ...def, inputSchema: schema };
  Object.defineProperty(out, TOOL_MARK, { value: true, enumerable: false });
  return out;
}

export function isToolDefinition(x: unknown): x is ToolDefinition {
  if (!x || typeof x !== "object") return false;
  const t = x as Record<string, unknown>;
  return (t as any)[TOOL_MARK] === true || (typeof t.name === "string" && typeof t.call === "function" && typeof t.inputSchema === "object");
}

/** A tool's boolean facet (`isReadOnly`, `isConcurrencySafe` …): a value, or a function of the input. */
export function resolveFlag<I>(v: boolean | ((input: I) => boolean) | undefined, input: I, dflt = false): boolean {
  if (typeof v === "function") {
    try {
      return Boolean(v(input));
    } catch {
      return dflt;
    }
  }
  return v ?? dflt;
}

export function textResult(text: string, isError = false): ToolResult {
  return { content: [{ type: "text", text }], isError };
}

export function resultText(r: ToolResult): string {
  return r.content
    .map((c) => (c.type === "text" ? c.text ?? "" : `[${c.type}${c.mimeType ? ` ${c.mimeType}` : ""}]`))
    .join("\n");
}

/** @deprecated the old name of resolveFlag. */
export const flag = resolveFlag;
