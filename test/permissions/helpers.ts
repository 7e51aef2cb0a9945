/** Test helpers: a temp project and a host with inline Claude-Code-shaped tools (Bash, Read, Edit, Write, Grep, WebFetch, Agent, an MCP tool). */
import { tmpdir, writeTree } from "../helpers.ts";
import { createHost, defineTool, definePlugin, type Host, type HostOptions, type Tool } from "../../core/index.ts";

export function tempProject(files: Record<string, string> = {}): string {
  return writeTree(tmpdir("toolhost-perm-"), files);
}

export const calls: Array<{ tool: string; input: unknown }> = [];

const echo = (name: string) => (input: unknown) => {
  calls.push({ tool: name, input });
  return `${name} ran`;
};

export const testTools = [
  defineTool({ name: "Bash", description: "run a shell command", inputSchema: { properties: { command: { type: "string" }, run_in_background: { type: "boolean" } }, required: ["command"] }, call: echo("Bash") }),
  defineTool({ name: "Read", description: "read a file", isReadOnly: true, isConcurrencySafe: true, inputSchema: { properties: { file_path: { type: "string" } }, required: ["file_path"] }, call: echo("Read") }),
  defineTool({ name: "Grep", description: "search", isReadOnly: true, inputSchema: { properties: { pattern: { type: "string" }, path: { type: "string" } }, required: ["pattern"] }, call: echo("Grep") }),
  defineTool({ name: "Edit", description: "edit a file", inputSchema: { properties: { file_path: { type: "string" }, old_string: { type: "string" }, new_string: { type: "string" } }, required: ["file_path"] }, call: echo("Edit") }),
  defineTool({ name: "Write", description: "write a file", inputSchema: { properties: { file_path: { type: "string" }, content: { type: "string" } }, required: ["file_path"] }, call: echo("Write") }),
  defineTool({ name: "WebFetch", description: "fetch a URL", isReadOnly: true, inputSchema: { properties: { url: { type: "string" }, prompt: { type: "string" } }, required: ["url"] }, call: echo("WebFetch"), checkPermissions: () => ({ behavior: "ask", reason: "fetching the web needs approval" }) }),
  defineTool({ name: "Agent", description: "run a subagent", inputSchema: { properties: { subagent_type: { type: "string" }, prompt: { type: "string" }, model: { type: "string" } }, required: ["prompt"] }, call: echo("Agent") }),
  defineTool({ name: "WebSearch", description: "search the web", inputSchema: { properties: { query: { type: "string" } }, required: ["query"] }, call: echo("WebSearch") }),
];

export const mcpTools = ["mcp__github__get_issue", "mcp__github__create_issue", "mcp__db__query"].map((name) =>
  defineTool({ name, description: `mcp tool ${name}`, inputSchema: { properties: { q: { type: "string" } } }, call: echo(name) }),
);

/** An inline plugin that contributes the test tools (MCP-named ones with origin "mcp"). */
export function toolsPlugin(extra: Tool[] = []) {
  return definePlugin({
    name: "test-tools",
    apply(ctx) {
      ctx.hooks.build.tap("test-tools", (build) => {
        build.hooks.collect.tap("test-tools", (c) => {
          for (const t of testTools) c.add({ ...t, origin: "builtin", plugin: "test-tools" } as Tool);
          for (const t of mcpTools) c.add({ ...t, origin: "mcp", plugin: "test-tools", server: t.name.split("__")[1] } as Tool);
          for (const t of extra) c.add(t);
        });
      });
    },
  });
}

export async function hostWith(cwd: string, permissions: Record<string, unknown>, opts: Partial<HostOptions> = {}): Promise<Host> {
  return createHost({ cwd, config: { permissions: permissions as never, disabledPlugins: ["builtin-tools", "tool-search", "mcp", "lsp", "watch"] }, plugins: [toolsPlugin()], debounceMs: 5, ...opts });
}
