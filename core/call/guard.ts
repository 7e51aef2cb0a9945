/**
 * What a library caller may get wrong before a call can start — a tool name that is not a string,
 * options of the wrong type, input nested without end, cyclic or unreadable — checked so that
 * `host.execute` answers with an outcome that says what was wrong instead of throwing.
 */
import { errorMessage } from "../errors.ts";

/** Deeper than any JSON a model or an MCP client sends; far below the stack's limit. */
export const MAX_INPUT_DEPTH = 256;

/** Why `name` cannot name a tool, or undefined. */
export function badName(name: unknown): string | undefined {
  if (typeof name === "string") return undefined;
  return `A tool name must be a string, got ${kind(name)}.`;
}

/** A string form of any value that can go into an outcome's `tool` field. */
export function nameText(name: unknown): string {
  if (typeof name === "string") return name;
  try {
    return String(name);
  } catch {
    return typeof name;
  }
}

// A fixed list, walked with an index: this runs on every call (Object.entries allocated per call).
const OPTION_TYPES: ReadonlyArray<readonly [string, string]> = [["sessionId", "string"], ["toolUseId", "string"], ["source", "string"], ["timeoutMs", "number"], ["maxOutputChars", "number"], ["onAsk", "function"], ["onProgress", "function"]];

/** Why `opts` cannot be used, or undefined. */
export function badOptions(opts: Record<string, unknown>): string | undefined {
  for (let i = 0; i < OPTION_TYPES.length; i++) {
    const [k, t] = OPTION_TYPES[i]!;
    const v = opts[k];
    if (v !== undefined && typeof v !== t) return `Option ${k} must be a ${t}, got ${kind(v)}.`;
  }
  const s = opts.signal as { aborted?: unknown; addEventListener?: unknown } | undefined;
  if (s !== undefined && (typeof s !== "object" || s === null || typeof s.addEventListener !== "function")) return `Option signal must be an AbortSignal, got ${kind(s)}.`;
  return undefined;
}

/**
 * Deep copy of JSON-like input (what models and MCP clients send); other objects go to
 * structuredClone. Refuses, with the JSON path, input nested deeper than MAX_INPUT_DEPTH, a cycle, or
 * a value that throws when read (a getter, a Proxy).
 */
export function cloneInput(v: unknown): { value: unknown } | { error: string } {
  try {
    return { value: quickClone(v, 0) };
  } catch (e) {
    if (!(e instanceof InputShapeError)) return { error: `the input could not be read: ${errorMessage(e)}` };
  }
  // too deep or cyclic: walk again keeping the ancestors, to say where
  const stack: Array<{ node: object; key: string }> = [];
  try {
    return { value: clone(v, stack) };
  } catch (e) {
    if (!(e instanceof InputShapeError)) return { error: `the input could not be read: ${errorMessage(e)}` };
    const at = stack.map((s) => `/${s.key}`).join("");
    return { error: e.cycle ? `the input is cyclic (${at.slice(0, 200) || "/"} refers back to an enclosing value)` : `the input is nested more than ${MAX_INPUT_DEPTH} levels deep (at ${at.slice(0, 200)}…)` };
  }
}

class InputShapeError extends Error {
  constructor(readonly cycle: boolean) {
    super(cycle ? "cyclic input" : "input too deep");
  }
}

// Hot path (every call with a schema): a depth count and nothing else allocated but the copy; a cycle
// shows itself as the depth limit. Only then does `clone` walk again with the ancestors, for the message.
function quickClone(v: unknown, depth: number): unknown {
  if (v === null || typeof v !== "object") return v;
  if (depth >= MAX_INPUT_DEPTH) throw new InputShapeError(false);
  if (Array.isArray(v)) {
    const out = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = quickClone(v[i], depth + 1);
    return out;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return structuredClone(v);
  const out: Record<string, unknown> = {};
  for (const k in v) {
    const x = quickClone((v as Record<string, unknown>)[k], depth + 1);
    if (k === "__proto__") Object.defineProperty(out, k, { value: x, enumerable: true, writable: true, configurable: true });
    else out[k] = x;
  }
  return out;
}

// The slow walk, only after quickClone hit the limit: the stack of ancestors is searched for a repeat.
function clone(v: unknown, stack: Array<{ node: object; key: string }>): unknown {
  if (v === null || typeof v !== "object") return v;
  if (stack.length >= MAX_INPUT_DEPTH) throw new InputShapeError(trimToCycle(stack));
  if (Array.isArray(v)) {
    const out = new Array(v.length);
    for (let i = 0; i < v.length; i++) {
      stack.push({ node: v, key: String(i) });
      out[i] = clone(v[i], stack);
      stack.pop();
    }
    return out;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return structuredClone(v);
  const out: Record<string, unknown> = {};
  for (const k in v) {
    stack.push({ node: v, key: k });
    const x = clone((v as Record<string, unknown>)[k], stack);
    stack.pop();
    if (k === "__proto__") Object.defineProperty(out, k, { value: x, enumerable: true, writable: true, configurable: true });
    else out[k] = x;
  }
  return out;
}

/** When an ancestor repeats, cut the stack to the path of the first back-reference; true if it did. */
function trimToCycle(stack: Array<{ node: object; key: string }>): boolean {
  const seen = new Set<object>();
  for (let j = 0; j < stack.length; j++) {
    if (seen.has(stack[j]!.node)) {
      stack.length = j;
      return true;
    }
    seen.add(stack[j]!.node);
  }
  return false;
}

function kind(v: unknown): string {
  if (v === null || v === undefined) return String(v);
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return "an object";
  if (typeof v === "symbol") return "a symbol";
  if (typeof v === "string") return `the string ${JSON.stringify(v.slice(0, 40))}`;
  return `${typeof v} ${nameText(v).slice(0, 40)}`;
}
