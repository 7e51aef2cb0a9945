#!/usr/bin/env node
/**
 * Records Claude Code's own permission decision for every case of the adversarial corpus (./*.jsonl) into
 * ./cc-recordings.json. On demand only, never in CI; Claude Code is not a dependency of the project:
 *
 *   npm i --prefix /work/cache/cc --ignore-scripts @anthropic-ai/claude-code@2.1.328
 *   node test/permissions/cases/record-cc.mjs [--cc /work/cache/cc/node_modules/@anthropic-ai/claude-code-linux-x64/claude]
 *        [--jobs 2] [--only id1,id2] [--keep]
 *
 * How (see ../shared/cc-oracle/README.md): cases with the same settings, mode and file layout share one Claude Code
 * session (`-p --output-format stream-json`) against a scripted Anthropic API on 127.0.0.1 that returns one case's
 * tool_use per assistant turn. The decision is read from each tool result's `permission_decision`; an "ask" is told
 * from a "deny" by `--permission-prompt-tool` pointing at a recording MCP tool (this file run with `--mcp`), which
 * answers deny so an asked call never runs. The stand-in API, the MCP servers and chownR are scripts/conformance/oracle.mjs's,
 * shared with the conformance recorder (npm run conformance:record). Safety: Claude Code's Bash runs through CLAUDE_CODE_SHELL = a fake shell
 * that only logs (so `rm -rf /` in bypassPermissions executes nothing), and as root the whole session runs as
 * `nobody` in a scratch directory, so file tools cannot touch anything outside it either.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { layout, loadCases, substitute } from "./layout.mjs";
import { NOBODY, ORACLE, chownR, fakeApi } from "../../../scripts/conformance/oracle.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));

await main();

function args() {
  const a = process.argv.slice(2);
  const get = (k, d) => (a.includes(k) ? a[a.indexOf(k) + 1] : d);
  return {
    cc: get("--cc", "/work/cache/cc/node_modules/@anthropic-ai/claude-code-linux-x64/claude"),
    jobs: Number(get("--jobs", "2")),
    only: get("--only", "") ? new Set(get("--only").split(",")) : undefined,
    keep: a.includes("--keep"),
    chunk: Number(get("--chunk", "12")),
  };
}

async function main() {
  const opt = args();
  if (!fs.existsSync(opt.cc)) throw new Error(`no Claude Code binary at ${opt.cc} (install it outside the repo, see the header)`);
  const cases = loadCases().filter((c) => !opt.only || opt.only.has(c.id));
  const groups = new Map();
  for (const c of cases) {
    const k = JSON.stringify([c.settings ?? {}, c.mode ?? "default", c.files ?? {}]);
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(c);
  }
  const batches = [];
  for (const g of groups.values()) for (let i = 0; i < g.length; i += opt.chunk) batches.push(g.slice(i, i + opt.chunk));
  const outFile = path.join(here, "cc-recordings.json");
  const prev = fs.existsSync(outFile) ? JSON.parse(fs.readFileSync(outFile, "utf8")) : { version: "", cases: {} };
  const rec = { version: "", recordedAt: new Date().toISOString().slice(0, 10), cases: { ...prev.cases } };
  let done = 0;
  const t0 = Date.now();
  const queue = [...batches];
  const worker = async () => {
    for (let b = queue.shift(); b; b = queue.shift()) {
      const r = await runBatch(opt, b);
      rec.version = r.version || rec.version;
      for (const [id, d] of Object.entries(r.decisions)) rec.cases[id] = d;
      done += b.length;
      process.stderr.write(`\r${done}/${cases.length} cases, ${batches.length} sessions, ${((Date.now() - t0) / 1000).toFixed(0)} s   `);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opt.jobs) }, worker));
  const sorted = Object.fromEntries(Object.entries(rec.cases).sort(([a], [b]) => a.localeCompare(b)));
  fs.writeFileSync(outFile, JSON.stringify({ ...rec, cases: sorted }, null, 1) + "\n");
  process.stderr.write(`\nwrote ${outFile}\n`);
}

async function runBatch(opt, batch) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "cc-rec-")));
  const L = layout(root, batch[0].files ?? {}, batch[0].settings ?? {});
  fs.writeFileSync(path.join(L.home, ".claude.json"), JSON.stringify({ hasCompletedOnboarding: true, projects: { [L.project]: { hasTrustDialogAccepted: true, allowedTools: [] } } }));
  const shell = path.join(root, "fake-shell", "bash");
  fs.mkdirSync(path.dirname(shell));
  fs.writeFileSync(shell, `#!/bin/sh\nprintf '%s\\n' "$*" >> ${root}/shell.log\nexit 0\n`, { mode: 0o755 });
  const promptLog = path.join(root, "prompts.jsonl");
  fs.writeFileSync(promptLog, "");
  const mcp = { mcpServers: Object.fromEntries(["rec", "github", "db", "fs"].map((n) => [n, { command: process.execPath, args: [ORACLE, "--mcp", n, promptLog] }])) };
  fs.writeFileSync(path.join(root, "mcp.json"), JSON.stringify(mcp));
  const steps = batch.map((c, i) => ({ id: `toolu_${String(i).padStart(3, "0")}_${c.id.replace(/[^A-Za-z0-9_-]/g, "_")}`, name: c.tool, input: substitute(c.input, L), case: c.id }));
  const server = await fakeApi(steps);
  const port = server.address().port;
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chownR(root, NOBODY);
  const mode = batch[0].mode ?? "default";
  const argv = ["-p", "go", "--output-format", "stream-json", "--verbose", "--mcp-config", path.join(root, "mcp.json"), "--strict-mcp-config", "--permission-prompt-tool", "mcp__rec__prompt", "--permission-mode", mode, "--max-turns", String(batch.length + 3)];
  const env = { PATH: process.env.PATH, HOME: L.home, ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`, ANTHROPIC_API_KEY: "sk-ant-dummy", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_TELEMETRY: "1", DISABLE_AUTOUPDATER: "1", ENABLE_TOOL_SEARCH: "false", CLAUDE_CODE_SHELL: shell, SHELL: shell, IS_SANDBOX: "1", TMPDIR: path.join(root, "tmp") };
  fs.mkdirSync(env.TMPDIR, { recursive: true });
  if (asRoot) fs.chownSync(env.TMPDIR, NOBODY, NOBODY);
  const out = await new Promise((resolve) => {
    const p = spawn(opt.cc, argv, { cwd: L.project, env, stdio: ["ignore", "pipe", "pipe"], ...(asRoot ? { uid: NOBODY, gid: NOBODY } : {}) });
    let so = "", se = "";
    p.stdout.on("data", (d) => (so += d));
    p.stderr.on("data", (d) => (se += d));
    const timer = setTimeout(() => p.kill("SIGKILL"), 60_000 + 8_000 * batch.length);
    p.on("close", (code) => { clearTimeout(timer); resolve({ so, se, code }); });
  });
  server.close();
  const prompts = fs.readFileSync(promptLog, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const r = parse(out.so, steps, prompts);
  if (opt.keep || process.env.RECORD_DEBUG) fs.writeFileSync(path.join(root, "stream.jsonl"), out.so + "\n--stderr--\n" + out.se);
  else fs.rmSync(root, { recursive: true, force: true });
  return r;
}

/** Decision per case: "ask" when the prompt tool was asked; else the tool result's permission_decision (accept → allow, reject → deny). */
function parse(stream, steps, prompts) {
  const byId = new Map(steps.map((s) => [s.id, s]));
  const decisions = {};
  let version = "";
  const asked = new Set(prompts.map((p) => p.tool_use_id));
  for (const line of stream.split("\n")) {
    let m;
    try { m = JSON.parse(line); } catch { continue; }
    if (m.type === "system" && m.subtype === "init") version = m.claude_code_version ?? version;
    if (m.type !== "user" || !Array.isArray(m.message?.content)) continue;
    for (const b of m.message.content) {
      if (b.type !== "tool_result" || !byId.has(b.tool_use_id)) continue;
      const meta = Array.isArray(m.tool_result_meta) ? m.tool_result_meta.find((x) => x.id === b.tool_use_id) : m.tool_result_meta;
      const pd = meta?.permission_decision;
      const text = typeof b.content === "string" ? b.content : JSON.stringify(b.content);
      let decision;
      if (asked.has(b.tool_use_id)) decision = "ask";
      else if (pd?.decision === "accept") decision = "allow";
      else if (pd?.decision === "reject") decision = "deny";
      else if (!b.is_error) decision = "allow";
      else decision = classifyError(text);
      decisions[byId.get(b.tool_use_id).case] = { decision, source: pd?.source ?? (decision === "deny" ? "tool-removed" : undefined), reason: text.slice(0, 160) };
    }
  }
  for (const s of steps) decisions[s.case] ??= { decision: "none", reason: "no tool result in the stream" };
  return { decisions, version };
}

/**
 * A tool result with no permission decision. Claude Code removes a tool from the session when a bare deny rule names
 * it (`Read`, `mcp__github`): the model cannot call it at all, which is a deny. This version has no Grep and Glob
 * tools (it searches through Bash), and Write refuses an existing file not read first: those cases are "n/a".
 */
function classifyError(text) {
  const m = /No such tool available: (\w+)/.exec(text);
  if (m && (m[1] === "Grep" || m[1] === "Glob")) return "n/a";
  if (m) return "deny";
  if (/has not been read yet/.test(text)) return "n/a";
  return "error";
}
