/**
 * host.chooseMode: the permission mode a configuration asks for — createHost's inline config → a config
 * file named with --config → .claude/settings.local.json → a config file found in the project →
 * .claude/settings.json (first found wins). The last two are checked in, so they may not escalate.
 * `permissions.disableBypassPermissionsMode: "disable"` locks bypassPermissions; core applies the lock.
 */
import type { ModeChoice, ModePlace, ModeQuery, ProblemReport } from "../../core/index.ts";
import { PERMISSION_MODES } from "../../lib/modes.ts";
/** Modes a repo-committed project settings file may not switch on (Claude Code filters these escalations). */
const ESCALATING = new Set(["bypassPermissions", "acceptEdits", "auto"]);

/**
 * Read a mode setting: "manual" is Claude Code's alias of "default"; `auto` and unknown names are
 * reported and ignored; a project file may not escalate. Returns the mode to use, or undefined.
 */
function modeSetting(value: unknown, where: { plugin: string; file?: string; path: string; checkedIn: boolean }, problems: { push(p: ProblemReport): void }): string | undefined {
  if (value === undefined) return undefined;
  const at = { plugin: where.plugin, file: where.file, path: where.path };
  if (typeof value !== "string") {
    problems.push({ ...at, message: `defaultMode must be a string, one of ${PERMISSION_MODES.join(", ")}`, severity: "error" });
    return undefined;
  }
  const mode = value === "manual" ? "default" : value;
  if (mode === "auto") {
    problems.push({ ...at, message: `defaultMode "auto" (Claude Code's classifier mode) is not supported by toolhost and is ignored; use default, acceptEdits, plan, dontAsk or bypassPermissions`, severity: "warning" });
    return undefined;
  }
  if (!(PERMISSION_MODES as readonly string[]).includes(mode)) {
    problems.push({ ...at, message: `unknown defaultMode "${value}" is ignored; use one of ${PERMISSION_MODES.join(", ")}`, severity: "warning" });
    return undefined;
  }
  if (where.checkedIn && ESCALATING.has(mode)) {
    problems.push({
      ...at,
      message: `mode "${mode}" in ${where.plugin === "config" ? "a toolhost config found in the project" : "the repo-committed project settings"} is ignored (a checked-in file may not loosen permissions; Claude Code filters it too) — set it in .claude/settings.local.json, pass --mode / createHost({mode}), or name a config file with --config`,
      severity: "warning",
    });
    return undefined;
  }
  return mode;
}

/** The first mode the places (in precedence order) set, and who disables bypassPermissions. */
export function chooseMode(choice: ModeChoice, query: ModeQuery): ModeChoice {
  const problems = { push: (p: ProblemReport) => query.problem(p) };
  const requested = query.requested;
  if (requested && !(PERMISSION_MODES as readonly string[]).includes(requested)) {
    // a plugin may define a mode of its own, so this warns rather than refuses
    query.problem({ plugin: "toolhost", path: "createHost({mode})", message: `unknown permission mode "${requested}" (known: ${PERMISSION_MODES.join(", ")}); no bundled plugin treats it specially`, severity: "warning" });
  }
  const places: readonly ModePlace[] = query.places;
  let locked = false;
  for (const pl of [...places].sort((a, b) => a.precedence - b.precedence)) {
    const c = pl.value && typeof pl.value === "object" ? (pl.value as Record<string, unknown>) : {};
    const p = c.permissions && typeof c.permissions === "object" ? (c.permissions as Record<string, unknown>) : {};
    const candidates: Array<[unknown, string]> = [[pl.topMode ? c.mode : undefined, `${pl.prefix}/mode`], [p.defaultMode, `${pl.prefix}/permissions/defaultMode`]];
    for (const [value, jsonPath] of candidates) {
      const m = modeSetting(value, { plugin: pl.plugin, file: pl.file, path: jsonPath, checkedIn: pl.checkedIn }, problems);
      if (m && !choice.defaultMode) choice = { ...choice, defaultMode: { mode: m, source: pl.plugin, file: pl.file, path: jsonPath } };
    }
    if (p.disableBypassPermissionsMode === "disable" && !locked) {
      locked = true;
      const lock = { mode: "bypassPermissions", plugin: pl.plugin, file: pl.file, path: `${pl.prefix}/permissions/disableBypassPermissionsMode`, reason: `disableBypassPermissionsMode: "disable"` };
      choice = { ...choice, locks: [...(choice.locks ?? []), lock] };
    }
  }
  return choice;
}
