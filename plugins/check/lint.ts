/**
 * What `toolhost check` finds beyond the host's own problems — the cases that load "fine" and then do
 * nothing: a plugin directory whose manifest is misnamed or that holds nothing to load, a hook script that
 * does not exist, a hook matcher that names no tool.
 */
import fs from "node:fs";
import path from "node:path";
import type { Host, LoadedPlugin } from "../../core/index.ts";
import { handlersOf, missingScript } from "../../lib/hook-scripts.ts";
import { suggest } from "../../lib/text.ts";
import { TOOL_ALIASES } from "../../lib/tool-names.ts";

export interface Finding {
  severity: "error" | "warning";
  plugin: string;
  file: string | null;
  path: string | null;
  message: string;
}

/** Claude Code's built-in tools that a real plugin's matcher may name though this pool has no such tool. */
const CLAUDE_CODE_TOOLS = ["Agent", "Task", "Bash", "BashOutput", "KillShell", "KillBash", "Read", "Write", "Edit", "MultiEdit", "Glob", "Grep", "LS", "NotebookRead", "NotebookEdit", "WebFetch", "WebSearch", "TodoWrite", "TodoRead", "ExitPlanMode", "EnterPlanMode", "SlashCommand", "Skill", "AskUserQuestion", "ToolSearch", "TaskOutput", "TaskStop", "LSP"];
const TOOL_EVENTS = new Set(["PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest"]);
/** Component folders Claude Code discovers in a plugin without a manifest. */
const DISCOVERED = ["commands", "agents", "skills", "hooks", "output-styles"];
const MANIFEST_NEAR = /^(\.?claude[-_.]?plugins?|plugins?|toolhost[-_.]plugins?|manifest)(\.json)?$/i;

/** A directory checked as a plugin: a misnamed manifest, or nothing at all to load. */
export function pluginDirFindings(lp: LoadedPlugin): Finding[] {
  if (lp.manifestFile || lp.kind !== "plugin") return [];
  const out: Finding[] = [];
  const at = (rel: string) => path.join(lp.root, rel);
  const near = [
    ...listDir(at(".claude-plugin")).filter((f) => f.endsWith(".json") || MANIFEST_NEAR.test(f)).map((f) => path.join(".claude-plugin", f)),
    ...listDir(lp.root).filter((f) => MANIFEST_NEAR.test(f) && f !== ".claude-plugin"),
  ];
  for (const rel of near)
    out.push({ severity: "warning", plugin: lp.id, file: at(rel), path: null, message: `this looks like a manifest but is not read: a plugin's manifest is .claude-plugin/plugin.json (or toolhost.plugin.json) — rename ${rel}` });
  const c = lp.components;
  const loads = c.hooks.length + c.mcpServers.length + c.lspServers.length + c.tools.length + (c.main ? 1 : 0) + (c.permissions ? 1 : 0);
  if (!loads && !DISCOVERED.some((d) => fs.existsSync(at(d))))
    out.push({ severity: "error", plugin: lp.id, file: lp.root, path: null, message: `nothing to load: no .claude-plugin/plugin.json, toolhost.plugin.json, hooks/hooks.json, .mcp.json or .lsp.json in ${lp.root}` });
  return out;
}

function listDir(d: string): string[] {
  try {
    return fs.readdirSync(d);
  } catch {
    return [];
  }
}

/** Hook handlers of `plugins`: scripts that do not exist, matchers on tool events that name no tool. */
export function hookFindings(host: Host, plugins: readonly LoadedPlugin[]): Finding[] {
  const names = new Set([...host.pool.tools, ...host.pool.deferred].map((t) => t.name));
  const known = new Set([...names, ...CLAUDE_CODE_TOOLS]);
  const out: Finding[] = [];
  for (const lp of plugins)
    for (const comp of lp.components.hooks)
      for (const h of handlersOf(comp.value as Record<string, unknown>, comp.jsonPath)) {
        const at = (severity: Finding["severity"], p: string, message: string): Finding => ({ severity, plugin: lp.id, file: comp.file ?? null, path: p, message });
        if (h.type === "command" && h.command) {
          const miss = missingScript(h.command, lp.env, lp.kind === "plugin" ? lp.root : host.cwd);
          if (miss) out.push(at("error", `${h.path}/command`, `hook script ${miss} does not exist (command: ${h.command}); the hook would fail on every ${h.event}`));
        }
        if (!TOOL_EVENTS.has(h.event) || !h.path.endsWith("/hooks/0")) continue; // one finding per matcher group
        const why = matcherProblem(h.matcher, names, known);
        if (why) out.push(at("warning", h.path.replace(/\/hooks\/0$/, "/matcher"), why));
      }
  return out;
}

/**
 * Why a tool-event matcher can never fire in this pool, or undefined. Claude Code's semantics, as
 * command-hooks runs them: "" and "*" match all; plain names separated by `|` or `,` (legacy aliases
 * count); anything else is an unanchored regular expression.
 */
export function matcherProblem(matcher: string | undefined, pool: ReadonlySet<string>, known: ReadonlySet<string>): string | undefined {
  if (matcher === undefined || matcher === "" || matcher === "*") return undefined;
  if (/^[A-Za-z0-9_ ,|-]+$/.test(matcher)) {
    const missing = matcher.split(/[|,]/).map((n) => n.trim()).filter((n) => n && !known.has(n) && !known.has(TOOL_ALIASES[n] ?? "") && !n.startsWith("mcp__"));
    if (!missing.length) return undefined;
    return missing.map((n) => `matcher "${n}" names no tool${suggest(n, known)}`).join("; ") + " — the hook never runs for it";
  }
  let re: RegExp;
  try {
    re = new RegExp(matcher);
  } catch (e) {
    return `matcher ${JSON.stringify(matcher)} is not a valid regular expression (${(e as Error).message})`;
  }
  if (matcher.includes("mcp__")) return undefined; // MCP servers may still be starting: their tools are not all known here
  return [...known].some((n) => re.test(n)) ? undefined : `matcher ${JSON.stringify(matcher)} matches no tool in this pool (${pool.size} tools) nor any Claude Code tool — the hook never runs`;
}
