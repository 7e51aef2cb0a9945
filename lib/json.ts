/** Plain JSON-like values: a file read as JSON, a canonical text (equal values, equal text) and a frozen deep copy. */
import fs from "node:fs";
import { errorMessage } from "../core/errors.ts";

/** A JSON file, or why it could not be read or parsed. */
export function readJson(file: string): { value?: unknown; error?: string } {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    return { error: `cannot read: ${errorMessage(e)}` };
  }
  try {
    return { value: JSON.parse(text) };
  } catch (e) {
    return { error: `invalid JSON: ${errorMessage(e)}` };
  }
}

/** JSON with sorted keys, so equal schemas hash equally whatever their key order. */
export function stableStringify(v: unknown): string {
  if (v === null || typeof v !== "object") return JSON.stringify(v) ?? "null";
  if (Array.isArray(v)) return `[${v.map(stableStringify).join(",")}]`;
  const keys = Object.keys(v as object)
    .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify((v as Record<string, unknown>)[k])}`).join(",")}}`;
}

/** A frozen deep copy of plain objects and arrays; other values (functions, class instances) are shared as they are. */
export function frozenCopy<T>(v: T): T {
  if (Array.isArray(v)) return Object.freeze(v.map(frozenCopy)) as T;
  if (!v || typeof v !== "object" || (Object.getPrototypeOf(v) !== Object.prototype && Object.getPrototypeOf(v) !== null)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = frozenCopy(x);
  return Object.freeze(out) as T;
}
