/**
 * What a library caller may get wrong before a call can start — a tool name that is not a string, options
 * of the wrong type — checked so that `host.execute` answers with an outcome that says what was wrong
 * instead of throwing. Input nested without end, cyclic or unreadable is refused at validation
 * (lib/clone-input.ts).
 */

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

function kind(v: unknown): string {
  if (v === null || v === undefined) return String(v);
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return "an object";
  if (typeof v === "symbol") return "a symbol";
  if (typeof v === "string") return `the string ${JSON.stringify(v.slice(0, 40))}`;
  return `${typeof v} ${nameText(v).slice(0, 40)}`;
}
