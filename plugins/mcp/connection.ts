/**
 * One MCP server connection (stdio, Streamable HTTP, or SSE for old servers), long-lived across pool
 * generations. It lists tools leniently (a tool without `type` in its schema must not lose the whole
 * server), keeps the server's last stderr lines for error messages, follows
 * `notifications/tools/list_changed`, and reconnects with backoff when the server dies; every change
 * it sees goes to the host's one rebuild path through `onChange`.
 *
 * A server that failed — at its first start, or after RECONNECT.attempts reconnects (its tools are then
 * removed) — is retried in the background for as long as the connection exists (it is closed when the
 * server is unconfigured or the host closes), with exponential backoff capped at RECONNECT.maxMs. Its
 * return is one `onChange` (one rebuild, one list_changed); failed retries change nothing.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { errorMessage, type Logger, type ToolCallContext, type ToolResult } from "../../core/index.ts";
import type { ServerSpec } from "./config.ts";
import { HeadersHelperError, runHeadersHelper } from "./headers-helper.ts";
import { LightSignal } from "../../lib/light-signal.ts";
import { err, listAll, toToolResult, type Lenient } from "./wire.ts";
import { loadSdk, sdkLoaded } from "./sdk.ts";
import { StderrTail } from "./stderr.ts";
import { stdioTransport, type StdioTransport } from "./stdio.ts";
import { backoffMs, maxBackoffMs, RECONNECT, Retrier } from "./retry.ts";

export type ConnStatus = "pending" | "connected" | "reconnecting" | "failed" | "closed";

/** A tool as the server listed it (nothing validated beyond `name`). */
export interface RawTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
  [k: string]: unknown;
}

export interface ConnEvents {
  /** Something that changes the pool happened (reconnected, tool list changed, gave up). */
  onChange(reason: string): void;
  log: Logger;
}

/** No explicit call timeout: effectively unbounded (Claude Code's default is ~28 h). */
const NO_TIMEOUT = 28 * 3600_000;
export { RECONNECT } from "./retry.ts";

export class McpConnection {
  status: ConnStatus = "pending";
  error?: string;
  /** JSON path of the config field at fault when the last attempt failed because of it (headersHelper). */
  errorPath?: string;
  tools: RawTool[] = [];
  /** Bumped whenever `tools` changes. */
  toolsVersion = 0;
  serverName?: string;
  instructions?: string;
  /** Process id of a stdio server (tests check it survives rebuilds). */
  pid?: number;
  /** Set by the collector when it stopped waiting; a late connect then invalidates the pool. */
  gaveUpWaiting = false;
  startedAt = 0;
  /** Transport actually used (http may fall back to sse). */
  transportUsed?: string;
  private client?: Client;
  /** The client of a connect() in progress (closed by close() so shutdown never waits for a slow start). */
  private connecting?: Client;
  private readonly stderr = new StderrTail();
  private closed = false;
  private firstAttempt?: Promise<void>;
  private reconnecting?: Promise<void>;
  private reconnectTimer?: NodeJS.Timeout;
  /** Background retries while the server is failed (retry.ts). */
  private readonly retrier = new Retrier(
    (n) => this.retryInBackground(n),
    () => !this.closed && this.status === "failed",
  );
  private resourceCache?: Lenient[];
  private promptCache?: Lenient[];

  constructor(
    public spec: ServerSpec,
    private readonly cwd: string,
    private readonly events: ConnEvents,
  ) {}

  /** Start the first connection attempt (idempotent); resolves when it settles, never rejects. */
  start(): Promise<void> {
    if (!this.firstAttempt) {
      this.startedAt = Date.now();
      this.firstAttempt = this.connect().then(
        () => {
          this.retrier.reset();
          if (this.gaveUpWaiting) this.events.onChange(`mcp: ${this.spec.label} connected`);
        },
        (e) => {
          if (this.closed) return;
          this.status = "failed";
          this.error = errorMessage(e);
          if (this.gaveUpWaiting) this.events.onChange(`mcp: ${this.spec.label} failed`);
          this.retrier.schedule();
        },
      );
    }
    return this.firstAttempt;
  }

  /** Retry a failed server now (on a later rebuild), instead of at its next background retry. */
  retry(): void {
    if (this.status !== "failed" || this.closed || this.reconnecting || this.retrier.inFlight) return;
    this.retrier.cancel();
    this.firstAttempt = undefined;
    this.status = "pending";
    this.error = undefined;
    void this.start();
  }

  /** Wait for the first attempt, at most until `startupTimeoutMs` after it started. */
  async waitReady(): Promise<void> {
    const p = this.reconnecting ?? this.start();
    const left = this.spec.startupTimeoutMs - (Date.now() - this.startedAt);
    if (left <= 0 && this.status !== "connected") return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([p, new Promise<void>((r) => (timer = setTimeout(r, Math.max(0, left))))]);
    clearTimeout(timer);
  }

  /** The server's last stderr lines (banners, stack traces). */
  stderrTail(n = 12): string {
    return this.stderr.tail(n);
  }

  private withStderr(msg: string): string {
    const tail = this.stderrTail();
    return tail ? `${msg}\nLast stderr lines of ${this.spec.label}:\n${tail}` : msg;
  }

  private makeStdio(): StdioTransport {
    const s = this.spec;
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
    Object.assign(env, s.env);
    const t = stdioTransport({ command: s.command!, args: s.args, env, cwd: s.cwd ?? this.cwd });
    t.stderr?.on("data", (c: Buffer) => this.stderr.add(c));
    return t;
  }

  /**
   * Hard limit for one connection attempt. `collect` stops waiting after startupTimeout, but the
   * attempt goes on (up to a minute) so a slow server still arrives, through a rebuild, when ready.
   */
  private get connectLimitMs(): number {
    return Math.max(this.spec.startupTimeoutMs, 60_000);
  }

  private async connectOnce(client: Client, transport: Transport): Promise<void> {
    await client.connect(transport, { timeout: this.connectLimitMs });
  }

  private async connect(): Promise<void> {
    const { Client, StreamableHTTPClientTransport, SSEClientTransport, types } = await loadSdk();
    if (this.closed) throw new Error("closed while connecting");
    const { ToolListChangedNotificationSchema, ResourceListChangedNotificationSchema, PromptListChangedNotificationSchema, McpError, ErrorCode } = types;
    const s = this.spec;
    const client = new Client({ name: "toolhost", version: "0.1.0" }, { capabilities: {} });
    this.connecting = client;
    client.onerror = (e) => this.events.log.debug(`[mcp ${s.label}] ${errorMessage(e)}`);
    // Handle list_changed even when the server did not advertise `tools.listChanged` (some don't).
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void this.refreshTools("tools/list_changed"));
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void (this.resourceCache = undefined));
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => void (this.promptCache = undefined));
    try {
      if (s.transport === "stdio") {
        const t = this.makeStdio();
        this.transportUsed = "stdio";
        await this.connectOnce(client, t);
        this.pid = t.pid ?? undefined;
      } else {
        const url = new URL(s.url!);
        // headersHelper runs at every connection attempt (fresh credentials on reconnect); it wins over `headers`.
        const headers = s.headersHelper ? { ...s.headers, ...(await runHeadersHelper(s)) } : s.headers;
        if (this.closed) throw new Error("closed while connecting");
        const requestInit = { headers };
        if (s.transport === "http") {
          try {
            this.transportUsed = "http";
            await this.connectOnce(client, new StreamableHTTPClientTransport(url, { requestInit }));
          } catch (e) {
            if (this.closed) throw e;
            // Old servers speak the HTTP+SSE transport only (4xx on POST): fall back, as the spec suggests.
            this.events.log.debug(`[mcp ${s.label}] streamable HTTP failed (${errorMessage(e)}); trying SSE`);
            await client.close().catch(() => {});
            this.transportUsed = "sse";
            await this.connectOnce(client, new SSEClientTransport(url, { requestInit }));
          }
        } else {
          this.transportUsed = "sse";
          await this.connectOnce(client, new SSEClientTransport(url, { requestInit }));
        }
      }
      if (this.closed) throw new Error("closed while connecting");
      const tools = await this.listTools(client);
      if (this.closed) throw new Error("closed while connecting");
      this.client = client;
      this.serverName = client.getServerVersion()?.name;
      this.instructions = client.getInstructions();
      this.setTools(tools);
      this.status = "connected";
      this.error = undefined;
      client.onclose = () => this.onUnexpectedClose(client);
    } catch (e) {
      await client.close().catch(() => {});
      if (e instanceof HeadersHelperError) {
        this.errorPath = e.path;
        throw e;
      }
      this.errorPath = undefined;
      await tick();
      const msg = e instanceof McpError && e.code === ErrorCode.ConnectionClosed ? "the server exited before it finished starting" : errorMessage(e);
      throw new Error(this.withStderr(`${describeTarget(s)}: ${msg}`));
    } finally {
      if (this.connecting === client) this.connecting = undefined;
    }
  }

  /** tools/list with a lenient result schema, following pagination. */
  private async listTools(client: Client): Promise<RawTool[]> {
    const tools = await listAll(client, "tools/list", "tools", 100, this.connectLimitMs);
    return tools.filter((t): t is RawTool => !!t && typeof t === "object" && typeof (t as RawTool).name === "string" && !!(t as RawTool).name);
  }

  private setTools(tools: RawTool[]): boolean {
    const before = JSON.stringify(this.tools);
    this.tools = tools;
    if (JSON.stringify(tools) === before) return false;
    this.toolsVersion++;
    return true;
  }

  private async refreshTools(why: string): Promise<void> {
    const client = this.client;
    if (!client || this.status !== "connected") return;
    try {
      const tools = await this.listTools(client);
      if (this.client !== client) return;
      if (this.setTools(tools)) this.events.onChange(`mcp: ${this.spec.label} ${why}`);
    } catch (e) {
      // On refresh failure keep the previous list (Claude Code 2.1.214+ does the same).
      this.events.log.warn(`[mcp ${this.spec.label}] refreshing tools after ${why} failed; keeping the previous list: ${errorMessage(e)}`);
    }
  }

  private onUnexpectedClose(client: Client): void {
    if (this.closed || this.client !== client) return;
    this.client = undefined;
    this.status = "reconnecting";
    this.error = this.withStderr(`${this.spec.label} closed the connection`);
    this.events.log.warn(`[mcp ${this.spec.label}] connection lost; reconnecting`);
    this.reconnecting = this.reconnectLoop().finally(() => (this.reconnecting = undefined));
  }

  private async reconnectLoop(): Promise<void> {
    for (let attempt = 1; attempt <= RECONNECT.attempts && !this.closed; attempt++) {
      await new Promise<void>((r) => (this.reconnectTimer = setTimeout(r, backoffMs(attempt))));
      if (this.closed) return;
      try {
        await this.connect();
        this.events.onChange(`mcp: ${this.spec.label} reconnected`);
        return;
      } catch (e) {
        this.error = errorMessage(e);
        this.events.log.warn(`[mcp ${this.spec.label}] reconnect ${attempt}/${RECONNECT.attempts} failed: ${this.error.split("\n")[0]}`);
      }
    }
    if (this.closed) return;
    this.status = "failed";
    this.events.onChange(`mcp: ${this.spec.label} gave up reconnecting`);
    this.retrier.reset(RECONNECT.attempts);
    this.retrier.schedule();
  }

  private async retryInBackground(n: number): Promise<void> {
    try {
      await this.connect();
    } catch (e) {
      if (this.closed) return;
      this.error = errorMessage(e);
      const level = n === 1 || n === RECONNECT.attempts + 1 ? "warn" : "debug";
      this.events.log[level](`[mcp ${this.spec.label}] retry ${n} failed (next in ≤ ${maxBackoffMs() / 1000} s): ${this.error.split("\n")[0]}`);
      return;
    }
    this.retrier.reset();
    this.events.onChange(`mcp: ${this.spec.label} is back`);
  }

  /** Wait (bounded) for a reconnect in progress before a call. */
  private async connectedClient(signal: AbortSignal): Promise<Client | undefined> {
    if (this.client && this.status === "connected") return this.client;
    const p = this.reconnecting ?? (this.status === "pending" ? this.firstAttempt : undefined);
    if (!p) return undefined;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      p,
      new Promise<void>((r) => (timer = setTimeout(r, Math.min(this.spec.startupTimeoutMs, 15_000)))),
      new Promise<void>((r) => signal.addEventListener("abort", () => r(), { once: true })),
    ]);
    clearTimeout(timer);
    return this.status === "connected" ? this.client : undefined;
  }

  /**
   * Call a tool on this server. `cancel` is the tool call's context (its `onAbort` is used when
   * present: see LightSignal) or a plain AbortSignal.
   */
  callTool(tool: string, args: unknown, cancel: AbortSignal | Pick<ToolCallContext, "signal" | "onAbort">): Promise<ToolResult> {
    const signal: AbortSignal = cancel instanceof AbortSignal ? cancel : cancel.onAbort ? new LightSignal(cancel).asSignal : cancel.signal;
    // Hot path (connected): one promise chain, no async frame of its own.
    if (this.client && this.status === "connected") return this.request(this.client, tool, args, signal);
    return this.connectedClient(signal).then((client) =>
      client
        ? this.request(client, tool, args, signal)
        : err(`MCP server "${this.spec.label}" is not connected (${this.status}${this.error ? `: ${this.error}` : ""}); ${tool} was not called.`),
    );
  }

  private request(client: Client, tool: string, args: unknown, signal: AbortSignal): Promise<ToolResult> {
    const { ResultSchema, McpError, ErrorCode } = sdkLoaded().types;
    const s = this.spec;
    return client
      .request({ method: "tools/call", params: { name: tool, arguments: (args ?? {}) as Record<string, unknown> } }, ResultSchema, { signal, timeout: s.callTimeoutMs ?? NO_TIMEOUT })
      .then(
        (res) => toToolResult(res as Lenient),
        async (e: unknown) => {
          if (signal.aborted) throw e;
          if (e instanceof McpError && e.code === ErrorCode.RequestTimeout) {
            return err(`MCP tool ${tool} on server "${s.label}" timed out after ${s.callTimeoutMs ?? NO_TIMEOUT} ms (server config "timeout" in ${s.file} ${s.jsonPath}).`);
          }
          const died = (e instanceof McpError && e.code === ErrorCode.ConnectionClosed) || this.client !== client;
          if (died) {
            await tick();
            return err(this.withStderr(`MCP server "${s.label}" exited during the call to ${tool}; it is being restarted. The call may or may not have taken effect.`));
          }
          return err(`MCP tool ${tool} on server "${s.label}" failed: ${errorMessage(e)}`);
        },
      );
  }

  // --- resources and prompts (read-only pass-through for `toolhost serve`) ---------------------

  hasCapability(kind: "resources" | "prompts"): boolean {
    return !!this.client?.getServerCapabilities()?.[kind];
  }

  async listResources(): Promise<Lenient[]> {
    if (!this.client || !this.hasCapability("resources")) return [];
    if (this.resourceCache) return this.resourceCache;
    return (this.resourceCache = (await listAll(this.client, "resources/list", "resources", 50, 30_000)) as Lenient[]);
  }

  async readResource(uri: string): Promise<Lenient> {
    if (!this.client) throw new Error(`MCP server "${this.spec.label}" is not connected`);
    return (await this.client.request({ method: "resources/read", params: { uri } }, sdkLoaded().types.ResultSchema, { timeout: 60_000 })) as Lenient;
  }

  async listPrompts(): Promise<Lenient[]> {
    if (!this.client || !this.hasCapability("prompts")) return [];
    if (this.promptCache) return this.promptCache;
    return (this.promptCache = (await listAll(this.client, "prompts/list", "prompts", 50, 30_000)) as Lenient[]);
  }

  async getPrompt(name: string, args: Record<string, string> | undefined): Promise<Lenient> {
    if (!this.client) throw new Error(`MCP server "${this.spec.label}" is not connected`);
    return (await this.client.request({ method: "prompts/get", params: { name, arguments: args } }, sdkLoaded().types.ResultSchema, { timeout: 60_000 })) as Lenient;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.status = "closed";
    clearTimeout(this.reconnectTimer);
    this.retrier.stop();
    const c = this.client;
    this.client = undefined;
    if (c) await c.close().catch(() => {});
    if (this.connecting) await this.connecting.close().catch(() => {});
    // A connection still starting is closed by its connect() when it notices `closed`.
    await this.firstAttempt?.catch(() => {});
  }
}

function tick(): Promise<void> {
  return new Promise((r) => setImmediate(r));
}

function describeTarget(s: ServerSpec): string {
  return s.transport === "stdio" ? `cannot start ${s.label} (${[s.command, ...s.args].join(" ")})` : `cannot connect to ${s.label} at ${s.url} (${s.transport})`;
}
