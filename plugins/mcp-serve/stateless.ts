/**
 * Stateless Streamable HTTP (`serve --http PORT --stateless`): any instance of a fleet serves any
 * request. Each POST gets a fresh SDK server and transport (the SDK's stateless mode); nothing of a
 * client is kept between requests except what the session store holds (sessions.backend "redis"), so
 * the next request may land on another instance. The toolhost session of a request, first found wins:
 *   1. the X-Toolhost-Session header;
 *   2. `params._meta["toolhost/session"]` of the request (clients that cannot set headers);
 *   3. `mcp-<Mcp-Session-Id>`: initialize hands out an id (as a stateful server would) and every
 *      instance accepts it, so ordinary MCP clients keep one session across instances.
 * The host session is dropped once no request of it is in flight: the next request restores it from
 * the store, wherever it lands. Asks cannot become elicitations here (a fresh server does not know the
 * client's capabilities): they are answered by rules and stored approvals.
 */
import type http from "node:http";
import { randomUUID } from "node:crypto";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { errorMessage } from "../../core/index.ts";
import { jsonError } from "./guard.ts";
import type { McpServeHub } from "./hub.ts";
import { META_SESSION, namedSession } from "./session.ts";

const MAX_BODY = 8 * 1024 * 1024;

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const parts: Buffer[] = [];
    req.on("data", (d: Buffer) => {
      size += d.length;
      if (size > MAX_BODY) {
        reject(new Error(`request body over ${MAX_BODY} bytes`));
        req.destroy();
      } else parts.push(d);
    });
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.on("error", reject);
  });
}

type Message = { method?: string; params?: { _meta?: Record<string, unknown> } };

export class StatelessRequests {
  /** Requests in flight per host session: its in-memory copy is dropped when the last one ends. */
  private readonly inflight = new Map<string, number>();

  constructor(private readonly hub: McpServeHub) {}

  /** The toolhost session of a request (see the file comment); undefined: none named. */
  private sessionOf(req: http.IncomingMessage, msgs: Message[], mcpId: string | undefined): string | undefined {
    const named = namedSession(req.headers["x-toolhost-session"], "the X-Toolhost-Session header");
    if (named) return named;
    for (const m of msgs) {
      const v = namedSession(m.params?._meta?.[META_SESSION], `params._meta["${META_SESSION}"]`);
      if (v) return v;
    }
    return mcpId ? namedSession(`mcp-${mcpId}`, "the Mcp-Session-Id header") : undefined;
  }

  async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (req.method === "DELETE") return void res.writeHead(200).end(); // nothing is kept per MCP session here
    if (req.method !== "POST") return jsonError(res, 405, "stateless toolhost serve: only POST (no server-sent event stream: notifications need a stateful serve)");
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch (e) {
      return jsonError(res, 400, `the request is not JSON: ${errorMessage(e)}`);
    }
    const msgs = (Array.isArray(body) ? body : [body]) as Message[];
    let mcpId = typeof req.headers["mcp-session-id"] === "string" ? req.headers["mcp-session-id"] : undefined;
    if (!mcpId && msgs.some((m) => m?.method === "initialize")) {
      mcpId = randomUUID();
      res.setHeader("mcp-session-id", mcpId);
    }
    let sid: string | undefined;
    try {
      sid = this.sessionOf(req, msgs, mcpId);
    } catch (e) {
      return jsonError(res, 400, errorMessage(e));
    }
    if (!sid) return jsonError(res, 400, 'stateless toolhost serve needs a session: send initialize first (Mcp-Session-Id), an X-Toolhost-Session header, or params._meta["toolhost/session"]');
    const id = sid;
    this.inflight.set(id, (this.inflight.get(id) ?? 0) + 1);
    const session = this.hub.createSession(id, true);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await session.connect(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      res.once("close", () => void this.done(id, transport));
      if (res.writableEnded || res.destroyed) void this.done(id, transport);
    }
  }

  private ended = new WeakSet<object>();
  private async done(id: string, transport: StreamableHTTPServerTransport): Promise<void> {
    if (this.ended.has(transport)) return;
    this.ended.add(transport);
    await transport.close().catch(() => {});
    const n = (this.inflight.get(id) ?? 1) - 1;
    if (n > 0) return void this.inflight.set(id, n);
    this.inflight.delete(id);
    this.hub.host.endSession(id);
  }
}
