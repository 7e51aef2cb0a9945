/**
 * The state one `toolhost serve` process shares between its client connections, and how it reaches
 * the mcp plugin's connections: through the host's service registry (`host.service("mcp.connections")`).
 */
import { randomUUID } from "node:crypto";
import os from "node:os";
import type { Host } from "../../core/index.ts";
import { ClientSession, type SessionHub } from "./session.ts";
import { MCP_CONNECTIONS, type UpstreamServers } from "./upstream.ts";

export const SERVE_TAP = "toolhost-serve";

export interface ServeOptions {
  /** Where log lines go (stderr; never stdout). */
  log?: (line: string) => void;
  /** The mcp plugin's connections (resources and prompts pass through); default: the host's "mcp.connections" service. */
  upstream?: () => UpstreamServers | undefined;
}

/** Shared by every client connection of one `toolhost serve` process. */
export class McpServeHub implements SessionHub {
  readonly sessions = new Set<ClientSession>();
  readonly log: (line: string) => void;
  private readonly upstream: () => UpstreamServers | undefined;

  /** This process's name in a fleet (X-Toolhost-Instance, the task registry): sessions.instanceId, TOOLHOST_INSTANCE_ID or <hostname>:<pid>. */
  readonly instance: string;

  constructor(
    readonly host: Host,
    opts: ServeOptions = {},
  ) {
    const cfg = (host.hostConfig as { sessions?: { instanceId?: string } }).sessions;
    this.instance = cfg?.instanceId ?? process.env.TOOLHOST_INSTANCE_ID ?? `${os.hostname()}:${process.pid}`;
    this.log = opts.log ?? ((l) => process.stderr.write(l + "\n"));
    this.upstream = opts.upstream ?? (() => host.service<UpstreamServers>(MCP_CONNECTIONS));
    host.hooks.rebuildDone.tap(SERVE_TAP, () => {
      for (const s of this.sessions) s.checkVisible("pool rebuilt");
    });
    host.hooks.sessionToolsChanged.tap(SERVE_TAP, (sid) => {
      for (const s of this.sessions) if (s.sessionId === sid) s.checkVisible("session loaded tools");
    });
  }

  /**
   * A client connection on host session `id` (default: a fresh `mcp-…` id); `keep`: the host session outlives
   * it (stateless serving); `resumed`: an MCP session another instance opened, taken over (SessionStart "resume").
   */
  createSession(id = `mcp-${randomUUID().slice(0, 8)}`, keep = false, resumed = false): ClientSession {
    const s = new ClientSession(this, id, keep, resumed);
    this.sessions.add(s);
    return s;
  }

  mcp(): UpstreamServers | undefined {
    return this.upstream();
  }
}
