/**
 * Small facts earlier processes already worked out, kept across runs in one JSON file each under
 * TOOLHOST_HOME/cache (default ~/.toolhost/cache): token counts of tool definitions, input schemas known to
 * compile. Keys are sha1 of the input, so a changed input is a miss. Written once, at process exit, through
 * a temp file and a rename; a cache that cannot be read or written (a full disk, a read-only home) only costs
 * the work it would have saved. At most `limit` entries are kept (the newest).
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { toolhostHome } from "./plugin-paths.ts";

export interface DiskCache<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
}

export function cacheKey(text: string): string {
  return createHash("sha1").update(text).digest("base64url");
}

const opened = new Map<string, DiskCache<unknown>>();

/** The cache in `<TOOLHOST_HOME>/cache/<name>.json`, read on first use. */
export function diskCache<V>(name: string, valid: (v: unknown) => v is V, limit = 20_000): DiskCache<V> {
  const found = opened.get(name);
  if (found) return found as DiskCache<V>;
  const file = path.join(toolhostHome(), "cache", `${name}.json`);
  let entries: Record<string, V> = {};
  try {
    const v = JSON.parse(fs.readFileSync(file, "utf8")) as unknown;
    if (v && typeof v === "object" && !Array.isArray(v)) entries = v as Record<string, V>;
  } catch {}
  let dirty = false;
  const save = () => {
    if (!dirty) return;
    try {
      const all = Object.entries(entries);
      const keep = all.length > limit ? Object.fromEntries(all.slice(-limit)) : entries;
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, JSON.stringify(keep));
      fs.renameSync(tmp, file);
      dirty = false;
    } catch {}
  };
  process.once("exit", save);
  const c: DiskCache<V> = {
    get: (key) => {
      const v = entries[key];
      return valid(v) ? v : undefined;
    },
    set: (key, value) => {
      entries[key] = value;
      dirty = true;
    },
  };
  opened.set(name, c as DiskCache<unknown>);
  return c;
}
