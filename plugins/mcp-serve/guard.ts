import type http from "node:http";
import { timingSafeEqual } from "node:crypto";

/**
 * DNS-rebinding and cross-site guard for a loopback server (what the MCP spec asks of local HTTP
 * servers): the Host header must name the loopback address we listen on, and a browser's Origin, when
 * present, must be that same local origin. With `token`, `Authorization: Bearer <token>` is required
 * too. Returns why a request is refused, or undefined.
 */
export function refuseRequest(headers: http.IncomingHttpHeaders, port: number, token?: string, allowHosts: readonly string[] = []): { status: number; why: string } | undefined {
  // allowHosts: the balancer's address(es) a fleet instance is reached through (`serve --allow-host`).
  const local = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, ...allowHosts.map((h) => h.toLowerCase())];
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

/** A JSON-RPC error answer with an HTTP status. */
export function jsonError(res: http.ServerResponse, status: number, message: string): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}
