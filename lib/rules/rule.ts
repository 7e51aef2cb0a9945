/**
 * The permission rule grammar (Claude Code's, ../shared/formats.md §4.2): `Tool`, `Tool(specifier)`,
 * `Tool(*)` ≡ `Tool`, tool-name globs (`*`, `mcp__*`, `mcp__srv__get_*`), `mcp__server`,
 * `Tool(param:value)`, `WebFetch(domain:host)`, `Agent(type)`, `Skill(name *)`, Bash and path rules.
 * Parsing is pure and compiles what can be compiled without a working directory; path patterns are
 * compiled lazily per (cwd, root, behavior) and cached on the rule.
 */
import { compileBashPattern, globToRegex, type BashPattern } from "./bash.ts";
import type { PathMatcher } from "./paths.ts";
import { EDIT_TOOLS, READ_TOOLS, TOOL_ALIASES } from "../tool-names.ts";

export { EDIT_TOOLS, READ_TOOLS, TOOL_ALIASES } from "../tool-names.ts";

export type RuleKind = "tool" | "bash" | "path" | "domain" | "param" | "agent" | "skill" | "generic";
export type Family = "read" | "edit";

export interface ParsedRule {
  /** Canonical text (`formatRule`). */
  readonly text: string;
  /** Canonical tool name, or a tool-name pattern (`mcp__*`, `*`). */
  readonly tool: string;
  /** Undefined: the rule covers every use of the tool. */
  readonly specifier?: string;
  readonly kind: RuleKind;
  /** Tool-name glob (`*` in the tool position). */
  readonly toolRe?: RegExp;
  /** `mcp__server` / `mcp__server__*`: every tool of that server. */
  readonly mcpServer?: string;
  /** Path rules: the family they guard. */
  readonly family?: Family;
  /** Path rules written for one member tool (`Write(x)`, `Glob(x)`): apply to that tool only. */
  readonly onlyTool?: string;
  readonly bash?: BashPattern;
  readonly param?: { name: string; re: RegExp; any: boolean };
  readonly domain?: RegExp;
  /** Agent type / Skill text / generic primary-field pattern. */
  readonly glob?: RegExp;
  /** Lazily compiled path matchers keyed by behavior, cwd and root. */
  readonly pathCache?: Map<string, PathMatcher>;
}

/**
 * Tools whose input is a shell command that Bash rules govern: Bash, Monitor, and the exec-session tool
 * `exec_command` (Codex's unified exec: `cmd`, run in `workdir`) — otherwise it would be a way around
 * every Bash rule.
 */
export const BASH_TOOLS = new Set(["Bash", "Monitor", "exec_command"]);
/** Tools that type into a running process (`write_stdin` into an exec session): deny/ask Bash rules check what they type. */
export const STDIN_TOOLS = new Set(["write_stdin"]);
/** Input fields a `param:value` rule may not name (use the tool's own specifier instead). */
export const PRIMARY_FIELDS = new Set(["command", "file_path", "path", "notebook_path", "url", "filePath"]);
/** Bash input fields that make `Bash(name:value)` a parameter rule rather than a legacy `cmd:*` prefix. */
const BASH_PARAMS = new Set(["run_in_background", "description", "dangerouslyDisableSandbox", "timeout_ms", "shell_id"]);

/** Built-in tool names (Claude Code's), for "unknown tool in a deny/ask rule" warnings. */
export const KNOWN_TOOLS = new Set(
  "Agent Bash Edit Glob Grep LS LSP MultiEdit NotebookEdit NotebookRead Read Skill SlashCommand TaskCreate TaskGet TaskList TaskOutput TaskStop TaskUpdate TodoWrite ToolSearch WebFetch WebSearch Write AskUserQuestion ExitPlanMode EnterPlanMode Monitor PowerShell ListMcpResourcesTool ReadMcpResourceTool EnterWorktree ExitWorktree Cd SendMessage TeamCreate TeamDelete".split(
    " ",
  ),
);

export function canonicalTool(name: string): string {
  return TOOL_ALIASES[name] ?? name; // no prototype (lib/tool-names.ts): "toString" is a tool name here
}

const TOOL_NAME = /^[A-Za-z0-9_*.-]+$/;

/** Parse one rule. Throws an Error whose message says what is wrong and how to write it. */
export function parseRule(input: string): ParsedRule {
  if (typeof input !== "string") throw new Error(`a rule must be a string, got ${input === null ? "null" : typeof input}`);
  const text = input.trim();
  if (!text) throw new Error("empty rule; write a tool name such as \"Bash\" or \"Bash(npm test)\"");
  const open = text.indexOf("(");
  let tool: string;
  let spec: string | undefined;
  if (open < 0) {
    if (text.includes(")")) throw new Error(`rule "${text}" has ")" without "("`);
    tool = text;
  } else {
    if (!text.endsWith(")")) throw new Error(`rule "${text}" is missing the closing ")"; write Tool(specifier)`);
    tool = text.slice(0, open);
    spec = text.slice(open + 1, -1);
    if (spec.trim() === "") throw new Error(`rule "${text}" has empty parentheses; write "${tool}" to cover every use of the tool`);
  }
  if (!tool) throw new Error(`rule "${text}" has no tool name before "("`);
  if (!TOOL_NAME.test(tool)) throw new Error(`rule "${text}": "${tool}" is not a tool name (letters, digits, _ - . and * only)`);
  tool = canonicalTool(tool);
  if (spec !== undefined && spec.trim() === "*") spec = undefined;
  if (tool === "WebFetch" && spec !== undefined) {
    const m = /^domain:(.*)$/.exec(spec.trim());
    if (!m) throw new Error(`rule "${text}": WebFetch rules take "domain:host" (e.g. WebFetch(domain:example.com))`);
    if (!m[1]) throw new Error(`rule "${text}": empty domain`);
    if (m[1] === "*") spec = undefined;
  }
  const base = { text: spec === undefined ? tool : `${tool}(${spec})`, tool, specifier: spec };

  let toolRe: RegExp | undefined;
  let mcpServer: string | undefined;
  if (tool.includes("*")) {
    const m = /^mcp__([^*]+?)__\*$/.exec(tool);
    if (m) mcpServer = m[1];
    else toolRe = globToRegex(tool);
  } else if (tool.startsWith("mcp__") && !tool.slice(5).includes("__")) mcpServer = tool.slice(5);
  if ((toolRe || mcpServer) && spec !== undefined) throw new Error(`rule "${text}": a tool-name pattern or a whole MCP server cannot take a specifier`);
  if (spec === undefined) return { ...base, kind: "tool", toolRe, mcpServer };

  const s = spec;
  const param = /^([A-Za-z_][A-Za-z0-9_]+):(.*)$/s.exec(s.trim());
  if (BASH_TOOLS.has(tool) || tool === "PowerShell") {
    // `Bash(run_in_background:true)` is a parameter rule; `Bash(git:*)` is the legacy prefix form;
    // `Bash(command:rm)` names the primary field (ignored with a warning by lintRule).
    if (param && (BASH_PARAMS.has(param[1]!) || (PRIMARY_FIELDS.has(param[1]!) && !s.trim().endsWith(":*")))) return { ...base, kind: "param", param: paramOf(param[1]!, param[2]!) };
    return { ...base, kind: "bash", bash: compileBashPattern(s, tool === "PowerShell") };
  }
  if (tool === "WebFetch") return { ...base, kind: "domain", domain: domainRegex(s.trim().slice(7)) };
  if (param) return { ...base, kind: "param", param: paramOf(param[1]!, param[2]!) };
  if (tool === "Read" || tool === "Edit") return { ...base, kind: "path", family: tool === "Read" ? "read" : "edit", pathCache: new Map() };
  if (READ_TOOLS.has(tool) || EDIT_TOOLS.has(tool)) {
    return { ...base, kind: "path", family: READ_TOOLS.has(tool) ? "read" : "edit", onlyTool: tool, pathCache: new Map() };
  }
  if (tool === "Agent") return { ...base, kind: "agent", glob: globToRegex(s.trim()) };
  if (tool === "Skill") return { ...base, kind: "skill", glob: globToRegex(s.trim()) };
  return { ...base, kind: "generic", glob: globToRegex(s.trim()) };
}

function paramOf(name: string, value: string): { name: string; re: RegExp; any: boolean } {
  const v = value.trim();
  return { name, re: globToRegex(v), any: v === "*" };
}

/** `*.example.com` = any depth of subdomain (not the apex); `*` elsewhere = one label. */
function domainRegex(d: string): RegExp {
  const host = d.toLowerCase().replace(/\.$/, "");
  if (host.startsWith("*.")) {
    const rest = host.slice(2).replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^.]*");
    return new RegExp(`^(?:[^.]+\\.)+${rest}$`);
  }
  return new RegExp(`^${host.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^.]*")}$`);
}

/** The canonical text of a rule: `Tool` or `Tool(specifier)`. parseRule(formatRule(r)) ≡ r. */
export function formatRule(r: Pick<ParsedRule, "tool" | "specifier">): string {
  return r.specifier === undefined ? r.tool : `${r.tool}(${r.specifier})`;
}

/** Does the rule's tool position name this tool? */
export function toolMatches(r: ParsedRule, toolName: string): boolean {
  const name = canonicalTool(toolName);
  if (r.mcpServer !== undefined) return name.startsWith(`mcp__${r.mcpServer}__`);
  if (r.toolRe) return r.toolRe.test(name);
  if (r.kind === "path") {
    if (r.onlyTool) return name === r.onlyTool;
    return r.family === "read" ? READ_TOOLS.has(name) : EDIT_TOOLS.has(name);
  }
  if (r.kind === "bash") return r.tool === "PowerShell" ? name === "PowerShell" : BASH_TOOLS.has(name);
  return r.tool === name;
}

/** A rule that covers every use of a tool (bare name, `Tool(*)`, `mcp__server`, tool-name glob). */
export function isBlanket(r: ParsedRule): boolean {
  return r.kind === "tool";
}

export interface RuleLint {
  /** The rule is not used (with `message` saying why). */
  skip?: boolean;
  message?: string;
  severity?: "warning" | "error";
}

/** Load-time checks that do not make a rule invalid but change or cancel its effect. */
export function lintRule(r: ParsedRule, behavior: "allow" | "deny" | "ask"): RuleLint {
  if (behavior === "allow" && r.toolRe && !/^mcp__.+__/.test(r.tool.slice(0, r.tool.indexOf("*")))) {
    return { skip: true, severity: "warning", message: `allow rule "${r.text}" is skipped: a tool-name wildcard in an allow rule is only accepted after a literal "mcp__<server>__" prefix (it would allow tools nobody has seen)` };
  }
  if (r.kind === "param" && PRIMARY_FIELDS.has(r.param!.name)) {
    return { skip: true, severity: "warning", message: `rule "${r.text}" is ignored: "${r.param!.name}" is the tool's primary field; write ${r.tool}(<pattern>) instead of ${r.tool}(${r.param!.name}:…)` };
  }
  if (r.kind === "param" && behavior === "allow") {
    return { skip: true, severity: "warning", message: `allow rule "${r.text}" is ignored: parameter rules (${r.param!.name}:…) only work in deny and ask lists` };
  }
  if (r.kind === "path" && r.onlyTool && r.onlyTool !== "Grep" && r.onlyTool !== "LSP") {
    const fam = r.family === "read" ? "Read" : "Edit";
    return { severity: "warning", message: `rule "${r.text}" applies to ${r.onlyTool} only; write ${fam}(${r.specifier}) to cover every ${fam === "Read" ? "reading" : "editing"} tool (Claude Code ignores path rules on ${r.onlyTool})` };
  }
  if (r.kind === "generic" && r.tool === "WebSearch") {
    return { severity: "warning", message: `rule "${r.text}": WebSearch takes no specifier; it is matched against the query` };
  }
  return {};
}
