import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { ReadBuffer, STDIO_DEFAULT_MAX_BUFFER_SIZE } from "@modelcontextprotocol/sdk/shared/stdio.js";
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { JsonRpcReadBuffer } from "../../lib/jsonrpc-read.ts";
import type { McpServeHub } from "./hub.ts";

/**
 * The client's messages are read with the SDK's framing, plain ones without its zod union (lib/jsonrpc-read.ts: a
 * per-call cost). The SDK keeps its ReadBuffer in a (TypeScript-)private field: without one (another SDK version)
 * the transport reads as it always did.
 */
function readPlainMessagesFast(transport: StdioServerTransport): void {
  const t = transport as unknown as { _readBuffer?: unknown };
  if (t._readBuffer instanceof ReadBuffer) t._readBuffer = new JsonRpcReadBuffer<JSONRPCMessage>((v) => JSONRPCMessageSchema.parse(v), STDIO_DEFAULT_MAX_BUFFER_SIZE);
}

/** Serve one client over this process's stdin/stdout. Resolves when the client goes away. */
export async function serveStdio(hub: McpServeHub): Promise<void> {
  const session = hub.createSession();
  const transport = new StdioServerTransport();
  readPlainMessagesFast(transport);
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
