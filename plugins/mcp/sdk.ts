/**
 * The MCP SDK's client side, loaded on the first connection: its modules (zod schemas included) take
 * about 100 ms to import, which a host with no MCP server — `toolhost tools` in most projects — never pays.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import type * as Types from "@modelcontextprotocol/sdk/types.js";
import type * as StdioShared from "@modelcontextprotocol/sdk/shared/stdio.js";

export interface McpSdk {
  Client: typeof Client;
  StdioClientTransport: typeof StdioClientTransport;
  StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
  SSEClientTransport: typeof SSEClientTransport;
  types: typeof Types;
  /** Line framing of the stdio transport (plugins/mcp/stdio.ts). */
  stdio: typeof StdioShared;
}

let sdk: McpSdk | undefined;
let loading: Promise<McpSdk> | undefined;

export function loadSdk(): Promise<McpSdk> {
  loading ??= Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/client/sse.js"),
    import("@modelcontextprotocol/sdk/types.js"),
    import("@modelcontextprotocol/sdk/shared/stdio.js"),
  ]).then(([c, stdio, http, sse, types, framing]) => (sdk = { Client: c.Client, StdioClientTransport: stdio.StdioClientTransport, StreamableHTTPClientTransport: http.StreamableHTTPClientTransport, SSEClientTransport: sse.SSEClientTransport, types, stdio: framing }));
  return loading;
}

/** The SDK, for code that holds a client (so `loadSdk()` has resolved). */
export function sdkLoaded(): McpSdk {
  if (!sdk) throw new Error("the MCP SDK is not loaded yet (loadSdk() first)");
  return sdk;
}
