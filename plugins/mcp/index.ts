/**
 * MCP servers as a tool source. Servers come from every loaded plugin's `components.mcpServers`
 * (toolhost config, `.mcp.json`, plugin manifests / plugin `.mcp.json`). Connections live in this
 * plugin instance across pool generations, keyed by a hash of the resolved server config: an
 * unchanged server is not restarted on rebuild, a changed one restarts, a removed one shuts down.
 * Servers connect concurrently; `collect` waits for each at most its startup timeout, so a slow or
 * failing server never blocks the others. Everything that changes a server's tools (list_changed,
 * reconnect, late start) goes through `host.invalidate` — the one rebuild path.
 */
import os from "node:os";
import path from "node:path";
import { definePlugin, type PluginContext, type ProblemReport, type Tool, type ToolCollector, type LoadedPlugin } from "../../core/index.ts";
import { resolveServers, matchesAny, type ServerSpec } from "./config.ts";
import { McpConnection, type RawTool } from "./connection.ts";
import { assignNames } from "./names.ts";
import { repairSchema, truncateDescription } from "./schema.ts";

const PLUGIN_NAME = "mcp";

/**
 * The service this plugin provides, read with `host.service<McpConnections>(MCP_CONNECTIONS)`: the live
 * connections of the current generation and the naming rule for their entries. `toolhost serve`
 * (plugins/mcp-serve) uses it to pass upstream resources and prompts through; tests use it to find a
 * server's process. Undefined when the mcp plugin is not active.
 */
export const MCP_CONNECTIONS = "mcp.connections";

export interface McpConnections {
  /** The connections of the current generation, in config order. */
  connections(): McpConnection[];
  /** The connection whose name segment is `segment` (`mcp__<segment>__…`). */
  bySegment(segment: string): McpConnection | undefined;
  /** Unique `mcp__<segment>__<name>` names for entries of several servers, as tools get them. */
  names(entries: Array<{ segment: string; tool: string }>): Array<{ name: string }>;
}

export class McpManager implements McpConnections {
  private readonly conns = new Map<string, McpConnection>();
  /** Segment → connection of the current generation. */
  private current = new Map<string, McpConnection>();

  constructor(private readonly ctx: PluginContext) {}

  connections(): McpConnection[] {
    return [...this.current.values()];
  }

  bySegment(segment: string): McpConnection | undefined {
    return this.current.get(segment);
  }

  names(entries: Array<{ segment: string; tool: string }>): Array<{ name: string }> {
    return assignNames(entries);
  }

  /** Create, keep or close connections so they match `specs`. */
  sync(specs: ServerSpec[]): void {
    const want = new Set(specs.map((s) => s.key));
    for (const [key, conn] of this.conns) {
      if (!want.has(key)) {
        this.conns.delete(key);
        void conn.close();
      }
    }
    const next = new Map<string, McpConnection>();
    for (const s of specs) {
      let c = this.conns.get(s.key);
      if (!c) {
        c = new McpConnection(s, this.ctx.host.cwd, {
          onChange: (reason) => this.ctx.host.invalidate(reason),
          log: this.ctx.host.log,
        });
        this.conns.set(s.key, c);
        const done = this.ctx.step(`starting MCP server ${s.label}`);
        const conn = c;
        void c.start().then(() => done(conn.status === "connected"));
      } else {
        c.spec = s; // fields outside the key (include/exclude, call timeout, alwaysLoad, provenance)
        if (c.status === "failed" && Date.now() - c.startedAt > 2000) c.retry();
      }
      next.set(s.segment, c);
    }
    this.current = next;
  }

  async collect(specs: ServerSpec[], collector: ToolCollector): Promise<void> {
    this.sync(specs);
    const entries: Array<{ conn: McpConnection; raw: RawTool }> = [];
    await Promise.all(
      specs.map(async (s) => {
        const c = this.conns.get(s.key)!;
        await c.waitReady();
        const where = { plugin: s.plugin, file: s.file, path: s.jsonPath };
        if (c.status === "connected" || (c.status === "reconnecting" && c.tools.length)) {
          c.gaveUpWaiting = false;
          for (const raw of c.tools) {
            if (s.include && !matchesAny(raw.name, s.include)) continue;
            if (s.exclude && matchesAny(raw.name, s.exclude)) continue;
            entries.push({ conn: c, raw });
          }
        } else if (c.status === "pending") {
          c.gaveUpWaiting = true;
          collector.problem({ ...where, severity: "warning", message: `MCP server "${s.label}" did not finish starting within ${s.startupTimeoutMs} ms (startupTimeout / MCP_TIMEOUT); still waiting — its tools are added when it is ready` });
        } else {
          // A server that cannot start or connect is a run-time status, not a configuration error (config
          // errors — missing command, wrong types — are errors): `toolhost check` still passes offline.
          collector.problem({ ...where, ...(c.errorPath ? { path: c.errorPath } : {}), severity: "warning", message: `MCP server "${s.label}" failed: ${c.error ?? c.status}` });
        }
      }),
    );
    const names = assignNames(entries.map((e) => ({ segment: e.conn.spec.segment, tool: e.raw.name })));
    entries.forEach((e, i) => collector.add(toTool(e.conn, e.raw, names[i]!.name, names[i]!.notes)));
  }

  async closeAll(): Promise<void> {
    const all = [...this.conns.values()];
    this.conns.clear();
    this.current.clear();
    await Promise.all(all.map((c) => c.close()));
  }
}

function toTool(conn: McpConnection, raw: RawTool, name: string, nameNotes: string[]): Tool {
  const s = conn.spec;
  const notes = [...nameNotes];
  const { schema, note } = repairSchema(raw.inputSchema);
  if (note) notes.push(note);
  const d = truncateDescription(raw.description ?? raw.title ?? "");
  if (d.note) notes.push(d.note);
  const meta = raw._meta && typeof raw._meta === "object" ? raw._meta : undefined;
  const toolAlways = meta?.["anthropic/alwaysLoad"];
  const alwaysLoad = toolAlways === false ? false : toolAlways === true || s.alwaysLoad;
  const ann = raw.annotations ?? {};
  const readOnly = ann.readOnlyHint === true;
  const out = repairSchema(raw.outputSchema, true);
  const tool: Tool = {
    name,
    description: d.text,
    inputSchema: schema,
    ...(out.schema && raw.outputSchema ? { outputSchema: out.schema } : {}),
    origin: "mcp",
    plugin: s.plugin,
    file: s.file,
    server: s.label,
    sourceName: raw.name,
    notes: notes.length ? notes : undefined,
    alwaysLoad,
    isReadOnly: readOnly,
    isDestructive: ann.destructiveHint === true,
    isConcurrencySafe: readOnly,
    userFacingName: `${s.label} - ${typeof raw.title === "string" ? raw.title : typeof ann.title === "string" ? ann.title : raw.name} (MCP)`,
    extra: { _meta: meta, annotations: raw.annotations, jsonPath: s.jsonPath, title: raw.title, mcpSource: mcpSource(s) },
    call: (input, ctx) => conn.callTool(raw.name, input, ctx),
  };
  if (s.callTimeoutMs) tool.timeoutMs = s.callTimeoutMs;
  return tool;
}

export default definePlugin({
  name: PLUGIN_NAME,
  apply(ctx) {
    const manager = new McpManager(ctx);
    ctx.provide(MCP_CONNECTIONS, manager satisfies McpConnections);
    ctx.onDispose(() => manager.closeAll());
    // Start the servers now, while the remaining plugins activate; the first collect finds them
    // already starting (same resolved config → same connection, nothing is started twice).
    try {
      manager.sync(resolveServers(ctx.host.plugins(), { cwd: ctx.host.cwd }).specs);
    } catch (e) {
      ctx.host.log.debug(`[mcp] early start skipped: ${String(e)}`);
    }
    ctx.hooks.build.tap(PLUGIN_NAME, (build) => {
      build.hooks.collect.tapPromise(PLUGIN_NAME, async (collector) => {
        const { specs, problems } = resolveServers(build.plugins as LoadedPlugin[], { cwd: build.cwd });
        for (const p of problems) collector.problem(p as ProblemReport);
        await manager.collect(specs, collector);
      });
    });
  },
});

/**
 * Claude Code's `mcp_server.source` (hook input) for where a server is configured: plugin, project
 * (.mcp.json, project settings), user (settings under the home directory), sdk (inline, from the
 * embedding program), dynamic (toolhost config, like Claude Code's --mcp-config).
 */
function mcpSource(s: ServerSpec): string {
  if (s.pluginKind === "plugin") return "plugin";
  if (s.pluginKind === "mcpjson") return "project";
  if (s.pluginKind === "inline") return "sdk";
  const home = process.env.CLAUDE_CONFIG_DIR || path.join(os.homedir(), ".claude");
  if (s.pluginKind === "settings") return s.file.startsWith(home + path.sep) || s.file === path.join(os.homedir(), ".claude.json") ? "user" : "project";
  return "dynamic";
}
