/**
 * A lookup table indexed by a name that comes from outside (a tool, a command, a backend): no prototype, so
 * `table["toString"]` or `table["constructor"]` is undefined, not one of Object.prototype's functions.
 */
export function nullProto<T extends object>(entries: T): T {
  return Object.assign(Object.create(null) as T, entries);
}

/**
 * `out[k] = v` that keeps a "__proto__" key a key (JSON.parse makes it an own key of what it reads): assigning
 * it would set `out`'s prototype, and an MCP server or hook event of that name would vanish without a word.
 */
export function setKey(out: Record<string, unknown>, k: string, v: unknown): void {
  if (k === "__proto__") Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  else out[k] = v;
}
