/**
 * A fleet on 127.0.0.1 for tests and benchmarks: real `toolhost serve --http` processes sharing one
 * redis-server, behind a real HAProxy (sticky on Mcp-Session-Id, or round robin for stateless serving),
 * and MCP SDK clients that record which instance answered each request (X-Toolhost-Instance).
 */
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { spawn, type ChildProcess } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { BIN } from "../helpers.ts";
import { freePort, stopChild, waitOutput } from "./servers.ts";

export interface Instance {
  name: string;
  port: number;
  url: string;
  child: ChildProcess;
  transcript: string;
  stderr: () => string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export interface InstanceOptions {
  name: string;
  cwd: string;
  config: Record<string, unknown>;
  stateless?: boolean;
  allowHosts?: string[];
  env?: Record<string, string>;
}

/** One `toolhost serve --http` child with its own config file (and so its own transcript). */
export async function startInstance(o: InstanceOptions): Promise<Instance> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `toolhost-inst-${o.name}-`));
  const transcript = path.join(dir, "transcript.jsonl");
  const cfgFile = path.join(dir, "toolhost.config.json");
  fs.writeFileSync(cfgFile, JSON.stringify({ transcript, ...o.config, sessions: { ...(o.config.sessions as object), instanceId: o.name } }, null, 2));
  const args = [BIN, "serve", "--http", String(port), "--no-watch", "--cwd", o.cwd, "--config", cfgFile, ...(o.stateless ? ["--stateless"] : []), ...(o.allowHosts ?? []).flatMap((h) => ["--allow-host", h])];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, TOOLHOST_INSTANCE_ID: o.name, ...o.env } });
  let err = "";
  child.stderr!.on("data", (d) => (err += d));
  await waitOutput(child, /Streamable HTTP on http/, `toolhost serve ${o.name}`, 60_000);
  return { name: o.name, port, url: `http://127.0.0.1:${port}/mcp`, child, transcript, stderr: () => err, kill: (signal = "SIGKILL") => stopChild(child, signal) };
}

export interface Balancer {
  port: number;
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** HAProxy in front of `servers`: sticky on Mcp-Session-Id (stateful serve) or plain round robin (stateless). */
export async function startHaproxy(bin: string, servers: Instance[], opts: { sticky: boolean; port?: number }): Promise<Balancer> {
  const port = opts.port ?? (await freePort());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolhost-haproxy-"));
  const cfg = [
    "global",
    "  maxconn 512",
    "defaults",
    "  mode http",
    "  timeout connect 1s",
    "  timeout client 60s",
    "  timeout server 60s",
    "  retries 3",
    "  option redispatch 1",
    "  retry-on conn-failure empty-response",
    "frontend fe",
    `  bind 127.0.0.1:${port}`,
    "  default_backend toolhost",
    "backend toolhost",
    "  balance roundrobin",
    ...(opts.sticky ? ["  stick-table type string len 64 size 100k expire 30m", "  stick match req.hdr(mcp-session-id)", "  stick store-response res.hdr(mcp-session-id)"] : []),
    ...servers.map((s) => `  server ${s.name} 127.0.0.1:${s.port} check inter 100ms fall 1 rise 2`),
    "",
  ].join("\n");
  const file = path.join(dir, "haproxy.cfg");
  fs.writeFileSync(file, cfg);
  const child = spawn(bin, ["-db", "-f", file], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const t0 = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`haproxy exited (${child.exitCode}):\n${out}`);
    if (await canConnect(port)) break;
    if (Date.now() - t0 > 20_000) throw new Error(`haproxy did not listen within 20 s:\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { port, url: `http://127.0.0.1:${port}/mcp`, child, stop: () => stopChild(child) };
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, "127.0.0.1");
    s.once("connect", () => (s.destroy(), resolve(true)));
    s.once("error", () => resolve(false));
  });
}

export interface FleetClient {
  client: Client;
  /** X-Toolhost-Instance of every response, in order. */
  instances: string[];
  asked: string[];
  close(): Promise<void>;
}

/** An MCP SDK client over Streamable HTTP that answers asks with `answer` and names its session (header) if given. */
export async function connectClient(url: string, opts: { session?: string; answer?: string; name?: string } = {}): Promise<FleetClient> {
  const instances: string[] = [];
  const asked: string[] = [];
  const client = new Client({ name: opts.name ?? "fleet-test", version: "1" }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push(String(req.params.message));
    return { action: "accept", content: { decision: opts.answer ?? "deny" } };
  });
  const fetchRec: typeof fetch = async (input, init) => {
    const r = await fetch(input, init);
    const inst = r.headers.get("x-toolhost-instance");
    if (inst) instances.push(inst);
    return r;
  };
  const headers: Record<string, string> = opts.session ? { "x-toolhost-session": opts.session } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers }, fetch: fetchRec }));
  return { client, instances, asked, close: () => client.close().catch(() => {}) };
}

export const text = (r: unknown) => ((r as { content?: Array<{ text?: string }> }).content ?? []).map((x) => x.text ?? "").join("\n");

/** Transcript lines of every instance (what each wrote; a killed one's file as it was left). */
export function transcripts(list: Instance[]): Array<Record<string, any> & { instance: string }> {
  return list.flatMap((i) =>
    fs.existsSync(i.transcript)
      ? fs
          .readFileSync(i.transcript, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => ({ ...JSON.parse(l), instance: i.name }))
      : [],
  );
}

/** A project with a file to read and edit, and a plugin with a deferred read-only tool (ToolSearch loads it). */
export function writeProject(dir: string): void {
  fs.writeFileSync(path.join(dir, "notes.txt"), "alpha\nbeta\n");
  const p = path.join(dir, "deferred-plugin");
  fs.mkdirSync(p, { recursive: true });
  fs.writeFileSync(path.join(p, "toolhost.plugin.json"), JSON.stringify({ name: "deferred-plugin", tools: ["./tool.mjs", "./echo.mjs"] }));
  fs.writeFileSync(
    path.join(p, "echo.mjs"),
    `import { defineTool } from "toolhost";
export default defineTool({
  name: "Echo_text",
  description: "Echo a text back (an in-process tool for benchmarks).",
  inputSchema: { properties: { text: { type: "string" } }, required: ["text"] },
  isReadOnly: true,
  call: ({ text }) => text,
});
`,
  );
  fs.writeFileSync(
    path.join(p, "tool.mjs"),
    `import { defineTool } from "toolhost";
export default defineTool({
  name: "Inventory_lookup",
  description: "Look up a part number in the warehouse inventory; returns the stock count.",
  inputSchema: { properties: { part: { type: "string" } }, required: ["part"] },
  isReadOnly: true,
  shouldDefer: true,
  call: ({ part }) => "stock of " + part + ": 42",
});
`,
  );
}
