/** Decide one call against inline rules, outside a host (the corpus's pattern), for the perm-b tests. */
import os from "node:os";
import path from "node:path";
import { defineTool, type Decision, type LoadedPlugin, type Tool } from "../../core/index.ts";
import { evaluate } from "../../plugins/permissions/decide.ts";
import { collectRules } from "../../plugins/permissions/rules.ts";

export type Rules = { allow?: string[]; ask?: string[]; deny?: string[]; additionalDirectories?: string[]; caseInsensitivePaths?: boolean };

export function settingsPlugin(cwd: string, rules: Rules): LoadedPlugin {
  return {
    id: "settings:project",
    kind: "settings",
    root: path.join(cwd, ".claude"),
    source: { kind: "settings", path: path.join(cwd, ".claude", "settings.json") },
    manifest: {},
    dataDir: os.tmpdir(),
    env: {},
    rulesRoot: cwd,
    components: { hooks: [], mcpServers: [], lspServers: [], tools: [], permissions: { file: path.join(cwd, ".claude", "settings.json"), jsonPath: "/permissions", value: rules } },
    problems: [],
    failed: false,
    order: 0,
  } as LoadedPlugin;
}

const READ_ONLY = new Set(["Read", "Grep", "Glob", "LSP", "LS"]);

/** `input`: a string is a Bash command (Bash, exec_command) or a file path (other tools). */
export function decide(cwd: string, rules: Rules, toolName: string, input: string | Record<string, unknown>, mode = "default", shellCwd?: string): Decision {
  const rs = collectRules([settingsPlugin(cwd, rules)], []);
  const inp = typeof input === "string" ? (toolName === "Bash" ? { command: input } : toolName === "exec_command" ? { cmd: input } : toolName === "Grep" || toolName === "Glob" ? { pattern: "x", path: input } : { file_path: input }) : input;
  const tool = { ...defineTool({ name: toolName, description: "t", inputSchema: {}, call: () => "" }), origin: "builtin", plugin: "t", isReadOnly: READ_ONLY.has(toolName) } as Tool;
  return evaluate(rs, { toolName, tool, input: inp, cwd, mode, shellCwd });
}

export type Expect = "allow" | "ask" | "deny";
/** [rules, Bash command, expected decision, mode?] — the readonly-model and grammars tables. */
export type BashCase = [Rules, string, Expect, string?];
