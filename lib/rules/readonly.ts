/**
 * Read-only shell commands, decided by the shell parser and the command tables (bash.ts,
 * commands.ts): the one answer for plan mode, concurrency and auto-approval, whoever asks.
 */
import { isInside } from "../fs-path.ts";
import { callFacts, type CallFacts } from "./match.ts";

/**
 * Every segment is a recognised read-only command that writes nothing (no redirection either) and
 * names no path computed at run time (`cat $(…)` reads whatever the substitution prints).
 */
export function readOnlyBash(f: CallFacts): boolean {
  const b = f.bash;
  if (!b?.ok) return false;
  return b.segments.every(
    (s) => s.readOnly && !s.unallowable && !(f.segWrites?.get(s) ?? []).length && !s.redirectWrites.length && !s.reads.some((r) => r.dynamic),
  );
}

/** Whether `command` only reads (parsed relative to `cwd`, which does not change the answer). */
export function isReadOnlyCommand(command: unknown, cwd: string = process.cwd()): boolean {
  if (typeof command !== "string" || !command.trim()) return false;
  return readOnlyBash(callFacts("Bash", { command }, cwd, cwd));
}

/**
 * Read-only and confined to `dir`: every segment runs there and every path it reads resolves inside
 * it (no `..`, no run-time expansion), so it may be approved without a rule.
 */
export function isReadOnlyInside(command: unknown, dir: string): boolean {
  if (typeof command !== "string" || !command.trim()) return false;
  const f = callFacts("Bash", { command }, dir, dir);
  if (!readOnlyBash(f)) return false;
  return f.bash!.segments.every((s) => {
    if (!isInside(s.dir, dir)) return false;
    if (s.reads.some((r) => r.dynamic || r.path.split(/[\\/]/).includes(".."))) return false;
    return (f.segReads?.get(s) ?? []).every((p) => isInside(p.abs, dir) && isInside(p.real, dir));
  });
}
