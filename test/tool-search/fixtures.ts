/** Inline test plugins that collect fake MCP-origin tools (the real MCP plugin lands separately). */
import { definePlugin, type JsonSchema, type PluginDefinition, type Tool } from "../../core/index.ts";

export interface FakeTool {
  server: string;
  name: string;
  description: string;
  inputSchema?: JsonSchema;
  extra?: Record<string, unknown>;
  alwaysLoad?: boolean;
  shouldDefer?: boolean;
  origin?: Tool["origin"];
}

export function fakeTool(t: FakeTool, plugin: string): Tool {
  const origin = t.origin ?? "mcp";
  return {
    name: origin === "mcp" ? `mcp__${t.server}__${t.name}` : t.name,
    description: t.description,
    inputSchema: t.inputSchema ?? { type: "object", properties: {} },
    origin,
    plugin,
    server: origin === "mcp" ? t.server : undefined,
    sourceName: t.name,
    extra: t.extra,
    alwaysLoad: t.alwaysLoad,
    shouldDefer: t.shouldDefer,
    call: (input: unknown) => ({ content: [{ type: "text", text: `${t.server}/${t.name} called with ${JSON.stringify(input)}` }] }),
  };
}

/** A plugin whose tool list can be changed between rebuilds (like an MCP server coming and going). */
export function fakeMcpPlugin(name: string, tools: () => FakeTool[]): PluginDefinition {
  return definePlugin({
    name,
    apply(ctx) {
      ctx.hooks.build.tap(name, (build) => {
        build.hooks.collect.tapPromise(name, async (c) => {
          for (const t of tools()) c.add(fakeTool(t, name));
        });
      });
    },
  });
}

export const GITHUB: FakeTool[] = [
  { server: "github", name: "create_issue", description: "Create a new issue in a GitHub repository.", inputSchema: { type: "object", properties: { owner: { type: "string" }, repo: { type: "string" }, title: { type: "string", description: "Issue title" } }, required: ["owner", "repo", "title"] } },
  { server: "github", name: "list_issues", description: "List issues in a GitHub repository with filters for state and labels." },
  { server: "github", name: "create_pull_request", description: "Create a new pull request in a GitHub repository." },
  { server: "github", name: "merge_pull_request", description: "Merge a pull request." },
  { server: "github", name: "get_file_contents", description: "Get the contents of a file or directory from a GitHub repository." },
];
export const SLACK: FakeTool[] = [
  { server: "slack", name: "send_message", description: "Post a new message to a Slack channel." },
  { server: "slack", name: "list_channels", description: "List public channels in the workspace." },
  { server: "slack", name: "get_user_profile", description: "Get a user's profile information: name, title, timezone." },
];
export const GITLAB: FakeTool[] = [
  { server: "gitlab", name: "create_issue", description: "Create a new issue in a GitLab project." },
  { server: "gitlab", name: "get_file_contents", description: "Get the contents of a file from a GitLab project." },
];
