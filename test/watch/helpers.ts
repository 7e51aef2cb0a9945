/** Shared helpers for the hot-reload tests: real temp project dirs, real plugin dirs, polling waits. */
import fs from "node:fs";
import path from "node:path";

import { tmpdir, waitFor, write } from "../helpers.ts";
export { write };

/** waitFor with the watch tests' longer default (a rebuild may wait for chokidar and the debounce). */
export function until<T>(pred: () => T | Promise<T>, timeoutMs = 15_000, what = "condition"): Promise<NonNullable<T>> {
  return waitFor(pred, timeoutMs, what, 10);
}

export function tmpProject(): string {
  return tmpdir("toolhost-watch-");
}

/** Write like an editor doing an atomic save: a temp file renamed over the target. */
export function atomicWrite(file: string, text: string): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

/** A tool module exporting plain-object tools named `names`, each answering `reply`. */
export function toolModule(names: string[], reply: string, description = "a test tool"): string {
  return names
    .map(
      (n) =>
        `export const ${n.replace(/\W/g, "_")} = { name: ${JSON.stringify(n)}, description: ${JSON.stringify(description)}, inputSchema: { type: "object", properties: {} }, call: () => ${JSON.stringify(reply)} };\n`,
    )
    .join("");
}

/** A plugin directory with a manifest listing `./tools.ts`. */
export function makePlugin(root: string, name: string, tools: string[], reply = "v1", extra: Record<string, unknown> = {}): void {
  write(path.join(root, ".claude-plugin", "plugin.json"), JSON.stringify({ name, tools: ["./tools.ts"], ...extra }, null, 2));
  write(path.join(root, "tools.ts"), toolModule(tools, reply));
}

export function names(host: { pool: { tools: readonly { name: string }[]; deferred: readonly { name: string }[] } }): string[] {
  return [...host.pool.tools, ...host.pool.deferred].map((t) => t.name).sort();
}

export function rmrf(p: string): void {
  fs.rmSync(p, { recursive: true, force: true });
}
