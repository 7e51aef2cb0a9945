/**
 * Fallback for the per-handler `if` rule until plugins/permissions/match.ts lands on main (same
 * signature, so switching is a one-line import change). Understands a bare tool name (`Bash`,
 * `mcp__db__query`), `mcp__server` / `mcp__server__*`, and `Tool(spec)` where spec is matched against
 * the tool's main string field (Bash `command`, file tools `file_path`/`path`, WebFetch `url`,
 * anything else: the first string field) with `*` as a wildcard and the legacy `:*` suffix.
 */
export interface RuleCall {
  toolName: string;
  input: unknown;
}

const MAIN_FIELD = ["command", "file_path", "path", "notebook_path", "url", "pattern", "query", "subagent_type"];

export function matchesRule(rule: string, call: RuleCall, _ctx: { cwd: string; rulesRoot?: string }): boolean {
  const m = /^([^()]+?)(?:\((.*)\))?$/s.exec(rule.trim());
  if (!m) return false;
  const tool = m[1]!.trim();
  const spec = m[2];
  if (tool.startsWith("mcp__")) {
    const base = tool.endsWith("__*") ? tool.slice(0, -3) : tool;
    if (!(call.toolName === base || call.toolName.startsWith(base + "__"))) return false;
  } else if (tool !== call.toolName) return false;
  if (spec === undefined || spec === "" || spec === "*") return true;
  const input = (call.input ?? {}) as Record<string, unknown>;
  const field = MAIN_FIELD.find((k) => typeof input[k] === "string") ?? Object.keys(input).find((k) => typeof input[k] === "string");
  if (!field) return false;
  const value = String(input[field]);
  const pattern = spec.endsWith(":*") ? spec.slice(0, -2) + "*" : spec;
  const re = new RegExp("^" + pattern.split("*").map((s) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*") + "$", "s");
  return re.test(value);
}
