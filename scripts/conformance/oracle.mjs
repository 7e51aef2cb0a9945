/**
 * Claude Code as an offline oracle (../shared/cc-oracle/README.md), the pieces every recorder shares: installing
 * Claude Code into a cache directory on demand, the scripted Anthropic Messages API on 127.0.0.1, and running one
 * `claude -p` session as `nobody` when we are root. Used by scripts/conformance/record.mjs and
 * test/permissions/cases/record-cc.mjs. Claude Code is never a dependency of the project and never runs in CI.
 */
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";

export const CC_VERSION = "2.1.328";
export const NOBODY = 65534;

/** The Claude Code binary in the cache dir ($TOOLHOST_CC_CACHE, default /work/cache/cc), installed under a flock on first use. */
export function ensureClaude(cache = process.env.TOOLHOST_CC_CACHE || "/work/cache/cc", version = CC_VERSION) {
  const bin = path.join(cache, "node_modules/@anthropic-ai/claude-code-linux-x64/claude");
  const installed = () => {
    try {
      return JSON.parse(fs.readFileSync(path.join(cache, "node_modules/@anthropic-ai/claude-code/package.json"), "utf8")).version === version && fs.existsSync(bin);
    } catch {
      return false;
    }
  };
  if (installed()) return bin;
  fs.mkdirSync(cache, { recursive: true });
  const lock = `${path.resolve(cache)}.lock`;
  process.stderr.write(`installing Claude Code ${version} into ${cache} (once)\n`);
  execFileSync("flock", [lock, "npm", "i", "--prefix", cache, "--ignore-scripts", "--no-audit", "--no-fund", `@anthropic-ai/claude-code@${version}`], { stdio: "inherit" });
  if (!installed()) throw new Error(`Claude Code ${version} is not at ${bin} after npm i --prefix ${cache}`);
  return bin;
}

/**
 * The stand-in Anthropic API: the n-th assistant turn returns steps[n] as a tool_use ({id, name, input}), then "done".
 * Every request body is kept in `requests` (the first carries the `tools` array, later ones the tool_results).
 */
export function fakeApi(steps) {
  const requests = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      if (!req.url.startsWith("/v1/messages") || req.url.includes("count_tokens")) {
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(JSON.stringify({ input_tokens: 10 }));
      }
      let j = {};
      try { j = JSON.parse(body); } catch {}
      requests.push(j);
      const n = (j.messages ?? []).filter((m) => m.role === "assistant").length;
      const step = j.tools ? steps[n] : undefined;
      res.writeHead(200, { "content-type": "text/event-stream" });
      const ev = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
      ev("message_start", { message: { id: `msg_${n}`, type: "message", role: "assistant", model: j.model, content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } });
      if (step) {
        ev("content_block_start", { index: 0, content_block: { type: "tool_use", id: step.id, name: step.name, input: {} } });
        ev("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: JSON.stringify(step.input) } });
        ev("content_block_stop", { index: 0 });
        ev("message_delta", { delta: { stop_reason: "tool_use" }, usage: { output_tokens: 5 } });
      } else {
        ev("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
        ev("content_block_delta", { index: 0, delta: { type: "text_delta", text: "done" } });
        ev("content_block_stop", { index: 0 });
        ev("message_delta", { delta: { stop_reason: "end_turn" }, usage: { output_tokens: 1 } });
      }
      ev("message_stop", {});
      res.end();
    });
  });
  server.requests = requests;
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

export function chownR(p, uid) {
  fs.lchownSync(p, uid, uid);
  const st = fs.lstatSync(p);
  if (st.isDirectory()) for (const e of fs.readdirSync(p)) chownR(path.join(p, e), uid);
}

/** The environment a recorded session gets: offline, no telemetry, the stand-in API on `port`. */
export function oracleEnv(port, extra) {
  return {
    PATH: process.env.PATH,
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
    ANTHROPIC_API_KEY: "sk-ant-dummy",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    IS_SANDBOX: "1",
    ...extra,
  };
}

/** Run `claude argv` in cwd (as nobody when root; `root` is chowned first). Resolves {stdout, stderr, code}. */
export function runClaude(bin, argv, { cwd, env, root, timeoutMs = 120_000 }) {
  const asRoot = process.getuid?.() === 0;
  if (asRoot && root) chownR(root, NOBODY);
  return new Promise((resolve) => {
    const p = spawn(bin, argv, { cwd, env, stdio: ["ignore", "pipe", "pipe"], ...(asRoot ? { uid: NOBODY, gid: NOBODY } : {}) });
    let stdout = "", stderr = "";
    p.stdout.on("data", (d) => (stdout += d));
    p.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => p.kill("SIGKILL"), timeoutMs);
    p.on("close", (code) => { clearTimeout(timer); resolve({ stdout, stderr, code }); });
  });
}

/** The stream-json lines of a session, parsed (non-JSON lines dropped). */
export function streamLines(stdout) {
  const out = [];
  for (const line of stdout.split("\n")) {
    try { out.push(JSON.parse(line)); } catch {}
  }
  return out;
}

/**
 * A minimal stdio MCP server, run as `node oracle.mjs --mcp NAME LOG`: "rec" has the permission prompt tool
 * (`--permission-prompt-tool mcp__rec__prompt`: logs the request to LOG and answers deny, so an asked call never
 * runs and "ask" is told from "deny"); other names expose echo tools.
 */
export function mcpServer(name, log) {
  const tools = { rec: ["prompt"], github: ["get_issue", "create_issue"], db: ["query"], fs: ["read_file", "write_file"], echo: ["ping", "shout"] }[name] ?? [];
  let buf = "";
  const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
  process.stdin.on("data", (d) => {
    buf += d;
    for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      let m;
      try { m = JSON.parse(line); } catch { continue; }
      if (m.id === undefined) continue;
      const r = (result) => send({ jsonrpc: "2.0", id: m.id, result });
      if (m.method === "initialize") r({ protocolVersion: m.params?.protocolVersion ?? "2025-06-18", capabilities: { tools: {} }, serverInfo: { name, version: "1.0.0" } });
      else if (m.method === "tools/list") r({ tools: tools.map((t) => ({ name: t, description: `${name} ${t}`, inputSchema: { type: "object", properties: { q: { type: "string" }, tool_name: { type: "string" }, input: { type: "object" }, tool_use_id: { type: "string" } } } })) });
      else if (m.method === "tools/call") {
        if (name === "rec") {
          fs.appendFileSync(log, JSON.stringify(m.params.arguments) + "\n");
          r({ content: [{ type: "text", text: JSON.stringify({ behavior: "deny", message: "recorded as ask" }) }] });
        } else r({ content: [{ type: "text", text: `${name} ${m.params.name} ran` }] });
      } else r({});
    }
  });
}

export const ORACLE = new URL(import.meta.url).pathname;
if (process.argv[1] === ORACLE && process.argv[2] === "--mcp") mcpServer(process.argv[3], process.argv[4]);
