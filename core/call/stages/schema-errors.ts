/** ajv errors as one sentence a model can act on: which field, what was expected, what came. */
import type { ErrorObject } from "ajv";
import type { Tool } from "../../types.ts";

export function schemaErrors(tool: Tool, input: unknown, errors: ErrorObject[]): string {
  return errors
    .slice(0, 5)
    .map((e) => {
      const field = e.instancePath ? e.instancePath.slice(1).replace(/\//g, ".") : "";
      const got = e.instancePath ? pick(input, e.instancePath) : input;
      switch (e.keyword) {
        case "required":
          return `missing required field "${(e.params as { missingProperty: string }).missingProperty}"`;
        case "additionalProperties":
          return `unexpected field "${(e.params as { additionalProperty: string }).additionalProperty}" (allowed: ${Object.keys((tool.inputSchema.properties as object) ?? {}).join(", ") || "none"})`;
        case "type":
          return `field "${field}" must be ${(e.params as { type: string }).type}, got ${describeValue(got)}`;
        case "enum":
          return `field "${field}" must be one of ${JSON.stringify((e.params as { allowedValues: unknown[] }).allowedValues)}, got ${describeValue(got)}`;
        default:
          return `field "${field || "(input)"}" ${e.message}`;
      }
    })
    .join("; ");
}

function pick(obj: unknown, pointer: string): unknown {
  let cur = obj as Record<string, unknown> | undefined;
  for (const part of pointer.split("/").slice(1)) cur = cur?.[part] as Record<string, unknown> | undefined;
  return cur;
}

export function describeValue(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "string") return `the string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + "…" : v)}`;
  if (typeof v === "object") return "an object";
  return `${typeof v} ${String(v)}`;
}
