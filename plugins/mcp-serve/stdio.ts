import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { McpServeHub } from "./hub.ts";

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
