/**
 * A lookup table indexed by a name that comes from outside (a tool, a command, a backend): no prototype, so
 * `table["toString"]` or `table["constructor"]` is undefined, not one of Object.prototype's functions.
 */
export function nullProto<T extends object>(entries: T): T {
  return Object.assign(Object.create(null) as T, entries);
}
