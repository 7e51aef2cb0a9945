#!/usr/bin/env node
// Records what Claude Code 2.1.328 hands its hooks (tool_response shapes, hook env, stdin fields) and what the model
// sees after a hook acted, into test/conformance/shapes/*.json. Not run by the tests (they read the fixtures); run
// by hand against an installed Claude Code:
//   npm i --prefix /work/cache/cc @anthropic-ai/claude-code@2.1.328
//   node test/conformance/shapes/record.mjs [CC binary] [case …]
// Machine paths, ids and timings are scrubbed so a re-recording diffs cleanly.
import { spawnSync, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CASES } from "./cases.mjs";
import { HOOK, MCP } from "./harness.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CC = process.argv[2] && !process.argv[2].startsWith("-") && fs.existsSync(process.argv[2]) ? process.argv[2] : "/work/cache/cc/node_modules/@anthropic-ai/claude-code-linux-x64/claude";
const only = process.argv.slice(2).filter((a) => a !== CC);

function fakeApi(script, log) {
  return new Promise((resolve) => {
    const srv = http.createServer((req, res) => {
      let body = "";
      req.on("data", (d) => (body += d));
      req.on("end", () => {
        fs.appendFileSync(log, JSON.stringify({ url: req.url, body }) + "\n");
        if (!req.url.startsWith("/v1/messages") || req.url.includes("count_tokens")) {
          res.writeHead(200, { "content-type": "application/json" });
          return res.end(JSON.stringify({ input_tokens: 10 }));
        }
        let j = {};
        try { j = JSON.parse(body); } catch {}
        const n = (j.messages || []).filter((m) => m.role === "assistant").length;
        let step = j.tools && j.tools.length > 3 ? script[n] : undefined;
        if (step && JSON.stringify(step).includes("$BG")) {
          const lastText = JSON.stringify(j.messages ?? []);
          const id = /with ID: ([A-Za-z0-9_-]{5,})/.exec(lastText)?.[1] ?? "none";
          step = JSON.parse(JSON.stringify(step).split("$BG").join(id));
        }
        res.writeHead(200, { "content-type": "text/event-stream" });
        const ev = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
        ev("message_start", { message: { id: "msg_" + n, type: "message", role: "assistant", model: j.model, content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } });
        if (step) {
          const uses = Array.isArray(step) ? step : [step];
          uses.forEach((u, i) => {
            ev("content_block_start", { index: i, content_block: { type: "tool_use", id: `toolu_${n}_${i}`, name: u.name, input: {} } });
            ev("content_block_delta", { index: i, delta: { type: "input_json_delta", partial_json: JSON.stringify(u.input) } });
            ev("content_block_stop", { index: i });
          });
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
    srv.listen(0, "127.0.0.1", () => resolve(srv));
  });
}

function scrub(v, dirs) {
  let s = JSON.stringify(v);
  for (const [from, to] of dirs) s = s.split(from).join(to);
  s = s.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "UUID");
  s = s.replace(/"(durationMs|duration_ms|durationSeconds|mtime|timestamp|elapsed[A-Za-z]*)":\s*[0-9.]+/g, '"$1":0');
  return JSON.parse(s);
}

async function runCase(c) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "ccrec-")));
  const home = path.join(root, "home");
  const proj = path.join(root, "proj");
  fs.mkdirSync(path.join(proj, ".claude"), { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  for (const [f, text] of Object.entries(c.files ?? {})) {
    fs.mkdirSync(path.dirname(path.join(proj, f)), { recursive: true });
    fs.writeFileSync(path.join(proj, f), text);
  }
  fs.writeFileSync(path.join(root, "hook.mjs"), HOOK);
  fs.writeFileSync(path.join(root, "mcp.mjs"), MCP);
  const hookCmd = (ev) => `node ${path.join(root, "hook.mjs")} ${ev}`;
  const events = ["PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "PermissionRequest", "PermissionDenied", ...(c.extraEvents ?? [])];
  const hooks = Object.fromEntries(events.map((e) => [e, [{ matcher: "*", hooks: [{ type: "command", command: hookCmd(e), ...(c.hookFields ?? {}) }] }]]));
  fs.writeFileSync(path.join(proj, ".claude", "settings.json"), JSON.stringify({ hooks: c.settingsHooks ? c.settingsHooks(hookCmd) : hooks, permissions: c.permissions ?? {}, ...(c.settings ?? {}) }, null, 2));
  fs.writeFileSync(path.join(home, ".claude.json"), JSON.stringify({ hasCompletedOnboarding: true, projects: { [proj]: { hasTrustDialogAccepted: true, allowedTools: [] } } }));
  if (c.plugin) {
    const pd = path.join(root, "plugin");
    fs.mkdirSync(path.join(pd, ".claude-plugin"), { recursive: true });
    fs.mkdirSync(path.join(pd, "hooks"), { recursive: true });
    fs.writeFileSync(path.join(pd, ".claude-plugin", "plugin.json"), JSON.stringify({ name: c.plugin }));
    fs.writeFileSync(path.join(pd, "hooks", "hooks.json"), JSON.stringify({ hooks: { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: hookCmd("PluginPreToolUse") + ' "${CLAUDE_PLUGIN_DATA}" "${CLAUDE_PLUGIN_ROOT}"' }] }] } }));
  }
  if (c.mcp) fs.writeFileSync(path.join(proj, ".mcp.json"), JSON.stringify({ mcpServers: c.mcp(root) }));
  const log = path.join(root, "hooks.jsonl");
  const reqs = path.join(root, "requests.jsonl");
  fs.writeFileSync(log, "");
  fs.writeFileSync(reqs, "");
  fs.writeFileSync(path.join(root, "out.json"), JSON.stringify(c.outputs ?? []));
  const fill = (v) => JSON.parse(JSON.stringify(v ?? null).split("$P").join(proj));
  fs.writeFileSync(path.join(root, "out.json"), JSON.stringify(fill(c.outputs ?? [])));
  const srv = await fakeApi(fill(c.script), reqs);
  const args = ["-p", "go", "--output-format", "stream-json", "--verbose", "--permission-mode", c.mode ?? "bypassPermissions", ...(c.plugin ? ["--plugin-dir", path.join(root, "plugin")] : []), ...(c.args ?? ["--tools", "Read,Glob,Grep,Bash,Edit,Write,TaskStop,TaskOutput,NotebookEdit,WebFetch,ToolSearch,LS,MultiEdit"])];
  const env = { PATH: process.env.PATH, HOME: home, ANTHROPIC_BASE_URL: `http://127.0.0.1:${srv.address().port}`, ANTHROPIC_API_KEY: "sk-ant-dummy", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_TELEMETRY: "1", IS_SANDBOX: "1", REC_LOG: log, REC_OUT: path.join(root, "out.json"), ...(c.env ?? {}) };
  const child = spawn(CC, args, { cwd: proj, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  const code = await new Promise((r) => { const t = setTimeout(() => child.kill("SIGKILL"), 120_000); child.on("exit", (x) => { clearTimeout(t); r(x); }); });
  srv.close();
  const requests = fs.readFileSync(reqs, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)).filter((r) => r.url.startsWith("/v1/messages") && !r.url.includes("count_tokens")).map((r) => JSON.parse(r.body)).filter((b) => b.tools && b.tools.length > 3);
  const last = requests[requests.length - 1];
  if (process.env.REC_RAW) fs.writeFileSync(path.join(process.env.REC_RAW, c.name + ".requests.json"), JSON.stringify(requests, null, 1));
  // the model's view: every user message after the first (tool results and the reminders Claude Code adds)
  const modelSaw = (last?.messages ?? []).slice(1).filter((m) => m.role !== "assistant").map((m) => (m.role === "user" ? m.content : { role: m.role, content: m.content }));
  const seenEnv = new Set();
  const hookRuns = fs.readFileSync(log, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)).map((h) => {
    if (seenEnv.has(h.event)) delete h.env;
    else {
      seenEnv.add(h.event);
      for (const k of ["CLAUDE_CODE_MESSAGING_TOKEN", "CLAUDE_PID", "CLAUDE_CODE_MESSAGING_SOCKET"]) if (h.env?.[k]) h.env[k] = "X";
    }
    return h;
  });
  const stream = out.split("\n").filter(Boolean).map((l) => { try { return JSON.parse(l); } catch { return { raw: l }; } });
  const results = stream.filter((e) => e.type === "user").map((e) => ({ content: e.message?.content, tool_use_result: e.tool_use_result, meta: e.tool_result_meta }));
  const files = Object.fromEntries((c.readBack ?? []).map((f) => [f, fs.existsSync(path.join(proj, f)) ? fs.readFileSync(path.join(proj, f), "utf8") : null]));
  const dirs = [[root.replace(/[^A-Za-z0-9]/g, "-"), "-ROOT"], [proj, "/PROJECT"], [home, "/HOME"], [root, "/ROOT"], [fs.realpathSync(os.tmpdir()), "/TMP"], [process.env.USER ?? "root", "USER"]];
  const rec = scrub({ case: c.name, cc: "2.1.328", script: c.script, outputs: c.outputs, exit: code, hooks: hookRuns, modelSaw, results, files, ...(c.keepTools ? { tools: requests[0]?.tools?.map((t) => ({ name: t.name, input_schema: t.input_schema, ...(t.defer_loading ? { defer_loading: true } : {}) })) } : {}) }, dirs);
  if (code !== 0 && !c.allowFail) rec.stderr = err.slice(0, 2000);
  fs.rmSync(root, { recursive: true, force: true });
  return rec;
}

for (const c of CASES) {
  if (only.length && !only.includes(c.name)) continue;
  const rec = await runCase(c);
  fs.writeFileSync(path.join(HERE, `${c.name}.json`), JSON.stringify(rec, null, 2) + "\n");
  console.log(`${c.name}: exit ${rec.exit}, ${rec.hooks.length} hook runs, ${rec.modelSaw.length} model messages`);
}
