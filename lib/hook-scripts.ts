/**
 * Hook commands as files: which script a command hook runs, so `doctor` and `check` can say that it does
 * not exist before a call finds out. A word counts when it looks like a path (has a slash), after
 * `${VAR}` substitution with the plugin's variables (CLAUDE_PLUGIN_ROOT & co) and the environment.
 */
import fs from "node:fs";
import path from "node:path";

/** The first path-like word among a command's first three that names a missing file, or undefined. */
export function missingScript(command: string, env: Record<string, string>, root: string): string | undefined {
  const text = command.replace(/\$\{([A-Z_]+)\}/g, (m, v: string) => env[v] ?? process.env[v] ?? m);
  const words = text.match(/"[^"]*"|'[^']*'|\S+/g) ?? [];
  for (const raw of words.slice(0, 3)) {
    const w = raw.replace(/^["']|["']$/g, "");
    if (!/[\\/]/.test(w) || /^[a-z]+:\/\//i.test(w) || w.includes("$")) continue;
    const abs = path.resolve(root, w);
    if (!fs.existsSync(abs)) return abs;
  }
  return undefined;
}

/** One command handler of a hook map, with where it is written. */
export interface HookHandlerAt {
  event: string;
  matcher?: string;
  command?: string;
  type?: string;
  /** JSON path of the handler inside its file. */
  path: string;
}

/** Every handler of a hook map (`{Event: [{matcher, hooks: [...]}]}`) read from `base` (the map's JSON path). */
export function handlersOf(map: Record<string, unknown> | undefined, base: string): HookHandlerAt[] {
  const out: HookHandlerAt[] = [];
  const prefix = base === "/" ? "" : base;
  for (const [event, groups] of Object.entries(map ?? {})) {
    if (!Array.isArray(groups)) continue;
    groups.forEach((g: { matcher?: unknown; hooks?: unknown }, gi) => {
      const hs = Array.isArray(g?.hooks) ? (g.hooks as Array<{ type?: unknown; command?: unknown }>) : [];
      hs.forEach((h, hi) =>
        out.push({
          event,
          matcher: typeof g?.matcher === "string" ? g.matcher : undefined,
          command: typeof h?.command === "string" ? h.command : undefined,
          type: typeof h?.type === "string" ? h.type : undefined,
          path: `${prefix}/${event}/${gi}/hooks/${hi}`,
        }),
      );
    });
  }
  return out;
}
