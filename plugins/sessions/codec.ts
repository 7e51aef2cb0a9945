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

  /** What was last synced of one key (merge). */
  entry(field: string, key: string): Entry | undefined {
    return this.fields.get(field)?.get(key);
  }

  /** Record a key as synced (merge applied a stored value) or gone (entry undefined). */
  adopt(field: string, key: string, e: Entry | undefined): void {
    let m = this.fields.get(field);
    if (!m) this.fields.set(field, (m = new Map()));
    if (e) m.set(key, e);
    else m.delete(key);
  }

  /** Every synced key of the owned fields, as [field, key]. */
  *keys(): IterableIterator<[string, string]> {
    for (const [f, m] of this.fields) for (const k of m.keys()) yield [f, k];
  }

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

/** The session's map that holds a field's keys (created when `create`), or undefined. */
function holder(s: SessionData, field: string, create: boolean): Map<unknown, unknown> | undefined {
  let parent: Map<unknown, unknown>;
  let sub: string | undefined;
  if (field === "shared") return s.shared;
  if (field.startsWith("shared:")) [parent, sub] = [s.shared, field.slice("shared:".length)];
  else if (field.startsWith("state:")) {
    const [tool, key] = stateParts(field);
    if (key === undefined) return create || s.state.has(tool) ? s.stateFor(tool) : undefined;
    if (!create && !s.state.has(tool)) return undefined;
    [parent, sub] = [s.stateFor(tool), key];
  } else return undefined;
  const m = parent.get(sub);
  if (m instanceof Map) return m;
  if (!create || m !== undefined) return undefined; // a plain value under that key: not a field of ours
  const fresh = new Map<unknown, unknown>();
  parent.set(sub, fresh);
  return fresh;
}

/**
 * Bring a live session up to a stored record another process or instance wrote (the per-call freshness
 * check): every owned key whose stored text differs from what this copy last synced is taken from the
 * store — unless this process changed that key since (its own change is newer, and is written next); a
 * key gone from the store is dropped where this copy still holds the synced value. Loaded tools are
 * added in their stored order. Returns whether the session changed.
 */
export function merge(s: SessionData, rec: SessionRecord, synced: Synced): boolean {
  let changed = false;
  const stored = new Set<string>();
  const loaded = Object.entries(rec.fields.loaded ?? {}).sort((a, b) => Number(a[1]) - Number(b[1])).map(([n]) => n);
  if (s.load(loaded).length) changed = true;
  for (const [field, entries] of Object.entries(rec.fields)) {
    if (field === "loaded" || !ownedField(field)) continue;
    for (const [key, value] of Object.entries(entries)) {
      stored.add(`${field}\u0000${key}`);
      const text = JSON.stringify(value);
      const prev = synced.entry(field, key);
      if (prev?.text === text) continue;
      const m = holder(s, field, true);
      if (!m) continue;
      const cur = m.get(key);
      if (prev ? cur !== prev.ref && textOf(cur) !== prev.text : cur !== undefined) continue; // changed here since: ours is newer
      m.set(key, value);
      synced.adopt(field, key, { ref: value, text });
      changed = true;
    }
  }
  for (const [field, key] of [...synced.keys()]) {
    if (field === "loaded" || stored.has(`${field}\u0000${key}`)) continue;
    const m = holder(s, field, false);
    const prev = synced.entry(field, key)!;
    if (m && m.get(key) === prev.ref) (m.delete(key), (changed = true));
    synced.adopt(field, key, undefined);
  }
  if (changed) s.touch();
  return changed;
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
