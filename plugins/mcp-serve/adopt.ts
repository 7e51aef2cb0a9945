/**
 * In a fleet (stateful `serve --http`, a shared session store) an MCP session outlives the instance that
 * opened it. At initialize the instance records the client's half of the handshake — its capabilities
 * and clientInfo — in the toolhost session's store record (field "mcp", key: the Mcp-Session-Id). An
 * instance that gets a request for an MCP session it does not know — the balancer sent it elsewhere
 * because its instance died, failed a health check under load, or a retried request was redispatched —
 * finds that record and takes the session over: a new SDK server and transport under the same id,
 * initialized with the recorded handshake (SessionStart source "resume"), the toolhost session restored
 * from the store as on any instance. No record (the client DELETEd the session, it expired idle, it was
 * never opened in this fleet, sessions kept in memory): a 404 as before, and the client initializes again.
 */
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { errorMessage, type Host } from "../../core/index.ts";
import type { Json, SessionStore } from "../../lib/session-store/types.ts";

/** The store field of a toolhost session that holds its MCP sessions' handshakes, by Mcp-Session-Id. */
export const MCP_FIELD = "mcp";

export interface McpHandshake {
  capabilities: Json;
  clientInfo: Json;
  /** The instance that serves it: the one that opened it, then the one that took it over. */
  instance: string;
  at: number;
}

type AdminLike = { runtime?: { backend?: string; store?(): Promise<SessionStore> } };

/** The session store instances share (the sessions plugin's); undefined when sessions are kept in memory. */
export async function fleetStore(host: Host): Promise<SessionStore | undefined> {
  const rt = host.service<AdminLike>("sessions.admin")?.runtime;
  if (typeof rt?.store !== "function" || rt.backend === "memory") return undefined;
  const st = await rt.store();
  return st.backend === "memory" ? undefined : st; // (the in-memory fallback of a store that cannot be opened)
}

/**
 * Record (handshake) or drop (undefined) an MCP session of toolhost session `name`; a failure is logged,
 * never thrown. `owner`: drop it only while that instance is the one recorded as serving it (an idle expiry
 * on an instance the session has moved away from leaves it to the one that serves it now).
 */
export async function recordHandshake(host: Host, log: (l: string) => void, name: string, mcpId: string, hs: McpHandshake | undefined, owner?: string): Promise<void> {
  try {
    const st = await fleetStore(host);
    if (!st) return;
    if (hs) return void (await st.patch(name, [{ op: "set", field: MCP_FIELD, key: mcpId, value: { ...hs } }]));
    const cur = (await st.get(name))?.fields[MCP_FIELD]?.[mcpId] as { instance?: string } | undefined;
    if (cur !== undefined && (owner === undefined || cur?.instance === owner)) await st.patch(name, [{ op: "delete", field: MCP_FIELD, key: mcpId }]);
  } catch (e) {
    log(`[serve http] session ${mcpId}: its handshake could not be ${hs ? "recorded" : "dropped"} in the session store (${errorMessage(e)}); ${hs ? "another instance cannot take it over" : "another instance may still take it over"}`);
  }
}

/** The recorded handshake of MCP session `mcpId` of toolhost session `name`, if the fleet knows it. */
export async function findHandshake(host: Host, name: string, mcpId: string): Promise<McpHandshake | undefined> {
  const st = await fleetStore(host);
  const v = st ? (await st.get(name))?.fields[MCP_FIELD]?.[mcpId] : undefined;
  return v && typeof v === "object" && !Array.isArray(v) ? (v as unknown as McpHandshake) : undefined;
}

type WebTransport = { handleRequest(r: Request): Promise<Response> };

/**
 * Initialize a fresh transport + server under `mcpId` with a recorded handshake: the initialize request and
 * initialized notification the client sent to the first instance, replayed through the SDK's own path (so
 * the transport takes the id and the server the client's capabilities). The SDK keeps the web-standard
 * transport in a (TypeScript-)private field; without it (another SDK version) returns false: a 404 as before.
 */
export async function replayHandshake(transport: StreamableHTTPServerTransport, mcpId: string, hs: McpHandshake, protocolVersion: string | undefined): Promise<boolean> {
  const web = (transport as unknown as { _webStandardTransport?: WebTransport })._webStandardTransport;
  if (typeof web?.handleRequest !== "function") return false;
  const pv = protocolVersion ?? LATEST_PROTOCOL_VERSION;
  const post = (body: object, session: boolean) =>
    web.handleRequest(
      new Request("http://127.0.0.1/mcp", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...(session ? { "mcp-session-id": mcpId, "mcp-protocol-version": pv } : {}) },
        body: JSON.stringify(body),
      }),
    );
  const init = await post({ jsonrpc: "2.0", id: "toolhost-resume", method: "initialize", params: { protocolVersion: pv, capabilities: hs.capabilities ?? {}, clientInfo: hs.clientInfo ?? { name: "unknown", version: "0" } } }, false);
  const text = await init.text();
  if (!init.ok || transport.sessionId !== mcpId || !text.includes('"result"')) return false;
  const done = await post({ jsonrpc: "2.0", method: "notifications/initialized" }, true);
  await done.text();
  return done.ok;
}
