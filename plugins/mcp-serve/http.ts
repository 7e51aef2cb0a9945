/**
 * Streamable HTTP on 127.0.0.1:port at /mcp; one session (and host session) per MCP session id.
 * A session ends — its transport closed, its server instance and host session dropped — when the
 * client DELETEs it (the SDK's terminateSession), when its transport closes, or after `idleMs` with no
 * request and nothing open (clients that vanish without DELETE).
 */
import http from "node:http";
import { randomUUID } from "node:crypto";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { errorMessage } from "../../core/index.ts";
import { jsonError, refuseRequest } from "./guard.ts";
import { namedSession } from "./session.ts";
import { StatelessRequests } from "./stateless.ts";
import type { McpServeHub } from "./hub.ts";
import type { ClientSession } from "./session.ts";

export interface HttpServeOptions {
  /**
   * Close a session after this many ms without a request and with no request or stream open
   * (a client that went away without DELETE). Default 30 minutes; 0 disables.
   */
  idleMs?: number;
  /**
   * Require `Authorization: Bearer <token>` on every request (`toolhost serve --http` takes it from the
   * environment variable TOOLHOST_SERVE_TOKEN). Without it, any local process may call the pool's tools.
   */
  token?: string;
  /**
   * Stateless serving (a fleet behind any balancer): every request gets a fresh MCP server; the toolhost
   * session is named by the client (X-Toolhost-Session, or params._meta["toolhost/session"]) or derived
   * from the Mcp-Session-Id this mode hands out at initialize, which every instance accepts. Its state
   * lives in the session store (sessions.backend "redis"). See stateless.ts.
   */
  stateless?: boolean;
  /** More Host header values to accept: the balancer's address(es) clients reach this instance through. */
  allowHosts?: string[];
}

/** The header a client names its toolhost session with (any mode); it outlives MCP sessions and instances. */
export const SESSION_HEADER = "x-toolhost-session";

export const DEFAULT_HTTP_IDLE_MS = 30 * 60_000;

type Entry = { transport: StreamableHTTPServerTransport; session: ClientSession; lastSeen: number; open: number; ended?: string };


/** `GET /metrics`: the telemetry plugin's per-instance metrics (Prometheus text), when `telemetry.metrics` is on. */
function serveMetrics(hub: McpServeHub, res: http.ServerResponse): void {
  const text = hub.host.service<{ metricsText(): string | undefined }>("telemetry")?.metricsText();
  if (text === undefined) return void res.writeHead(404, { "content-type": "text/plain" }).end("metrics are off: set telemetry.metrics to true in toolhost's config\n");
  res.writeHead(200, { "content-type": "text/plain; version=0.0.4" }).end(text);
}

/** The MCP sessions of one HTTP server, by MCP session id. */
class HttpSessions {
  readonly entries = new Map<string, Entry>();

  constructor(private readonly hub: McpServeHub) {}

  /** Close one session (once), recording why. */
  end(e: Entry, why: string): Promise<void> {
    if (e.ended) return Promise.resolve();
    e.ended = why;
    return e.transport.close().catch((err) => this.hub.log(`[serve http] closing session ${e.transport.sessionId}: ${errorMessage(err)}`));
  }

  /**
   * A new session for an initialize request; it is registered once the SDK assigns its id. Its host
   * session is the one the client names (X-Toolhost-Session: a re-initialize after a failover finds its
   * state again in the store), else `mcp-<its MCP session id>`.
   */
  async open(req: http.IncomingMessage): Promise<Entry> {
    const { hub, entries } = this;
    const mcpId = randomUUID();
    const session = hub.createSession(namedSession(req.headers[SESSION_HEADER], "the X-Toolhost-Session header") ?? `mcp-${mcpId}`);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => mcpId,
      onsessioninitialized: (id) => {
        entries.set(id, e);
        hub.log(`[serve http] session ${id} opened (host session ${session.sessionId})`);
      },
      onsessionclosed: () => void (e.ended ??= "the client ended it (DELETE)"),
    });
    const e: Entry = { transport, session, lastSeen: Date.now(), open: 0 };
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id && entries.get(id) === e) {
        entries.delete(id);
        hub.log(`[serve http] session ${id} closed: ${e.ended ?? "transport closed"}`);
      }
      session.close();
    };
    await session.connect(transport);
    return e;
  }

  /** Close sessions with nothing open and no request for `idleMs`. */
  sweep(idleMs: number): void {
    const now = Date.now();
    for (const e of this.entries.values()) if (e.open === 0 && now - e.lastSeen >= idleMs) void this.end(e, `idle for ${Math.round((now - e.lastSeen) / 1000)} s (no request, nothing open)`);
  }

  /** One HTTP request on /mcp: find or open its session, then hand it to that session's transport. */
  async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const sid = req.headers["mcp-session-id"];
    let e = typeof sid === "string" ? this.entries.get(sid) : undefined;
    if (!e) {
      if (req.method !== "POST" || sid) return jsonError(res, sid ? 404 : 400, sid ? "unknown MCP session id (it ended or expired: initialize a new session)" : "no MCP session: send initialize first");
      try {
        e = await this.open(req);
      } catch (err) {
        return jsonError(res, 400, errorMessage(err));
      }
    }
    const entry = e;
    entry.lastSeen = Date.now();
    entry.open++;
    res.once("close", () => {
      entry.open--;
      entry.lastSeen = Date.now();
    });
    await entry.transport.handleRequest(req, res);
  }
}

/** Serve Streamable HTTP (see the file comment). Resolves once listening. */
export async function serveHttp(
  hub: McpServeHub,
  port: number,
  hostname = "127.0.0.1",
  opts: HttpServeOptions = {},
): Promise<{ server: http.Server; url: string; sessionCount(): number; close(): Promise<void> }> {
  const sessions = new HttpSessions(hub);
  const stateless = opts.stateless ? new StatelessRequests(hub) : undefined;
  const idleMs = opts.idleMs ?? DEFAULT_HTTP_IDLE_MS;
  const server = http.createServer((req, res) => {
    void (async () => {
      res.setHeader("x-toolhost-instance", hub.instance);
      const refused = refuseRequest(req.headers, (server.address() as { port: number }).port, opts.token, opts.allowHosts);
      if (refused) {
        hub.log(`[serve http] ${req.method} refused: ${refused.why}`);
        return jsonError(res, refused.status, refused.why);
      }
      const url = new URL(req.url ?? "/", `http://${hostname}`);
      if (url.pathname === "/metrics" && req.method === "GET") return serveMetrics(hub, res);
      if (url.pathname === "/health" && req.method === "GET") return void res.writeHead(200, { "content-type": "text/plain" }).end(`ok ${hub.instance}\n`);
      if (url.pathname !== "/mcp") return void res.writeHead(404, { "content-type": "text/plain" }).end("toolhost serves MCP at /mcp\n");
      await (stateless ?? sessions).handle(req, res);
    })().catch((err) => {
      hub.log(`[serve http] ${errorMessage(err)}`);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  const sweeper = idleMs > 0 ? setInterval(() => sessions.sweep(idleMs), Math.max(50, Math.min(idleMs / 4, 60_000))) : undefined;
  sweeper?.unref();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, hostname, () => resolve());
  });
  const url = `http://${hostname}:${(server.address() as { port: number }).port}/mcp`;
  hub.log(
    `toolhost serve: Streamable HTTP on ${url} (instance ${hub.instance}${stateless ? ", stateless" : ""})${idleMs > 0 ? ` (idle sessions close after ${idleMs / 1000} s)` : ""}; ${opts.token !== undefined ? "bearer token required" : "no token: any local process can call the tools (set TOOLHOST_SERVE_TOKEN to require one)"}`,
  );
  return {
    server,
    url,
    sessionCount: () => sessions.entries.size,
    async close() {
      if (sweeper) clearInterval(sweeper);
      await Promise.all([...sessions.entries.values()].map((e) => sessions.end(e, "the server is shutting down")));
      await new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections?.();
    },
  };
}
