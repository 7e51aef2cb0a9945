/**
 * The state one `toolhost serve` process shares between its client connections, and how it reaches
 * the mcp plugin's connections: through the host's service registry ("mcp.connections"). A command
 * holds a `Host`, and services are read on a plugin's `HostView`, so `serviceLink()` is a small
 * in-process plugin that keeps its view; pass `link.plugin` in the host's `plugins` and
 * `link.service` to the hub.
 */
import { randomUUID } from "node:crypto";
import { definePlugin, type Host, type HostView, type PluginDefinition } from "../../core/index.ts";
import { ClientSession, type SessionHub } from "./session.ts";
import { MCP_CONNECTIONS, type UpstreamServers } from "./upstream.ts";

export const SERVE_TAP = "toolhost-serve";

export interface ServeOptions {
  /** Where log lines go (stderr; never stdout). */
  log?: (line: string) => void;
  /** The mcp plugin's connections (resources and prompts pass through); without it, there are none. */
  upstream?: () => UpstreamServers | undefined;
}

/** An in-process plugin that reads the "mcp.connections" service of the host it is activated in. */
export function serviceLink(): { plugin: PluginDefinition; service: () => UpstreamServers | undefined } {
  let view: HostView | undefined;
  return {
    plugin: definePlugin({ name: "mcp-serve-link", apply: (ctx) => void (view = ctx.host) }),
    service: () => view?.service<UpstreamServers>(MCP_CONNECTIONS),
  };
}

/** Shared by every client connection of one `toolhost serve` process. */
export class McpServeHub implements SessionHub {
  readonly sessions = new Set<ClientSession>();
  readonly log: (line: string) => void;
  private readonly upstream: () => UpstreamServers | undefined;

  constructor(
    readonly host: Host,
    opts: ServeOptions = {},
  ) {
    this.log = opts.log ?? ((l) => process.stderr.write(l + "\n"));
    this.upstream = opts.upstream ?? (() => undefined);
    host.hooks.rebuildDone.tap(SERVE_TAP, () => {
      for (const s of this.sessions) s.checkVisible("pool rebuilt");
    });
    host.hooks.sessionToolsChanged.tap(SERVE_TAP, (sid) => {
      for (const s of this.sessions) if (s.sessionId === sid) s.checkVisible("session loaded tools");
    });
  }

  createSession(): ClientSession {
    const s = new ClientSession(this, `mcp-${randomUUID().slice(0, 8)}`);
    this.sessions.add(s);
    return s;
  }

  mcp(): UpstreamServers | undefined {
    return this.upstream();
  }
}
