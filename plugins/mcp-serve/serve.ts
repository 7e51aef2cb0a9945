/**
 * `toolhost serve`: the model-visible pool as an MCP server, on the SDK's low-level `Server` (raw
 * JSON Schemas, no zod). One host session per client connection: the client sees the eager tools plus
 * ToolSearch, and a deferred tool once ToolSearch has loaded it into that session. Exactly one
 * notifications/tools/list_changed is sent per change of what a client sees (its visible-list
 * fingerprint is compared after every rebuild and every session load). Upstream servers' resources
 * and prompts pass through read-only, namespaced.
 *
 *   hub.ts       the process-wide hub and its link to the mcp plugin's "mcp.connections" service
 *   session.ts   one client connection: tools/list, tools/call, asks as elicitations, list_changed
 *   upstream.ts  resources and prompts of upstream servers
 *   tools.ts     tools and results in MCP's wire shapes
 *   stdio.ts     the stdio transport
 *   http.ts      the Streamable HTTP transport and its sessions; guard.ts its Host/Origin/token checks
 */
export { McpServeHub, SERVE_TAP, type ServeOptions } from "./hub.ts";
export { ClientSession } from "./session.ts";
export { MCP_CONNECTIONS, parseResourceUri, resourceUri, type UpstreamServer, type UpstreamServers } from "./upstream.ts";
export { toCallResult, toMcpTool, type McpTool } from "./tools.ts";
export { serveStdio } from "./stdio.ts";
export { DEFAULT_HTTP_IDLE_MS, serveHttp, type HttpServeOptions } from "./http.ts";
export { refuseRequest } from "./guard.ts";
