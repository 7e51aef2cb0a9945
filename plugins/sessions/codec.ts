/**
 * A session's state as store fields, and back. What is kept: the deferred tools ToolSearch loaded
 * (field `loaded`), and every entry of the session's scratch maps whose value is plain JSON — scalars
 * and plain objects in `shared` / `state:<tool>`, a Map of plain JSON values key by key in
 * `shared:<key>` / `state:<tool>:<key>` (the Edit-needs-Read state is `shared:builtin-tools:files`, the
 * Bash cwd `shared` → `builtin-tools:bashCwd`). Anything else (processes, functions, class instances)
 * stays in the process. Saving sends only the keys that changed since the last sync, so two processes
 * writing one session merge.
 */
import type { SessionData } from "../../core/index.ts";
import type { Json, SessionOp, SessionRecord } from "../../lib/session-store/index.ts";

/** Fields this codec owns (approvals, usage and tasks are written by the plugin itself). */
export function ownedField(field: string): boolean {
  return field === "loaded" || field === "shared" || field.startsWith("shared:") || field.startsWith("state:");
}

const MAX_DEPTH = 8;
function isJson(v: unknown, depth = 0): boolean {
  if (v === null || typeof v === "string" || typeof v === "boolean") return true;
  if (typeof v === "number") return Number.isFinite(v);
  if (typeof v !== "object" || depth > MAX_DEPTH) return false;
  if (Array.isArray(v)) return v.every((x) => isJson(x, depth + 1));
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const k in v as object) if (!isJson((v as Record<string, unknown>)[k], depth + 1)) return false;
  return true;
}

/**
 * JSON text of a value, or undefined when it is not plain JSON. An object's text is cached by identity:
 * a session with many read files re-serializes only the records that were replaced since the last save
 * (values are treated as immutable — replace one to change it, as builtin-tools does).
 */
const texts = new WeakMap<object, string | null>();
function textOf(v: unknown): string | undefined {
  if (v === null || typeof v !== "object") return isJson(v) ? JSON.stringify(v) : undefined;
  let t = texts.get(v);
  if (t === undefined) texts.set(v, (t = isJson(v) ? JSON.stringify(v) : null));
  return t ?? undefined;
}

type Group = (field: string, entries: Iterable<[unknown, unknown]>) => void;

/** Every storable entry of the session, a group (field, its [key, value] entries) at a time. */
function walk(s: SessionData, group: Group): void {
  group("loaded", s.loaded.map((name, i) => [name, i] as [string, number]));
  walkMap("shared", s.shared, group);
  for (const [tool, m] of s.state) walkMap(`state:${tool}`, m, group);
}

function walkMap(field: string, m: Map<unknown, unknown>, group: Group): void {
  const plain: [unknown, unknown][] = [];
  for (const [k, v] of m) {
    if (typeof k !== "string") continue;
    if (v instanceof Map) group(`${field}:${k}`, v);
    else plain.push([k, v]);
  }
  group(field, plain);
}

interface Entry {
  ref: unknown;
  text: string;
}

/**
 * What the store holds of one session, as last synced. `changes(s)` walks the session once, comparing
 * each value by identity first (a session with many read files costs a Map lookup per unchanged record),
 * and returns the ops for what differs; `commit()` records them once written.
 */
export class Synced {
  private fields = new Map<string, Map<string, Entry>>();

  changes(s: SessionData): { ops: SessionOp[]; commit(): void } {
    const ops: SessionOp[] = [];
    const updates: [string, string, Entry | undefined][] = [];
    const seen = new Map<string, number>();
    walk(s, (field, entries) => {
      const fm = this.fields.get(field);
      let count = 0;
      for (const [key, v] of entries) {
        if (typeof key !== "string") continue;
        const prev = fm?.get(key);
        if (prev !== undefined && prev.ref === v) {
          count++; // the hot path: an unchanged record costs one lookup
          continue;
        }
        const text = textOf(v);
        if (text === undefined) continue;
        count++;
        updates.push([field, key, { ref: v, text }]);
        if (prev?.text !== text) ops.push({ op: "set", field, key, value: JSON.parse(text) as Json });
      }
      if (count) seen.set(field, (seen.get(field) ?? 0) + count);
    });
    const added = new Map<string, number>();
    for (const [f, k] of updates) if (!this.fields.get(f)?.has(k)) added.set(f, (added.get(f) ?? 0) + 1);
    // a key is gone when a field holds more than the session now has (rare: only then walk again)
    const shrunk = [...this.fields].filter(([f, m]) => m.size + (added.get(f) ?? 0) !== (seen.get(f) ?? 0));
    if (shrunk.length) {
      const now = new Set<string>();
      walk(s, (field, entries) => {
        for (const [key, v] of entries) if (typeof key === "string" && textOf(v) !== undefined) now.add(`${field}\u0000${key}`);
      });
      for (const [f, m] of shrunk) for (const k of m.keys()) if (!now.has(`${f}\u0000${k}`)) (ops.push({ op: "delete", field: f, key: k }), updates.push([f, k, undefined]));
    }
    return {
      ops,
      commit: () => {
        for (const [f, k, e] of updates) {
          let m = this.fields.get(f);
          if (!m) this.fields.set(f, (m = new Map()));
          if (e) m.set(k, e);
          else m.delete(k);
        }
      },
    };
  }
}

/** Split `state:<tool>[:<key>]` (tool names have no colon). */
function stateParts(field: string): [string, string | undefined] {
  const rest = field.slice("state:".length);
  const i = rest.indexOf(":");
  return i < 0 ? [rest, undefined] : [rest.slice(0, i), rest.slice(i + 1)];
}

/** Put a stored record's owned fields into the (fresh) session; returns what it now matches. */
export function restore(s: SessionData, rec: SessionRecord): Synced {
  const f = rec.fields;
  const loaded = Object.entries(f.loaded ?? {}).sort((a, b) => Number(a[1]) - Number(b[1])).map(([n]) => n);
  if (loaded.length) s.load(loaded);
  for (const [field, entries] of Object.entries(f)) {
    if (field === "shared") for (const [k, v] of Object.entries(entries)) s.shared.set(k, v);
    else if (field.startsWith("shared:")) s.shared.set(field.slice("shared:".length), new Map(Object.entries(entries)));
    else if (field.startsWith("state:")) {
      const [tool, key] = stateParts(field);
      const m = s.stateFor(tool);
      if (key === undefined) for (const [k, v] of Object.entries(entries)) m.set(k, v);
      else m.set(key, new Map(Object.entries(entries)));
    }
  }
  const synced = new Synced();
  synced.changes(s).commit();
  return synced;
}
