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
import { findHandshake, recordHandshake, replayHandshake } from "./adopt.ts";
import type { Json } from "../../lib/session-store/types.ts";
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

/** name: its toolhost session; recorded: the write of its handshake (adopt.ts), once initialized. */
type Entry = { transport: StreamableHTTPServerTransport; session: ClientSession; name: string; lastSeen: number; open: number; ended?: string; recorded?: Promise<void> };


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

  /** Close one session (once), recording why; `expired`: no other instance takes it over either, unless it serves it now. */
  async end(e: Entry, why: string, expired = false): Promise<void> {
    if (e.ended) return;
    e.ended = why;
    if (expired) await this.forget(e, this.hub.instance);
    return e.transport.close().catch((err) => this.hub.log(`[serve http] closing session ${e.transport.sessionId}: ${errorMessage(err)}`));
  }

  /** Drop a session's recorded handshake (DELETEd; expired while `owner` served it): a later request for it is a 404 on every instance. */
  async forget(e: Entry, owner?: string): Promise<void> {
    const id = e.transport.sessionId;
    await e.recorded;
    if (id) await recordHandshake(this.hub.host, this.hub.log, e.name, id, undefined, owner);
  }

  /**
   * A new session for an initialize request; it is registered once the SDK assigns its id. Its host
   * session is the one the client names (X-Toolhost-Session: a re-initialize after a failover finds its
   * state again in the store), else `mcp-<its MCP session id>`. Once initialized, its handshake is recorded
   * in the session store, so that another instance can take it over (adopt.ts). `resume`: that takeover.
   */
  async open(req: http.IncomingMessage, resume?: { mcpId: string; name: string }): Promise<Entry> {
    const { hub, entries } = this;
    const mcpId = resume?.mcpId ?? randomUUID();
    const name = resume?.name ?? namedSession(req.headers[SESSION_HEADER], "the X-Toolhost-Session header") ?? `mcp-${mcpId}`;
    const session = hub.createSession(name, false, !!resume);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => mcpId,
      onsessioninitialized: (id) => {
        entries.set(id, e);
        hub.log(`[serve http] session ${id} ${resume ? "taken over from the session store" : "opened"} (host session ${session.sessionId})`);
      },
      onsessionclosed: () => ((e.ended ??= "the client ended it (DELETE)"), this.forget(e)),
    });
    const e: Entry = { transport, session, name, lastSeen: Date.now(), open: 0 };
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id && entries.get(id) === e) {
        entries.delete(id);
        hub.log(`[serve http] session ${id} closed: ${e.ended ?? "transport closed"}`);
      }
      session.close();
    };
    if (!resume) {
      const srv = session.server;
      const prev = srv.oninitialized;
      srv.oninitialized = () => {
        prev?.();
        const hs = { capabilities: (srv.getClientCapabilities() ?? {}) as Json, clientInfo: (srv.getClientVersion() ?? null) as Json, instance: hub.instance, at: Date.now() };
        e.recorded = recordHandshake(hub.host, hub.log, name, mcpId, hs);
      };
    }
    await session.connect(transport);
    return e;
  }

  /**
   * A request for an MCP session this instance does not know: taken over when the session store has its
   * handshake (another instance opened it; adopt.ts), else undefined (a 404). One takeover per id at a time.
   */
  private adopt(req: http.IncomingMessage, mcpId: string): Promise<Entry | undefined> {
    let p = this.adopting.get(mcpId);
    if (!p) {
      p = (async () => {
        const name = namedSession(req.headers[SESSION_HEADER], "the X-Toolhost-Session header") ?? `mcp-${mcpId}`;
        const hs = await findHandshake(this.hub.host, name, mcpId).catch(() => undefined);
        if (!hs) return undefined;
        const e = await this.open(req, { mcpId, name });
        const pv = req.headers["mcp-protocol-version"];
        if (await replayHandshake(e.transport, mcpId, hs, typeof pv === "string" ? pv : undefined)) {
          e.recorded = recordHandshake(this.hub.host, this.hub.log, name, mcpId, { ...hs, instance: this.hub.instance, at: Date.now() });
          return e;
        }
        await this.end(e, "it could not be taken over");
        return undefined;
      })().finally(() => this.adopting.delete(mcpId));
      this.adopting.set(mcpId, p);
    }
    return p;
  }

  private readonly adopting = new Map<string, Promise<Entry | undefined>>();

  /** Close sessions with nothing open and no request for `idleMs`. */
  sweep(idleMs: number): void {
    const now = Date.now();
    for (const e of this.entries.values()) if (e.open === 0 && now - e.lastSeen >= idleMs) void this.end(e, `idle for ${Math.round((now - e.lastSeen) / 1000)} s (no request, nothing open)`, true);
  }

  /** One HTTP request on /mcp: find or open its session, then hand it to that session's transport. */
  async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const sid = req.headers["mcp-session-id"];
    let e = typeof sid === "string" ? this.entries.get(sid) : undefined;
    if (!e && typeof sid === "string") {
      try {
        e = await this.adopt(req, sid);
      } catch (err) {
        return jsonError(res, 400, errorMessage(err));
      }
    }
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
  // Idle keep-alive connections outlive a balancer's (HAProxy, nginx, cloud LBs: 60 s at most by default): an
  // instance that closes one just as the balancer reuses it makes that request fail or be retried elsewhere.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
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
