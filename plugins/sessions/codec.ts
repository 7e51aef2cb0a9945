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

/** field → key → JSON text */
export type Snapshot = Map<string, Map<string, string>>;

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

function put(out: Snapshot, field: string, key: string, value: unknown): void {
  let m = out.get(field);
  if (!m) out.set(field, (m = new Map()));
  m.set(key, JSON.stringify(value));
}

function addMap(out: Snapshot, field: string, m: Map<unknown, unknown>): void {
  for (const [k, v] of m) {
    if (typeof k !== "string") continue;
    if (v instanceof Map) {
      const entries = [...v];
      if (entries.every(([kk, vv]) => typeof kk === "string" && isJson(vv))) for (const [kk, vv] of entries) put(out, `${field}:${k}`, kk as string, vv);
    } else if (isJson(v)) put(out, field, k, v);
  }
}

export function snapshot(s: SessionData): Snapshot {
  const out: Snapshot = new Map();
  s.loaded.forEach((name, i) => put(out, "loaded", name, i));
  addMap(out, "shared", s.shared);
  for (const [tool, m] of s.state) addMap(out, `state:${tool}`, m);
  return out;
}

/** The ops that turn `before` into `now` (only changed keys). */
export function diff(before: Snapshot, now: Snapshot): SessionOp[] {
  const ops: SessionOp[] = [];
  for (const [field, m] of now) {
    const b = before.get(field);
    for (const [key, text] of m) if (b?.get(key) !== text) ops.push({ op: "set", field, key, value: JSON.parse(text) as Json });
  }
  for (const [field, m] of before) {
    const n = now.get(field);
    for (const key of m.keys()) if (!n?.has(key)) ops.push({ op: "delete", field, key });
  }
  return ops;
}

/** Split `state:<tool>[:<key>]` (tool names have no colon). */
function stateParts(field: string): [string, string | undefined] {
  const rest = field.slice("state:".length);
  const i = rest.indexOf(":");
  return i < 0 ? [rest, undefined] : [rest.slice(0, i), rest.slice(i + 1)];
}

/** Put a stored record's owned fields into the (fresh) session; returns the snapshot it now matches. */
export function restore(s: SessionData, rec: SessionRecord): Snapshot {
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
  return snapshot(s);
}
