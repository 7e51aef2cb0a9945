/**
 * Repairs tool input before validation (the `repairInput` stage):
 *  - input given as a string of JSON → parsed; broken JSON (trailing commas, unquoted keys, single
 *    quotes, missing closing brackets, Python True/False/None, comments, code fences) is repaired
 *    with `jsonrepair` first;
 *  - a top-level field the schema declares as an object or array but that arrived as a string of
 *    JSON (models often stringify nested values) → parsed, repaired if needed.
 * An input that is already a valid object is returned untouched (same reference). What was repaired
 * is recorded in the call's trace (stage `repairInput.detail`); nothing is added to the model-facing
 * result: the call simply works (docs/hooks.md explains why).
 */
import { jsonrepair } from "jsonrepair";
import { definePlugin, TRACE, type CallState, type JsonSchema } from "../../core/index.ts";

const PLUGIN_NAME = "input-repair";

export interface Repair {
  field?: string;
  kind: "parsed-json-string" | "repaired-json" | "parsed-field" | "repaired-field";
}

/** Parse text as JSON, repairing it if it does not parse. Undefined when even the repair fails. */
export function parseLoose(text: string): { value: unknown; repaired: boolean } | undefined {
  try {
    return { value: JSON.parse(text), repaired: false };
  } catch {}
  try {
    return { value: JSON.parse(jsonrepair(text)), repaired: true };
  } catch {
    return undefined;
  }
}

function declaredTypes(schema: unknown): string[] {
  if (!schema || typeof schema !== "object") return [];
  const t = (schema as JsonSchema).type;
  return Array.isArray(t) ? (t as string[]) : typeof t === "string" ? [t] : [];
}

/**
 * Per schema (tools keep their schema object for a whole generation): the declared properties a model
 * may have sent as a string of JSON — typed object or array, and not also string. Undefined when none:
 * then a plain object input needs no look at all (most tools, e.g. every string-only MCP tool).
 */
const structuredCache = new WeakMap<object, Map<string, string[]> | null>();
function structuredFields(schema: JsonSchema | undefined): Map<string, string[]> | undefined {
  if (!schema || typeof schema.properties !== "object" || !schema.properties) return undefined;
  let hit = structuredCache.get(schema);
  if (hit === undefined) {
    const out = new Map<string, string[]>();
    for (const [k, p] of Object.entries(schema.properties as Record<string, unknown>)) {
      const types = declaredTypes(p);
      if (!types.includes("string") && (types.includes("object") || types.includes("array"))) out.set(k, types);
    }
    structuredCache.set(schema, (hit = out.size ? out : null));
  }
  return hit ?? undefined;
}

/** The repair itself, pure: returns the (possibly new) input and what was done. */
export function repairInput(input: unknown, schema: JsonSchema | undefined): { input: unknown; repairs: Repair[] } {
  const repairs: Repair[] = [];
  let value = input;
  if (typeof value === "string") {
    const t = value.trim();
    if (t.startsWith("{") || t.startsWith("```") || /^[A-Za-z_$][\w$]*\s*:/.test(t)) {
      const r = parseLoose(t.replace(/^```(?:json)?\s*|\s*```$/g, ""));
      if (r && r.value && typeof r.value === "object" && !Array.isArray(r.value)) {
        value = r.value;
        repairs.push({ kind: r.repaired ? "repaired-json" : "parsed-json-string" });
      }
    }
  }
  const structured = structuredFields(schema);
  if (structured && value && typeof value === "object" && !Array.isArray(value)) {
    let copy: Record<string, unknown> | undefined;
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (typeof v !== "string") continue;
      const types = structured.get(k);
      if (!types) continue;
      const r = parseLoose(v);
      if (!r || r.value === null || typeof r.value !== "object") continue;
      if (!types.includes(Array.isArray(r.value) ? "array" : "object")) continue;
      copy ??= { ...(value as Record<string, unknown>) };
      copy[k] = r.value;
      repairs.push({ field: k, kind: r.repaired ? "repaired-field" : "parsed-field" });
    }
    if (copy) value = copy;
  }
  return { input: value, repairs };
}

export default definePlugin({
  name: PLUGIN_NAME,
  apply(ctx) {
    ctx.hooks.build.tap(PLUGIN_NAME, (build) => {
      build.hooks.repairInput.tap(PLUGIN_NAME, (input: unknown, call: CallState) => {
        // Fast path: a plain object with no string fields the schema wants structured.
        const r = repairInput(input, call.tool?.inputSchema);
        if (!r.repairs.length) return input;
        call[TRACE].push({ stage: "repairInput.detail", plugin: PLUGIN_NAME, ms: 0, outcome: "repaired", detail: { repairs: r.repairs } });
        return r.input;
      });
    });
  },
});
