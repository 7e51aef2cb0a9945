#!/usr/bin/env node
/**
 * `npm run conformance:record [-- --only id1,id2] [--jobs 2] [--keep]`: records what Claude Code 2.1.328 does with
 * every conformance case (test/conformance/cases.mjs) into test/conformance/recordings/<id>.json — the `tools` array
 * it sent, each hook's stdin and environment, each tool_result the model saw, each permission decision, the files
 * changed. Claude Code is installed on demand into $TOOLHOST_CC_CACHE (default /work/cache/cc); it is never a
 * dependency and never runs in CI: CI only replays the recordings (test/conformance/replay.test.ts).
 *
 * Each case is one `claude -p` session against the scripted Anthropic API on 127.0.0.1 (one tool_use per assistant
 * turn), as `nobody` when we are root, in a scratch directory. An "ask" is told from a deny by
 * `--permission-prompt-tool` pointing at a recording MCP tool that answers deny. Cases with managed settings install
 * them as /etc/claude-code/managed-settings.json for their run (one at a time, root only) and restore what was there.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { CC_VERSION, ORACLE, ensureClaude, fakeApi, oracleEnv, runClaude, streamLines } from "./oracle.mjs";
import { CASES } from "../../test/conformance/cases.mjs";
import { RECORDINGS, buildLayout, fileChanges, readHookLog, resultText, scrub, snapshot, stepId, substitute } from "../../test/conformance/layout.mjs";

const argv = process.argv.slice(2);
const opt = (k, d) => (argv.includes(k) ? argv[argv.indexOf(k) + 1] : d);
const only = opt("--only", "") ? new Set(opt("--only").split(",")) : undefined;
const keep = argv.includes("--keep");
const jobs = Math.max(1, Number(opt("--jobs", "2")));

async function recordCase(bin, c) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "conf-rec-")));
  const L = buildLayout(root, c);
  const promptLog = path.join(root, "prompts.jsonl");
  fs.writeFileSync(promptLog, "");
  fs.writeFileSync(path.join(root, "mcp.json"), JSON.stringify({ mcpServers: { rec: { command: process.execPath, args: [ORACLE, "--mcp", "rec", promptLog] } } }));
  const steps = c.steps.map((s, i) => ({ id: stepId(i), name: s.name, input: substitute(s.input, L) }));
  const hidden = new Set(c.steps.flatMap((s, i) => (s.oracleOnly ? [stepId(i)] : [])));
  const server = await fakeApi(steps);
  const env = oracleEnv(server.address().port, { HOME: L.home, TMPDIR: path.join(root, "tmp"), ...substitute(c.env ?? {}, L) });
  // noPromptTool: nobody can be asked (-p without --permission-prompt-tool), as a headless client without onAsk.
  const prompt = c.noPromptTool ? [] : ["--permission-prompt-tool", "mcp__rec__prompt"];
  const args = ["-p", "go", "--output-format", "stream-json", "--verbose", "--mcp-config", path.join(root, "mcp.json"), ...prompt, "--permission-mode", c.mode ?? "default", "--max-turns", String(c.maxTurns ?? steps.length + 3)];
  for (const p of L.plugins) args.push("--plugin-dir", p);
  if (L.cliSettings) args.push("--settings", L.cliSettings);
  const before = snapshot(L.project);
  const out = await withManagedSettings(L, () => runClaude(bin, args, { cwd: L.project, env, root, timeoutMs: 60_000 + 10_000 * steps.length }));
  server.close();
  const lines = streamLines(out.stdout);
  const version = lines.find((m) => m.type === "system" && m.subtype === "init")?.claude_code_version ?? "";
  const obs = {
    claudeCode: version,
    case: c.id,
    ...(c.tools ? { tools: toolsArray(server.requests).filter((t) => c.tools === true || c.tools.includes(t.name)) } : {}),
    sessionContext: sessionContext(server.requests),
    steps: observeSteps(steps, server.requests, lines, promptLog).filter((s) => !hidden.has(s.id)),
    hooks: readHookLog(L, env).filter((h) => !hidden.has(h.stdin?.tool_use_id ?? h.stdin?.tool_calls?.[0]?.tool_use_id)),
    files: fileChanges(before, snapshot(L.project)),
  };
  if (keep) {
    fs.writeFileSync(path.join(root, "stream.jsonl"), out.stdout + "\n--stderr--\n" + out.stderr);
    fs.writeFileSync(path.join(root, "requests.json"), JSON.stringify(server.requests, null, 1));
    process.stderr.write(`kept ${root}\n`);
  }
  else fs.rmSync(root, { recursive: true, force: true });
  if (version !== CC_VERSION) throw new Error(`${c.id}: Claude Code said version "${version}" (exit ${out.code}): ${out.stderr.slice(0, 400)}`);
  return scrub(obs, L);
}

/** Claude Code's managed settings folder on Linux: system-wide, so a case that has managed settings runs alone. */
const MANAGED_DIR = "/etc/claude-code";
const hasManaged = (c) => !!(c.settings?.managed || c.hooks?.some((h) => h.where === "managed"));

/**
 * Run `fn` with the case's managed-settings.json installed as /etc/claude-code/managed-settings.json (readable by
 * the session's user), then put back whatever /etc/claude-code held (moved aside for the run, so its
 * managed-settings.d drop-ins do not mix in either). Needs root, as the recorder runs when it records as nobody.
 */
async function withManagedSettings(L, fn) {
  const file = path.join(L.managedDir, "managed-settings.json");
  if (!fs.existsSync(file)) return fn();
  const aside = `${MANAGED_DIR}.conformance-${process.pid}`;
  const had = fs.existsSync(MANAGED_DIR);
  if (had) fs.renameSync(MANAGED_DIR, aside);
  const restore = () => {
    fs.rmSync(MANAGED_DIR, { recursive: true, force: true });
    if (had) fs.renameSync(aside, MANAGED_DIR);
  };
  // Interrupted mid-run: put the folder back, then exit as an interrupted process does.
  const onSigint = () => {
    restore();
    process.exit(130);
  };
  process.once("SIGINT", onSigint);
  try {
    fs.mkdirSync(MANAGED_DIR, { mode: 0o755 });
    fs.copyFileSync(file, path.join(MANAGED_DIR, "managed-settings.json"));
    fs.chmodSync(path.join(MANAGED_DIR, "managed-settings.json"), 0o644);
    return await fn();
  } finally {
    process.off("SIGINT", onSigint);
    restore();
  }
}

/** The tools array of the first request that carries one: name, description, input_schema, defer_loading. */
function toolsArray(requests) {
  const r = requests.find((x) => Array.isArray(x.tools));
  return (r?.tools ?? []).map((t) => ({ name: t.name, description: t.description, input_schema: t.input_schema, ...(t.defer_loading ? { defer_loading: true } : {}) }));
}

/** What session hooks (SessionStart, UserPromptSubmit) added for the model: "<Event> hook additional context: …" in the first request. */
function sessionContext(requests) {
  const first = requests.find((x) => Array.isArray(x.tools));
  const texts = (first?.messages ?? []).map((m) => resultText(m.content));
  // "<Event> hook additional context: …" blocks, each up to the next such block or Claude Code's "# Environment" block.
  return texts.flatMap((t) => {
    const at = t.search(/^\w+ hook additional context: /m);
    if (at < 0) return [];
    const body = t.slice(at).split(/\n\n# Environment\n/)[0];
    return body.split(/\n\n(?=\w+ hook additional context: )/).map((x) => x.trimEnd());
  });
}

/**
 * Per step: what the model saw (the tool_result's text, is_error, and any other text blocks of that user message,
 * e.g. hook context) and Claude Code's permission decision ("ask" when the prompt tool was asked).
 */
function observeSteps(steps, requests, lines, promptLog) {
  const seen = new Map();
  for (const r of requests) {
    const msgs = r.messages ?? [];
    msgs.forEach((m, i) => {
      const tr = m.role === "user" && Array.isArray(m.content) ? m.content.find((b) => b.type === "tool_result") : undefined;
      if (!tr) return;
      // Hook feedback reaches the model beside the result: text blocks of the same message, then system messages.
      const extra = m.content.filter((b) => b !== tr && b.type === "text").map((b) => b.text);
      for (let j = i + 1; j < msgs.length && msgs[j].role !== "assistant"; j++) extra.push(resultText(msgs[j].content));
      // Only what hooks said: Claude Code's own reminders ("The user hasn't heard from you …") depend on timing.
      const context = extra.filter((t) => /hook/i.test(t));
      seen.set(tr.tool_use_id, { content: resultText(tr.content), is_error: !!tr.is_error, ...(context.length ? { context } : {}) });
    });
  }
  const meta = new Map();
  for (const m of lines) {
    if (m.type !== "user" || !m.tool_result_meta) continue;
    for (const x of [m.tool_result_meta].flat()) if (x?.id) meta.set(x.id, x);
  }
  const asked = new Set(fs.readFileSync(promptLog, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l).tool_use_id));
  return steps.map((s) => {
    const pd = meta.get(s.id)?.permission_decision;
    const result = seen.get(s.id) ?? null;
    const decision = !result ? "none" : asked.has(s.id) ? "ask" : pd?.decision === "reject" ? "deny" : /No such tool available/.test(result.content) ? "unknown-tool" : "allow";
    // The source of an allow is kept only when a hook decided it (toolhost has no "config"/"rule" distinction for
    // allows); a call whose result the model never saw (the run stopped) has none.
    const source = pd?.source && decision !== "none" && (decision !== "allow" || pd.source === "hook") ? pd.source : undefined;
    return { id: s.id, name: s.name, input: s.input, decision, ...(source ? { source } : {}), result };
  });
}

async function main() {
  const bin = ensureClaude();
  let cases = CASES.filter((c) => !only || only.has(c.id));
  const managed = cases.filter(hasManaged);
  if (managed.length && process.getuid?.() !== 0) {
    process.stderr.write(`skipping ${managed.map((c) => c.id).join(", ")}: recording managed settings writes ${MANAGED_DIR} (run as root)\n`);
    cases = cases.filter((c) => !hasManaged(c));
  }
  fs.mkdirSync(RECORDINGS, { recursive: true });
  // Managed settings are system-wide: those cases run one at a time, after the others.
  const queue = cases.filter((c) => !hasManaged(c));
  const serial = cases.filter(hasManaged);
  let done = 0;
  const t0 = Date.now();
  const worker = async () => {
    for (let c = queue.shift(); c; c = queue.shift()) {
      const rec = await recordCase(bin, c);
      fs.writeFileSync(path.join(RECORDINGS, `${c.id}.json`), JSON.stringify({ recorded: new Date().toISOString().slice(0, 10), about: c.about, ...rec }, null, 1) + "\n");
      process.stderr.write(`\r${++done}/${cases.length} cases, ${((Date.now() - t0) / 1000).toFixed(0)} s   `);
    }
  };
  await Promise.all(Array.from({ length: jobs }, worker));
  queue.push(...serial);
  await worker();
  process.stderr.write(`\nwrote ${cases.length} recordings to ${path.relative(process.cwd(), RECORDINGS)}\n`);
}

await main();
