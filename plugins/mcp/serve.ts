/**
 * `toolhost serve`: the model-visible pool as an MCP server, on the SDK's low-level `Server` (raw
 * JSON Schemas, no zod). One host session per client connection: the client sees the eager tools plus
 * ToolSearch, and a deferred tool once ToolSearch has loaded it into that session. Every tools/call
 * runs through `host.execute(…, {source: "mcp", sessionId})` — the one execution path with the same
 * rules and hooks. An `ask` becomes an MCP elicitation when the client declared that capability,
 * else a denial that says why. Exactly one notifications/tools/list_changed is sent per change of
 * what a client sees (its visible-list fingerprint is compared after every rebuild and every
 * session load). Upstream servers' resources and prompts pass through read-only, namespaced.
 */
import http from "node:http";
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  type JSONRPCNotification,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { errorMessage, flag, stableStringify, type AskAnswer, type AskRequest, type Host, type Tool, type ToolResult } from "../../core/index.ts";
import { mcpManagerOf, type McpManager } from "./index.ts";
import { assignNames } from "./names.ts";
import { LightSignal, type McpConnection } from "./connection.ts";

export const SERVE_TAP = "toolhost-serve";
const VERSION = "0.1.0";

type McpTool = { name: string; description: string; inputSchema: Record<string, unknown>; outputSchema?: Record<string, unknown>; annotations?: Record<string, unknown> };

export interface ServeOptions {
  /** Where log lines go (stderr; never stdout). */
  log?: (line: string) => void;
}

/** Shared by every client connection of one `toolhost serve` process. */
export class McpServeHub {
  readonly sessions = new Set<ClientSession>();
  readonly log: (line: string) => void;

  constructor(
    readonly host: Host,
    opts: ServeOptions = {},
  ) {
    this.log = opts.log ?? ((l) => process.stderr.write(l + "\n"));
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

  mcp(): McpManager | undefined {
    return mcpManagerOf(this.host.options);
  }
}

/** One client connection = one Server instance = one host session. */
export class ClientSession {
  readonly server: Server;
  /** Fingerprint of the tool list the client was last told about (or listed). */
  private lastFp?: string;
  private cache?: { key: string; tools: McpTool[]; fp: string };
  /** Counts sent list_changed notifications (tests, diagnostics). */
  listChangedSent = 0;
  private closed = false;
  /** Calls in flight, by JSON-RPC request id: their cancellation signals. */
  private readonly inflight = new Map<string | number, LightSignal>();

  constructor(
    private readonly hub: McpServeHub,
    readonly sessionId: string,
  ) {
    const host = hub.host;
    this.server = new Server(
      { name: "toolhost", version: VERSION },
      {
        capabilities: { tools: { listChanged: true }, resources: {}, prompts: {} },
        instructions:
          "toolhost serves its tool pool with its permission rules and hooks enforced. Some tools are deferred: search them with ToolSearch; a tool it finds becomes callable and appears in tools/list.",
      },
    );
    const server = this.server;
    server.onerror = (e) => hub.log(`[serve ${sessionId}] ${errorMessage(e)}`);

    server.setRequestHandler(ListToolsRequestSchema, async () => {
      const v = this.visible();
      this.lastFp = v.fp;
      return { tools: v.tools };
    });

    // Client cancellations reach calls through a LightSignal per request (see watchCancellations);
    // without that hook, through the SDK's own per-request AbortSignal.
    const cheapCancel = this.watchCancellations();
    server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
      const { name, arguments: args } = req.params;
      let signal: AbortSignal = extra.signal;
      if (cheapCancel) {
        const light = new LightSignal();
        if (extra.signal.aborted) light.abort(extra.signal.reason);
        this.inflight.set(extra.requestId, light);
        signal = light.asSignal;
      }
      try {
        const outcome = await host.execute(name, args ?? {}, { source: "mcp", sessionId, signal, onAsk: (r) => this.ask(r, extra.requestId) });
        return toCallResult(outcome.result);
      } finally {
        if (cheapCancel) this.inflight.delete(extra.requestId);
      }
    });

    server.setRequestHandler(ListResourcesRequestSchema, async () => {
      const resources: Record<string, unknown>[] = [];
      await Promise.all(
        this.upstream().map(async (c) => {
          try {
            for (const r of await c.listResources()) {
              if (typeof r.uri !== "string") continue;
              resources.push({ ...r, uri: resourceUri(c.spec.segment, r.uri), name: `${c.spec.segment}:${String(r.name ?? r.uri)}`, title: r.title ?? r.name });
            }
          } catch (e) {
            hub.log(`[serve] resources/list of ${c.spec.label} failed: ${errorMessage(e)}`);
          }
        }),
      );
      resources.sort((a, b) => (String(a.uri) < String(b.uri) ? -1 : 1));
      return { resources };
    });

    server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
      const parsed = parseResourceUri(req.params.uri);
      const conn = parsed && hub.mcp()?.bySegment(parsed.segment);
      if (!parsed || !conn) throw new McpError(ErrorCode.InvalidParams, `Unknown resource ${req.params.uri}: toolhost serves upstream resources as mcp://<server>/<percent-encoded original URI>`);
      const res = await conn.readResource(parsed.uri);
      const contents = Array.isArray(res.contents) ? (res.contents as Record<string, unknown>[]).map((c) => ({ ...c, uri: typeof c.uri === "string" ? resourceUri(parsed.segment, c.uri) : req.params.uri })) : [];
      return { ...res, contents };
    });

    server.setRequestHandler(ListPromptsRequestSchema, async () => {
      const { prompts } = await this.promptTable();
      return { prompts: prompts.map((p) => ({ ...p.raw, name: p.name })) };
    });

    server.setRequestHandler(GetPromptRequestSchema, async (req) => {
      const { prompts } = await this.promptTable();
      const p = prompts.find((x) => x.name === req.params.name);
      if (!p) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt ${req.params.name}`);
      return (await p.conn.getPrompt(String(p.raw.name), req.params.arguments as Record<string, string> | undefined)) as { messages: [] };
    });

    server.onclose = () => this.close();
  }

  /**
   * Route notifications/cancelled to the in-flight call's LightSignal, then to the SDK's own handling
   * (which aborts its per-request controller, so no response is sent for a cancelled request).
   * Listening on the SDK's per-request AbortSignal instead costs an EventTarget listener added and
   * removed per call (several microseconds in Node; bench/mcp.ts). This wraps the SDK's registered
   * handler, which the SDK keeps in a (TypeScript-)private map: when that is not there (another SDK
   * version), it returns false and calls keep listening on the SDK's signal.
   */
  private watchCancellations(): boolean {
    const handlers = (this.server as unknown as { _notificationHandlers?: unknown })._notificationHandlers;
    if (!(handlers instanceof Map)) return false;
    const sdk = handlers.get("notifications/cancelled") as ((n: JSONRPCNotification) => Promise<void>) | undefined;
    if (typeof sdk !== "function") return false;
    handlers.set("notifications/cancelled", (n: JSONRPCNotification) => {
      const p = n.params as { requestId?: string | number; reason?: unknown } | undefined;
      if (p?.requestId !== undefined) this.inflight.get(p.requestId)?.abort(p.reason === undefined ? "cancelled by the MCP client" : String(p.reason));
      return sdk(n);
    });
    return true;
  }

  connect(transport: Transport): Promise<void> {
    // What the client sees from the start (it has not listed yet, but this is what it would get).
    this.lastFp = this.visible().fp;
    return this.server.connect(transport);
  }

  private upstream(): McpConnection[] {
    return (this.hub.mcp()?.connections() ?? []).filter((c) => c.status === "connected");
  }

  private async promptTable(): Promise<{ prompts: Array<{ name: string; raw: Record<string, unknown>; conn: McpConnection }> }> {
    const raw: Array<{ raw: Record<string, unknown>; conn: McpConnection }> = [];
    await Promise.all(
      this.upstream().map(async (c) => {
        try {
          for (const p of await c.listPrompts()) if (typeof p.name === "string") raw.push({ raw: p, conn: c });
        } catch (e) {
          this.hub.log(`[serve] prompts/list of ${c.spec.label} failed: ${errorMessage(e)}`);
        }
      }),
    );
    const names = assignNames(raw.map((r) => ({ segment: r.conn.spec.segment, tool: String(r.raw.name) })));
    const prompts = raw.map((r, i) => ({ ...r, name: names[i]!.name }));
    prompts.sort((a, b) => (a.name < b.name ? -1 : 1));
    return { prompts };
  }

  /** The client's visible tool list, cached per (generation, session loads). */
  visible(): { tools: McpTool[]; fp: string } {
    const host = this.hub.host;
    const loaded = host.session(this.sessionId).loaded.length;
    const key = `${host.pool.generation}:${loaded}`;
    if (this.cache?.key === key) return this.cache;
    const tools = host.visibleTools(this.sessionId).map(toMcpTool);
    const fp = createHash("sha256").update(stableStringify(tools)).digest("hex");
    this.cache = { key, tools, fp };
    return this.cache;
  }

  /** Send exactly one list_changed when what this client sees differs from what it was last told. */
  checkVisible(why: string): void {
    if (this.closed) return;
    let fp: string;
    try {
      fp = this.visible().fp;
    } catch {
      return;
    }
    if (fp === this.lastFp) return;
    this.lastFp = fp;
    this.listChangedSent++;
    this.server.sendToolListChanged().catch((e) => this.hub.log(`[serve ${this.sessionId}] list_changed failed: ${errorMessage(e)}`));
    this.hub.log(`[serve ${this.sessionId}] tools/list_changed (${why})`);
  }

  private async ask(req: AskRequest, requestId: string | number): Promise<AskAnswer> {
    const caps = this.server.getClientCapabilities();
    if (!caps?.elicitation?.form) {
      return {
        behavior: "deny",
        message: `it needs approval (${req.decision.reason}) and this MCP client cannot be asked: it did not declare the elicitation capability. Allow it with a rule, e.g. permissions.allow: ["${req.tool}"] in toolhost's config, or connect with a client that supports elicitation`,
      };
    }
    const input = JSON.stringify(req.input);
    const r = await this.server.elicitInput(
      {
        message: `Allow ${req.tool}? ${req.decision.reason}\nInput: ${input.length > 800 ? input.slice(0, 800) + "…" : input}`,
        requestedSchema: {
          type: "object",
          properties: { decision: { type: "string", title: "Decision", enum: ["allow", "allow always", "deny"] } },
          required: ["decision"],
        },
      },
      { relatedRequestId: requestId },
    );
    if (r.action !== "accept") return { behavior: "deny", message: `the MCP client ${r.action === "decline" ? "declined" : "cancelled"} the approval request` };
    const d = (r.content as Record<string, unknown> | undefined)?.decision;
    if (d === "allow always") return "allowAlways";
    if (d === "allow") return "allow";
    return { behavior: "deny", message: "denied by the user (MCP elicitation)" };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    // The connection is gone: interrupt what is still running for it (the SDK aborts its own signals too).
    for (const l of this.inflight.values()) l.abort("the MCP client disconnected");
    this.inflight.clear();
    // Its loaded deferred tools and scratch state go with it (one host session per client connection).
    this.hub.host.endSession(this.sessionId);
    this.hub.sessions.delete(this);
  }
}

export function toMcpTool(t: Tool): McpTool {
  const out: McpTool = { name: t.name, description: t.description, inputSchema: t.inputSchema as Record<string, unknown> };
  if (t.outputSchema) out.outputSchema = t.outputSchema as Record<string, unknown>;
  const readOnly = flag(t.isReadOnly, {} as never, false);
  const destructive = flag(t.isDestructive, {} as never, false);
  const ann: Record<string, unknown> = { readOnlyHint: readOnly };
  if (!readOnly) ann.destructiveHint = destructive;
  if (t.userFacingName) ann.title = t.userFacingName;
  out.annotations = ann;
  return out;
}

export function toCallResult(r: ToolResult): Record<string, unknown> {
  const out: Record<string, unknown> = { content: r.content };
  if (r.isError) out.isError = true;
  if (r.structuredContent) out.structuredContent = r.structuredContent;
  return out;
}

/** Upstream resource URIs are namespaced as mcp://<server segment>/<percent-encoded original URI>. */
export function resourceUri(segment: string, uri: string): string {
  return `mcp://${segment}/${encodeURIComponent(uri)}`;
}

export function parseResourceUri(uri: string): { segment: string; uri: string } | undefined {
  const m = /^mcp:\/\/([A-Za-z0-9_-]+)\/(.*)$/.exec(uri);
  if (!m) return undefined;
  try {
    return { segment: m[1]!, uri: decodeURIComponent(m[2]!) };
  } catch {
    return undefined;
  }
}

// --- transports ------------------------------------------------------------------------------------

/** Serve one client over this process's stdin/stdout. Resolves when the client goes away. */
export async function serveStdio(hub: McpServeHub): Promise<void> {
  const session = hub.createSession();
  const transport = new StdioServerTransport();
  const done = new Promise<void>((resolve) => {
    const end = () => resolve();
    transport.onclose = end;
    process.stdin.once("end", end);
    process.stdin.once("close", end);
  });
  await session.connect(transport);
  hub.log(`toolhost serve: stdio, session ${session.sessionId}, ${hub.host.pool.tools.length} tools visible, ${hub.host.pool.deferred.length} deferred`);
  await done;
  session.close();
  await transport.close().catch(() => {});
}

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
}

/**
 * DNS-rebinding and cross-site guard for a loopback server (what the MCP spec asks of local HTTP
 * servers): the Host header must name the loopback address we listen on, and a browser's Origin, when
 * present, must be that same local origin. Returns why a request is refused, or undefined.
 */
export function refuseRequest(headers: http.IncomingHttpHeaders, port: number, token?: string): { status: number; why: string } | undefined {
  const local = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
  const host = String(headers.host ?? "").toLowerCase();
  if (!local.includes(host)) return { status: 403, why: `Host "${host}" is not this loopback server (${local[0]}): refused (DNS-rebinding guard)` };
  const origin = headers.origin;
  if (origin !== undefined && !local.some((h) => origin.toLowerCase() === `http://${h}`)) return { status: 403, why: `Origin "${origin}" may not call this server: refused (cross-site guard)` };
  if (token !== undefined) {
    const auth = String(headers.authorization ?? "");
    const given = /^Bearer\s+(.+)$/i.exec(auth)?.[1] ?? "";
    const a = Buffer.from(given);
    const b = Buffer.from(token);
    if (a.length !== b.length || !timingSafeEqual(a, b)) return { status: 401, why: "missing or wrong bearer token (Authorization: Bearer $TOOLHOST_SERVE_TOKEN)" };
  }
  return undefined;
}

export const DEFAULT_HTTP_IDLE_MS = 30 * 60_000;

/**
 * Serve Streamable HTTP on 127.0.0.1:port at /mcp; one session (and host session) per MCP session id.
 * A session ends — its transport closed, its server instance and host session dropped — when the
 * client DELETEs it (the SDK's terminateSession), when its transport closes, or after `idleMs` with no
 * request and nothing open (clients that vanish without DELETE).
 */
export async function serveHttp(
  hub: McpServeHub,
  port: number,
  hostname = "127.0.0.1",
  opts: HttpServeOptions = {},
): Promise<{ server: http.Server; url: string; sessionCount(): number; close(): Promise<void> }> {
  type Entry = { transport: StreamableHTTPServerTransport; session: ClientSession; lastSeen: number; open: number; ended?: string };
  const entries = new Map<string, Entry>();
  const idleMs = opts.idleMs ?? DEFAULT_HTTP_IDLE_MS;
  /** Close one session (once) and say why on stderr. */
  const end = (e: Entry, why: string): Promise<void> => {
    if (e.ended) return Promise.resolve();
    e.ended = why;
    return e.transport.close().catch((err) => hub.log(`[serve http] closing session ${e.transport.sessionId}: ${errorMessage(err)}`));
  };
  const server = http.createServer((req, res) => {
    void (async () => {
      const refused = refuseRequest(req.headers, (server.address() as { port: number }).port, opts.token);
      if (refused) {
        hub.log(`[serve http] ${req.method} refused: ${refused.why}`);
        res.writeHead(refused.status, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: refused.why }, id: null }));
        return;
      }
      const url = new URL(req.url ?? "/", `http://${hostname}`);
      if (url.pathname !== "/mcp") {
        res.writeHead(404, { "content-type": "text/plain" }).end("toolhost serves MCP at /mcp\n");
        return;
      }
      const sid = req.headers["mcp-session-id"];
      let entry = typeof sid === "string" ? entries.get(sid) : undefined;
      if (!entry) {
        if (req.method !== "POST" || sid) {
          res.writeHead(sid ? 404 : 400, { "content-type": "application/json" }).end(
            JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: sid ? "unknown MCP session id (it ended or expired: initialize a new session)" : "no MCP session: send initialize first" }, id: null }),
          );
          return;
        }
        const session = hub.createSession();
        const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
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
        entry = e;
      }
      const e = entry;
      e.lastSeen = Date.now();
      e.open++;
      res.once("close", () => {
        e.open--;
        e.lastSeen = Date.now();
      });
      await e.transport.handleRequest(req, res);
    })().catch((err) => {
      hub.log(`[serve http] ${errorMessage(err)}`);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  const sweeper =
    idleMs > 0
      ? setInterval(
          () => {
            const now = Date.now();
            for (const e of entries.values()) if (e.open === 0 && now - e.lastSeen >= idleMs) void end(e, `idle for ${Math.round((now - e.lastSeen) / 1000)} s (no request, nothing open)`);
          },
          Math.max(50, Math.min(idleMs / 4, 60_000)),
        )
      : undefined;
  sweeper?.unref();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, hostname, () => resolve());
  });
  const addr = server.address() as { port: number };
  const url = `http://${hostname}:${addr.port}/mcp`;
  hub.log(
    `toolhost serve: Streamable HTTP on ${url}${idleMs > 0 ? ` (idle sessions close after ${idleMs / 1000} s)` : ""}; ${opts.token !== undefined ? "bearer token required" : "no token: any local process can call the tools (set TOOLHOST_SERVE_TOKEN to require one)"}`,
  );
  return {
    server,
    url,
    sessionCount: () => entries.size,
    async close() {
      if (sweeper) clearInterval(sweeper);
      await Promise.all([...entries.values()].map((e) => end(e, "the server is shutting down")));
      await new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections?.();
    },
  };
}
