/**
 * Filters fail closed (issue 14 §6): the active tool set must exist, the mode must be known, and every
 * member of every tool set must name a tool. Each problem names the file and field and suggests the
 * closest known name; an error fails the rebuild, so the last good pool keeps serving.
 */
import type { HostConfig, LoadedPlugin, ProblemReport } from "../../core/index.ts";
import { PERMISSION_MODES } from "../../lib/modes.ts";
import { suggest } from "../../lib/text.ts";

export const PLUGIN_NAME = "modes";

export interface FilterCheck {
  problems: ProblemReport[];
  /** Set when the pool must serve nothing (first build with an unknown tool set or mode): why. */
  closed?: { reason: string; rule: string };
}

export function configFile(plugins: readonly LoadedPlugin[]): { file?: string; base: string } {
  const file = plugins.find((p) => p.id === "config")?.manifestFile;
  return { file, base: file?.endsWith("package.json") ? "/toolhost" : "" };
}

export function checkFilters(config: Readonly<HostConfig>, mode: string, plugins: readonly LoadedPlugin[], names: ReadonlySet<string>): FilterCheck {
  const { file, base } = configFile(plugins);
  const out: FilterCheck = { problems: [] };
  const sets = config.toolSets && typeof config.toolSets === "object" ? config.toolSets : {};
  const setName = config.toolSet;
  if (typeof setName === "string" && !Object.prototype.hasOwnProperty.call(sets, setName)) {
    const known = Object.keys(sets);
    const why = `unknown tool set "${setName}"${suggest(setName, known)}: toolSets defines ${known.length ? known.map((k) => `"${k}"`).join(", ") : "no sets"}`;
    out.problems.push({ plugin: PLUGIN_NAME, file, path: `${base}/toolSet`, message: `${why} — the filter fails closed (no tools) instead of switching off`, severity: "error" });
    out.closed = { reason: `${why}; filters fail closed: no tool is served until it is fixed`, rule: `toolSet: ${setName} (unknown)` };
  }
  if (!(PERMISSION_MODES as readonly string[]).includes(mode)) {
    const why = `unknown permission mode "${mode}"${suggest(mode, PERMISSION_MODES)} (known: ${PERMISSION_MODES.join(", ")})`;
    out.problems.push({ plugin: PLUGIN_NAME, path: "mode (createHost({mode}) or host.setMode)", message: `${why} — the pool fails closed (no tools) instead of running unfiltered`, severity: "error" });
    out.closed ??= { reason: `${why}; filters fail closed: no tool is served until it is fixed`, rule: `mode: ${mode} (unknown)` };
  }
  for (const [set, members] of Object.entries(sets)) {
    if (!Array.isArray(members)) continue;
    members.forEach((m, i) => {
      const p = memberProblem(m, names);
      if (p) out.problems.push({ plugin: PLUGIN_NAME, file, path: `${base}/toolSets/${set}/${i}`, message: `tool set "${set}": ${p.message}`, severity: p.severity });
    });
  }
  return out;
}

function memberProblem(m: unknown, names: ReadonlySet<string>): { message: string; severity: "error" | "warning" } | undefined {
  if (typeof m !== "string" || !m) return { message: `member ${JSON.stringify(m)} is not a tool name`, severity: "error" };
  if (m.endsWith("*")) {
    const prefix = m.slice(0, -1);
    for (const n of names) if (n.startsWith(prefix)) return undefined;
    return { message: `"${m}" matches no tool`, severity: "warning" };
  }
  if (names.has(m)) return undefined;
  // An MCP server's tools come and go with the server (a slow start, a restart): a warning, not an error.
  if (m.startsWith("mcp__")) return { message: `"${m}" is not a tool of any connected MCP server (yet)`, severity: "warning" };
  return { message: `unknown tool "${m}"${suggest(m, names)}`, severity: "error" };
}
