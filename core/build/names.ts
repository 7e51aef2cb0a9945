/**
 * Names are owned (issue 14 §2). Before any filter runs, every collected name gets one owner or none:
 *  - `mcp__<server>__*` belongs to the MCP server's tools (origin "mcp", added by a trusted source); a
 *    plugin's own code may use its own namespace `mcp__plugin_<id>_…` where no server of it does;
 *  - a name a bundled plugin defines (Bash, Read, Write, Edit, Glob, Grep, ToolSearch, LSP …) is built-in;
 *  - any other name shared by two tools is contested: neither is served and both are errors, unless a
 *    `resolveConflict` hook picks one (then the losers are warnings naming the choice).
 * "Trusted source" = the collect tap of a bundled plugin or of the embedder's inline plugins
 * (createHost({plugins})); a tool a plugin directory's own code adds cannot claim "builtin" or "mcp".
 */
import type { ProblemReport } from "../errors.ts";
import type { Exclusion, LoadedPlugin, Tool } from "../types.ts";
import { defaultConflictWinner } from "./pool.ts";
import { NAME_RULES } from "../../lib/explain.ts";

export interface NameState {
  readonly problems: ProblemReport[];
  readonly excluded: Exclusion[];
  readonly plugins: readonly LoadedPlugin[];
  /** Which plugin's collect tap added each tool. */
  readonly addedBy: Map<Tool, string>;
  resolve(candidates: Tool[]): Tool | undefined;
}

type Claim = "builtin" | "mcp" | "plain";

function claims(s: NameState): (t: Tool) => Claim {
  const trusted = new Set(s.plugins.filter((p) => p.source.kind === "bundled" || p.kind === "inline").map((p) => p.id));
  const bundled = new Set(s.plugins.filter((p) => p.source.kind === "bundled").map((p) => p.id));
  return (t) => {
    const by = s.addedBy.get(t);
    if (by === undefined || !trusted.has(by)) return "plain";
    if (t.origin === "mcp") return "mcp";
    return t.origin === "builtin" || bundled.has(t.plugin) ? "builtin" : "plain";
  };
}

const ownNamespace = (t: Tool) => t.name.startsWith(`mcp__plugin_${t.plugin.replace(/[^A-Za-z0-9_-]/g, "_")}_`);
const where = (t: Tool) => `plugin ${t.plugin}${t.file ? ` (${t.file})` : ""}`;

function lose(s: NameState, t: Tool, rule: string, reason: string, message: string, severity: "error" | "warning"): void {
  s.excluded.push({ name: t.name, reason, rule, plugin: "toolhost", file: t.file, toolPlugin: t.plugin });
  s.problems.push({ plugin: t.plugin, file: t.file, path: `tool ${t.name}`, message, severity });
}

/** One tool per name, owners first; every loser is excluded and reported. Nameless tools pass through (exclude reports them). */
export function resolveNames(s: NameState, tools: Tool[]): Tool[] {
  const claim = claims(s);
  const byName = new Map<string, Tool[]>();
  const out: Tool[] = [];
  for (const t of tools) {
    if (!t || typeof t.name !== "string" || !t.name) out.push(t);
    else {
      const list = byName.get(t.name);
      if (list) list.push(t);
      else byName.set(t.name, [t]);
    }
  }
  for (const [name, cands] of byName) {
    const owners = cands.filter((c) => claim(c) === (name.startsWith("mcp__") ? "mcp" : "builtin"));
    // A plugin's own MCP namespace (`mcp__plugin_<id>_…`, Claude Code's names for a plugin's servers) is its to use.
    const mcp = name.startsWith("mcp__") && (owners.length > 0 || !cands.every(ownNamespace));
    if (mcp || owners.length) {
      const owner = owners.length ? pickOwner(s, owners) : undefined;
      for (const c of cands) if (!owners.includes(c)) refuse(s, c, mcp, owner);
      if (owner) out.push(owner);
    } else if (cands.length === 1) out.push(cands[0]!);
    else out.push(...contest(s, name, cands));
  }
  allLost(s, tools);
  return out;
}

/** Two owners of one name (two bundled tools, two MCP tools): the documented default rule, reported. */
function pickOwner(s: NameState, owners: Tool[]): Tool {
  if (owners.length === 1) return owners[0]!;
  const w = defaultConflictWinner(owners);
  for (const o of owners) {
    if (o === w) continue;
    const why = `name conflict: "${o.name}" is also provided by ${where(w)} (${w.origin}), which wins (origin builtin > plugin > lsp > mcp > remote, then plugin id)`;
    lose(s, o, "conflict", why, why, "warning");
  }
  return w;
}

function refuse(s: NameState, t: Tool, mcp: boolean, owner: Tool | undefined): void {
  if (mcp) {
    const whose = owner ? `it belongs to MCP server ${owner.server ?? "?"} (${where(owner)})` : `no MCP server of this configuration provides it`;
    const reason = `"${t.name}" is an MCP server's name (mcp__<server>__* belongs to that server; ${whose}); the tool of ${where(t)} is refused`;
    lose(s, t, "name: mcp server", reason, `tool "${t.name}" is refused: names of the form mcp__<server>__* belong to their MCP server, and ${whose} — rename the tool`, "error");
    return;
  }
  const o = owner!;
  const reason = `"${t.name}" is a built-in tool name, owned by ${where(o)} (${o.origin}); the tool of ${where(t)} is refused`;
  lose(s, t, "name: built-in", reason, `tool "${t.name}" is refused: it is the name of a built-in tool (${where(o)}), and built-in names cannot be taken — rename the tool`, "error");
}

/** A name no one owns, defined twice or more: a resolveConflict hook may choose; else none is served. */
function contest(s: NameState, name: string, cands: Tool[]): Tool[] {
  const chosen = s.resolve(cands);
  const w = chosen && cands.includes(chosen) ? chosen : undefined;
  for (const c of cands) {
    if (c === w) continue;
    const others = cands.filter((o) => o !== c).map(where).join(" and ");
    if (w) {
      const why = `name conflict: "${name}" is also defined by ${others}; a resolveConflict hook chose ${where(w)}`;
      lose(s, c, "conflict", why, why, "warning");
    } else {
      const why = `name conflict: "${name}" is defined by ${where(c)} and by ${others}; neither is served`;
      lose(s, c, "conflict", why, `tool name "${name}" is defined by ${where(c)} and by ${others}: neither is served — rename one, or disable one with disabledPlugins`, "error");
    }
  }
  return w ? [w] : [];
}

/** A plugin every one of whose tools lost its name provides nothing: that is an error of its own. */
function allLost(s: NameState, tools: Tool[]): void {
  const total = new Map<string, number>();
  for (const t of tools) if (t?.plugin) total.set(t.plugin, (total.get(t.plugin) ?? 0) + 1);
  const lost = new Map<string, number>();
  for (const x of s.excluded) if (x.toolPlugin && NAME_RULES.has(x.rule ?? "")) lost.set(x.toolPlugin, (lost.get(x.toolPlugin) ?? 0) + 1);
  for (const [id, n] of lost) {
    if (n < (total.get(id) ?? 0)) continue;
    const lp = s.plugins.find((p) => p.id === id);
    s.problems.push({ plugin: id, file: lp?.manifestFile ?? lp?.root, message: `every tool of plugin ${id} (${n}) lost its name to another tool: the plugin provides no tools`, severity: "error" });
  }
}
