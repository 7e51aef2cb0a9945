/**
 * Remote transports against server-everything's own HTTP modes: Streamable HTTP, the old HTTP+SSE
 * transport, and the automatic fallback from `type: "http"` to SSE for a server that only speaks SSE.
 */
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, resultText, type Host } from "../../core/index.ts";
import { NODE, ROOT, SERVERS, tmpDir, waitFor, writeJson, mcpOf } from "./helpers.ts";

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
    const m = mcpOf(host)!;
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

describe("headersHelper (a real script against a server that demands a token)", () => {
  let server: ChildProcess;
  let host: Host;
  let dir: string;
  let cfgFile: string;
  beforeAll(async () => {
    server = spawn(NODE, [path.join(ROOT, "test", "fixtures", "mcp", "auth-http-server.mjs")], { env: { ...process.env, PORT: "0", AUTH_TOKEN: "tok-123" }, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    server.stderr!.on("data", (d) => (err += d));
    const port = await waitFor(() => /listening on port (\d+)/.exec(err)?.[1], 20_000, "the auth server to listen");
    dir = tmpDir();
    const script = (name: string, body: string) => {
      fs.writeFileSync(path.join(dir, name), `#!/bin/sh\n${body}\n`);
      fs.chmodSync(path.join(dir, name), 0o755);
    };
    fs.writeFileSync(path.join(dir, "token.txt"), "tok-123");
    // Runs in the project directory, with the server's name in its environment.
    script("good.sh", `printf '{"Authorization": "Bearer %s", "X-Team": "blue", "X-Server-Name": "%s"}' "$(cat token.txt)" "$CLAUDE_CODE_MCP_SERVER_NAME"`);
    script("badjson.sh", `echo "Authorization: Bearer tok-123"`);
    script("fails.sh", `echo "vault: permission denied" >&2; exit 3`);
    script("slow.sh", `sleep 5; echo '{}'`);
    const url = `http://127.0.0.1:${port}/mcp`;
    cfgFile = path.join(dir, "toolhost.config.json");
    writeJson(cfgFile, {
      mcpServers: {
        ok: { type: "http", url, headers: { "X-Team": "red", "X-Static": "s" }, headersHelper: "./good.sh" },
        nohelper: { type: "http", url, headers: { "X-Team": "red" } },
        badjson: { type: "http", url, headersHelper: "./badjson.sh" },
        fails: { type: "http", url, headersHelper: "./fails.sh" },
        slow: { type: "http", url, headersHelper: "./slow.sh", headersHelperTimeout: 300 },
      },
    });
    host = await createHost({ cwd: dir });
  });
  afterAll(async () => {
    await host?.close();
    server?.kill();
  });

  it("merges the helper's headers over `headers` (the helper wins) and connects with them", async () => {
    const o = await host.execute("mcp__ok__whoami", {}, { yes: true, autoLoadDeferred: true });
    expect(o.status).toBe("ok");
    expect(JSON.parse(resultText(o.result))).toEqual({ authorization: "Bearer tok-123", team: "blue", static: "s", serverName: "ok" });
    // Without the helper the same server refuses the connection (the token comes only from the helper).
    expect(host.problems().find((p) => p.message.includes('"nohelper"'))?.message).toMatch(/401|Unauthorized/i);
  });

  it("a helper that prints something else, fails or hangs: a clear warning naming plugin, file and field; the server is not connected", async () => {
    const problem = (name: string) => host.problems().find((p) => p.message.includes(`MCP server "${name}"`))!;
    for (const name of ["badjson", "fails", "slow"]) {
      const p = problem(name);
      expect(p, name).toBeDefined();
      expect(p).toMatchObject({ plugin: "config", file: cfgFile, path: `/mcpServers/${name}/headersHelper`, severity: "warning" });
      expect(p.message).toContain(`headersHelper "./${name}.sh"`);
      expect(p.message).toContain(`${cfgFile} /mcpServers/${name}/headersHelper`);
      expect(host.pool.byName.get(`mcp__${name}__whoami`)).toBeUndefined();
    }
    expect(problem("badjson").message).toMatch(/printed output that is not valid JSON/);
    expect(problem("fails").message).toMatch(/exited with code 3; its stderr: vault: permission denied/);
    expect(problem("slow").message).toMatch(/did not finish within 300 ms/);
    expect(problem("badjson").message).not.toContain("tok-123"); // the helper's output may be a credential
  });
});
