/**
 * Remote transports against server-everything's own HTTP modes: Streamable HTTP, the old HTTP+SSE
 * transport, and the automatic fallback from `type: "http"` to SSE for a server that only speaks SSE.
 */
import net from "node:net";
import path from "node:path";
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, resultText, type Host } from "../../core/index.ts";
import { mcpManagerOf } from "../../plugins/mcp/index.ts";
import { NODE, SERVERS, tmpDir, waitFor, writeJson } from "./helpers.ts";

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

async function startEverything(mode: "streamableHttp" | "sse"): Promise<{ proc: ChildProcess; port: number }> {
  const port = await freePort();
  const proc = spawn(NODE, [SERVERS.everything, mode], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  proc.stderr!.on("data", (d) => (err += d));
  await waitFor(() => /listening on port|running on port/i.test(err), 20_000, `server-everything ${mode} to listen`);
  return { proc, port };
}

describe("HTTP transports", () => {
  let http: { proc: ChildProcess; port: number };
  let sse: { proc: ChildProcess; port: number };
  let host: Host;
  beforeAll(async () => {
    [http, sse] = await Promise.all([startEverything("streamableHttp"), startEverything("sse")]);
    const dir = tmpDir();
    writeJson(path.join(dir, "toolhost.config.json"), {
      mcpServers: {
        remote: { type: "http", url: "http://127.0.0.1:${TEST_HTTP_PORT}/mcp", headers: { Authorization: "Bearer ${TEST_TOKEN:-none}" }, include: ["echo"] },
        legacy: { type: "sse", url: `http://127.0.0.1:${sse.port}/sse`, include: ["echo"] },
        fallback: { type: "http", url: `http://127.0.0.1:${sse.port}/sse`, include: ["echo"] },
      },
    });
    process.env.TEST_HTTP_PORT = String(http.port);
    host = await createHost({ cwd: dir });
  });
  afterAll(async () => {
    await host?.close();
    http?.proc.kill();
    sse?.proc.kill();
    delete process.env.TEST_HTTP_PORT;
  });

  it("connects over Streamable HTTP (URL from ${VAR}), SSE, and falls back from http to SSE", async () => {
    const m = mcpManagerOf(host.options)!;
    expect(m.bySegment("remote")?.transportUsed).toBe("http");
    expect(m.bySegment("legacy")?.transportUsed).toBe("sse");
    expect(m.bySegment("fallback")?.transportUsed).toBe("sse");
    for (const s of ["remote", "legacy", "fallback"]) {
      const o = await host.execute(`mcp__${s}__echo`, { message: `via ${s}` }, { yes: true, autoLoadDeferred: true });
      expect(resultText(o.result)).toContain(`via ${s}`);
    }
    expect(host.problems().filter((p) => p.message.includes("MCP server"))).toEqual([]);
  });
});
