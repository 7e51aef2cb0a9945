/**
 * ajv errors in words: one sentence a model can act on for a tool input (which field, what was expected,
 * what came), or one problem per JSON path for a config or manifest.
 */
import type { ErrorObject } from "ajv";
import type { ProblemReport } from "../core/errors.ts";
import type { Tool } from "../core/types.ts";

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

export function ajvProblems(errors: ErrorObject[] | null | undefined, plugin: string, file: string, base = ""): ProblemReport[] {
  if (!errors) return [];
  // anyOf produces one error per branch plus the anyOf itself; keep the most useful one per path.
  const byPath = new Map<string, ErrorObject>();
  for (const e of errors) {
    const p = base + e.instancePath;
    if (!byPath.has(p) || e.keyword === "anyOf") byPath.set(p, e);
  }
  return [...byPath.entries()].map(([p, e]) => ({
    plugin,
    file,
    path: p || "/",
    message: describeAjvError(e),
    severity: "error" as const,
  }));
}

function describeAjvError(e: ErrorObject): string {
  if (e.keyword === "anyOf") return "has the wrong type (expected a path string, an array of paths, or an inline object)";
  if (e.keyword === "required") return `is missing required field "${(e.params as { missingProperty: string }).missingProperty}"`;
  if (e.keyword === "type") return `must be ${(e.params as { type: string }).type}`;
  return e.message ?? e.keyword;
}
