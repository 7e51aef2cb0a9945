/**
 * A deep copy of a tool call's input, as models and MCP clients send it (JSON-like), that refuses with the
 * JSON path input nested without end, cyclic, or unreadable (a getter or Proxy that throws).
 */
import { errorMessage } from "../core/errors.ts";
import { setKey } from "./null-proto.ts";

/** Deeper than any JSON a model or an MCP client sends; far below the stack's limit. */
export const MAX_INPUT_DEPTH = 256;

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
    setKey(out, k, x);
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
    setKey(out, k, x);
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
