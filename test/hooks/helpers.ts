import fs from "node:fs";
import path from "node:path";
import { tmpdir } from "../helpers.ts";
import { createHost, definePlugin, defineTool, type Host, type HostOptions, type PluginDefinition, type ToolDefinition } from "../../core/index.ts";

export function tmpDir(prefix = "toolhost-hooks-"): string {
  return tmpdir(prefix);
}

/** Write an executable script and return its absolute path. */
export function script(dir: string, name: string, body: string): string {
  const f = path.join(dir, name);
  fs.mkdirSync(path.dirname(f), { recursive: true });
  fs.writeFileSync(f, body, { mode: 0o755 });
  return f;
}

/** A shell hook that prints `json` (an object) on stdout and exits `code`. */
export function jsonHook(dir: string, name: string, json: unknown, code = 0): string {
  return script(dir, name, `#!/bin/sh\ncat > /dev/null\ncat <<'__EOF__'\n${JSON.stringify(json)}\n__EOF__\nexit ${code}\n`);
}

/** The Echo tool: returns its input as JSON. Records every call it receives. */
export function echoTool(calls: unknown[] = [], extra: Partial<ToolDefinition> = {}): ToolDefinition {
  return defineTool({
    name: "Echo",
    description: "echo the input",
    inputSchema: { type: "object", properties: { text: { type: "string" }, tag: { type: "string" }, mode: { type: "string" }, command: { type: "string" } } },
    call(input) {
      calls.push(input);
      return JSON.stringify(input);
    },
    ...extra,
  });
}

export function toolsPlugin(name: string, tools: ToolDefinition[]): PluginDefinition {
  return definePlugin({
    name,
    apply(ctx) {
      ctx.hooks.build.tap(name, (b) => b.hooks.collect.tap(name, (c) => tools.forEach((t) => c.add({ ...t, origin: "plugin", plugin: name }))));
    },
  });
}

export async function hostWith(cwd: string, opts: Partial<HostOptions> & { tools?: ToolDefinition[] } = {}): Promise<Host> {
  const { tools, plugins, ...rest } = opts;
  return createHost({ cwd, bundled: true, debounceMs: 5, ...rest, plugins: [toolsPlugin("t", tools ?? [echoTool()]), ...(plugins ?? [])] });
}

/** `{ PreToolUse: [{ matcher, hooks: [{type:"command", command}] }] }` */
export function hooksConfig(event: string, handlers: Array<Record<string, unknown>>, matcher?: string): Record<string, unknown> {
  return { [event]: [{ ...(matcher === undefined ? {} : { matcher }), hooks: handlers.map((h) => ({ type: "command", ...h })) }] };
}

export function text(o: { result: { content: Array<{ text?: string }> } }): string {
  return o.result.content.map((c) => c.text ?? "").join("\n");
}
