import fs from "node:fs";
import path from "node:path";
import { tmpdir, writeJson } from "../helpers.ts";
import type { Host } from "../../core/index.ts";
import { MCP_CONNECTIONS, type McpManager } from "../../plugins/mcp/index.ts";

export const ROOT = path.resolve(import.meta.dirname, "..", "..");
export const NODE = process.execPath;
const MCP = path.join(ROOT, "node_modules", "@modelcontextprotocol");
export const SERVERS = {
  memory: path.join(MCP, "server-memory", "dist", "index.js"),
  everything: path.join(MCP, "server-everything", "dist", "index.js"),
  filesystem: path.join(MCP, "server-filesystem", "dist", "index.js"),
  quirky: path.join(ROOT, "test", "fixtures", "mcp", "quirky-server.mjs"),
};
export const INSPECTOR_CLI = path.join(MCP, "inspector", "cli", "build", "cli.js");
export const TOOLHOST_BIN = path.join(ROOT, "bin", "toolhost.mjs");

export function tmpDir(prefix = "toolhost-mcp-"): string {
  return tmpdir(prefix);
}

export function stdio(script: string, args: string[] = [], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { command: NODE, args: [script, ...args], ...extra };
}

export { alive, waitFor, writeJson } from "../helpers.ts";


/** A plugin (plain object, no imports, so it works from any temp dir) that allows calls and denies listed names. */
export function writePolicyPlugin(dir: string, policy: { allow?: string[]; deny?: string[] }): string {
  const root = path.join(dir, "policy-plugin");
  writeJson(path.join(root, ".claude-plugin", "plugin.json"), { name: "test-policy", main: "./index.mjs" });
  writeJson(path.join(root, "policy.json"), policy);
  fs.writeFileSync(
    path.join(root, "index.mjs"),
    `import fs from "node:fs";
const policy = JSON.parse(fs.readFileSync(new URL("./policy.json", import.meta.url), "utf8"));
const hit = (list, name) => (list ?? []).some((p) => p === name || (p.endsWith("*") && name.startsWith(p.slice(0, -1))));
export default {
  name: "test-policy",
  apply(ctx) {
    ctx.hooks.build.tap("test-policy", (build) => {
      build.hooks.deny.tapPromise("test-policy", async (call) =>
        hit(policy.deny, call.tool.name) ? { behavior: "deny", reason: "denied by the test policy", rule: call.tool.name, plugin: "test-policy" } : undefined);
      build.hooks.permission.tapPromise("test-policy", async (call) =>
        hit(policy.allow, call.tool.name) ? { behavior: "allow", reason: "allowed by the test policy", rule: call.tool.name, plugin: "test-policy" } : undefined);
    });
  },
};
`,
  );
  return root;
}

/** The mcp plugin's "mcp.connections" service of a host. */
export function mcpOf(host: Host): McpManager | undefined {
  return host.service<McpManager>(MCP_CONNECTIONS);
}
