/**
 * One client connection = one SDK `Server` instance = one host session. Every tools/call runs through
 * `host.execute(…, {source: "mcp", sessionId})`, the one execution path. An `ask` becomes an MCP
 * elicitation when the client declared that capability, else a denial that says why.
 */
import { createHash } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  type JSONRPCNotification,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { errorMessage, stableStringify, type AskAnswer, type AskRequest, type Host } from "../../core/index.ts";
import { LightSignal } from "../../lib/light-signal.ts";
import { sessionIdProblem } from "../../lib/session-store/limits.ts";
import { offeredTools, toCallResult, toMcpTool, type McpTool } from "./tools.ts";
import { getPrompt, listResources, promptTable, readResource, type UpstreamServers } from "./upstream.ts";

const VERSION = "0.1.0";
const INSTRUCTIONS =
  "toolhost serves its tool pool with its permission rules and hooks enforced. Some tools are deferred: search them with ToolSearch; a tool it finds becomes callable and appears in tools/list.";

/** Deferred names listed in the instructions at most (Claude Code lists every one; 10k names would be ~60k tokens). */
const MAX_DEFERRED_NAMES = 1000;

/**
 * The server's instructions for one connection: the fixed text, then the deferred tools by name (sorted, so the
 * text depends only on the set, not on pool order: stable for the client's prompt cache). Fixed when the
 * connection is made; tools deferred later are still found by ToolSearch.
 */
export function serveInstructions(host: Host): string {
  const names = host.pool.deferred.map((t) => t.name).sort();
  if (!names.length) return INSTRUCTIONS;
  const shown = names.slice(0, MAX_DEFERRED_NAMES);
  const more = names.length > shown.length ? `\n… and ${names.length - shown.length} more (search for them)` : "";
  return `${INSTRUCTIONS}\n\nDeferred tools, callable once ToolSearch finds them (keywords, or "select:<name>"):\n${shown.join("\n")}${more}`;
}

/** What a session needs from the `toolhost serve` process it belongs to (McpServeHub). */
export interface SessionHub {
  readonly host: Host;
  readonly log: (line: string) => void;
  readonly sessions: Set<ClientSession>;
  mcp(): UpstreamServers | undefined;
}

/** `params._meta` key a client that cannot set headers names its toolhost session with. */
export const META_SESSION = "toolhost/session";

/** A client-chosen toolhost session id (header or `_meta`): refused clearly when it is not a valid store id. */
export function namedSession(v: unknown, where: string): string | undefined {
  if (v === undefined || v === null || v === "") return undefined;
  const bad = sessionIdProblem(v);
  if (bad) throw new Error(`${where}: ${bad}`);
  return v as string;
}

/** The restore of a stored session (sessions plugin) before a synchronous read of it; a no-op without one. */
export async function openHostSession(host: Host, id: string): Promise<void> {
  await (host as { openSession?: (id: string) => Promise<unknown> }).openSession?.(id);
}

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
    private readonly hub: SessionHub,
    readonly sessionId: string,
    /** Stateless serving: the host session outlives this connection (its state lives in the store). */
    private readonly keepHostSession = false,
    /** An MCP session opened on another instance and taken over here (http.ts adopt): SessionStart source "resume". */
    private readonly resumed = false,
  ) {
    this.server = new Server({ name: "toolhost", version: VERSION }, { capabilities: { tools: { listChanged: true }, resources: {}, prompts: {} }, instructions: serveInstructions(hub.host) });
    this.server.onerror = (e) => hub.log(`[serve ${sessionId}] ${errorMessage(e)}`);
    this.handleTools();
    this.handleUpstream();
    this.server.onclose = () => this.close();
    // What the client may be offered depends on its capabilities (elicitation): known once it initialized.
    this.server.oninitialized = () => void (this.lastFp = this.visible().fp);
    this.startSessionOnInitialize();
  }

  private handleTools(): void {
    const { host } = this.hub;
    this.server.setRequestHandler(ListToolsRequestSchema, async () => {
      await openHostSession(host, this.sessionId);
      const v = this.visible();
      this.lastFp = v.fp;
      return { tools: v.tools };
    });
    // Client cancellations reach calls through a LightSignal per request (see watchCancellations);
    // without that hook, through the SDK's own per-request AbortSignal.
    const cheapCancel = this.watchCancellations();
    this.server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
      const { name, arguments: args } = req.params;
      // A client that cannot set headers names its session per call (params._meta["toolhost/session"]).
      const sessionId = namedSession(req.params._meta?.[META_SESSION], `params._meta["${META_SESSION}"]`) ?? this.sessionId;
      let signal: AbortSignal = extra.signal;
      if (cheapCancel) {
        const light = new LightSignal();
        if (extra.signal.aborted) light.abort(extra.signal.reason);
        this.inflight.set(extra.requestId, light);
        signal = light.asSignal;
      }
      try {
        const outcome = await host.execute(name, args ?? {}, { source: "mcp", sessionId, signal, onAsk: (r) => this.ask(r, extra.requestId) });
        // MCP has no model turns: each tools/call ends one, so PostToolBatch hooks run after every call.
        const turn = await host.endTurn({ sessionId });
        return toCallResult(outcome.result, outcome.stop ?? turn.stop, turn.context);
      } finally {
        if (cheapCancel) this.inflight.delete(extra.requestId);
      }
    });
  }

  /**
   * SessionStart hooks run when the client initializes (source "startup"); what they add to the context
   * goes into the server's `instructions` of the initialize answer, after toolhost's own. The SDK keeps
   * the initialize handler and the instructions in (TypeScript-)private fields: without them (another SDK
   * version) SessionStart runs once the client is initialized and its context is only logged.
   */
  private startSessionOnInitialize(): void {
    const srv = this.server as unknown as { _requestHandlers?: Map<string, (req: unknown, extra: unknown) => Promise<unknown>>; _instructions?: string };
    const init = srv._requestHandlers instanceof Map ? srv._requestHandlers.get("initialize") : undefined;
    const run = async () => {
      const out = await this.hub.host.event("SessionStart", { source: this.resumed ? "resume" : "startup" }, { sessionId: this.sessionId });
      for (const m of out.messages) this.hub.log(`[serve ${this.sessionId}] SessionStart: ${m}`);
      return out.context;
    };
    if (!init || !("_instructions" in srv)) {
      const prev = this.server.oninitialized;
      this.server.oninitialized = () => (prev?.(), void run().then((c) => c.length && this.hub.log(`[serve ${this.sessionId}] SessionStart context (not delivered): ${c.join(" | ")}`)));
      return;
    }
    srv._requestHandlers!.set("initialize", async (req, extra) => {
      const context = await run().catch((e: unknown) => (this.hub.log(`[serve ${this.sessionId}] SessionStart failed: ${errorMessage(e)}`), [] as string[]));
      if (context.length) srv._instructions = [srv._instructions ?? INSTRUCTIONS, ...context].join("\n\n");
      return init(req, extra);
    });
  }

  private handleUpstream(): void {
    const { hub } = this;
    this.server.setRequestHandler(ListResourcesRequestSchema, () => listResources(hub.mcp(), hub.log));
    this.server.setRequestHandler(ReadResourceRequestSchema, (req) => readResource(hub.mcp(), req.params.uri));
    this.server.setRequestHandler(ListPromptsRequestSchema, async () => {
      const prompts = await promptTable(hub.mcp(), hub.log);
      return { prompts: prompts.map((p) => ({ ...p.raw, name: p.name })) };
    });
    this.server.setRequestHandler(GetPromptRequestSchema, (req) => getPrompt(hub.mcp(), req.params.name, req.params.arguments as Record<string, string> | undefined, hub.log));
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

  /** The client's visible tool list, cached per (generation, session loads). */
  visible(): { tools: McpTool[]; fp: string } {
    const host = this.hub.host;
    const loaded = host.session(this.sessionId).loaded.length;
    const canAsk = !!this.server.getClientCapabilities()?.elicitation?.form;
    const key = `${host.pool.generation}:${loaded}:${canAsk}`;
    if (this.cache?.key === key) return this.cache;
    const tools = offeredTools(host, this.sessionId, canAsk).map(toMcpTool);
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
    // A session that ends with the connection: SessionEnd hooks, then its loaded deferred tools and scratch
    // state go (one host session per client connection). A kept (named) session lives on.
    const host = this.hub.host;
    if (!this.keepHostSession) void host.event("SessionEnd", { reason: "other" }, { sessionId: this.sessionId }).catch(() => undefined).finally(() => host.endSession(this.sessionId));
    this.hub.sessions.delete(this);
  }
}
