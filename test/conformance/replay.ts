/**
 * Replay one conformance case through toolhost: the same scratch layout as the recording (settings layers, hooks as
 * real child processes running the same recording hook, plugin directories, .mcp.json), one createHost, every step
 * as one model turn (a batch of one call, so PostToolBatch fires after each turn as Claude Code fires it), then the
 * same observation Claude Code's recording holds, scrubbed the same way.
 */
import fs from "node:fs";
import path from "node:path";
import { createHost, type ExecuteOutcome } from "../../core/index.ts";
import { toAnthropicTools } from "../../plugins/tool-search/adapters.ts";
import { tmpdir } from "../helpers.ts";
import type { Observation } from "./compare.ts";
import { buildLayout, fileChanges, readHookLog, resultText, scrub, snapshot, stepId, substitute } from "./layout.mjs";

export interface ConformanceCase {
  id: string;
  about: string;
  steps: { name: string; input: unknown; oracleOnly?: boolean }[];
  tools?: boolean | string[];
  mode?: string;
  [k: string]: unknown;
}

const SESSION = "conformance-session";
/** Variables of a case's `env` that toolhost reads as Claude Code does, set for its replay. */
const PASS_ENV = ["CLAUDE_CODE_EFFORT_LEVEL", "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP"];

/**
 * The permission decision as Claude Code's stream reports it: an asked call answered "deny" by the prompt tool is
 * {ask, user_reject}; a PreToolUse hook's own allow/deny carries source "hook"; other denies "config".
 */
function decisionOf(o: ExecuteOutcome, asked: boolean): { decision: string; source?: string } {
  if (o.status === "unknown-tool") return { decision: "unknown-tool" };
  // Refused before any permission decision (schema, the tool's own validation): Claude Code's stream reports no
  // reject for it either, which the recorder reads as "allow" (a hook's ill-typed rewrite is Claude Code's deny).
  if (o.status === "invalid-input" && !o.trace.some((t) => t.stage === "preToolUse.updateInput")) return { decision: "allow" };
  if (asked || o.status === "not-approved") return { decision: "ask", source: "user_reject" };
  const decision = o.decision === "deny" || o.status === "denied" ? "deny" : "allow";
  const byHook = o.trace.some((t) => t.stage === "hook.PreToolUse" && t.outcome === decision);
  if (decision === "deny") return { decision, source: byHook ? "hook" : "config" };
  return { decision, ...(byHook ? { source: "hook" } : {}) };
}

/**
 * The session's start, as Claude Code runs it before the first model turn (host.event): SessionStart, then
 * UserPromptSubmit with the recorder's prompt ("go"), and the context they add ("<Event> hook additional context: …").
 */
async function startSession(host: Awaited<ReturnType<typeof createHost>>): Promise<string[]> {
  const start = await host.event("SessionStart", { source: "startup" }, { sessionId: SESSION });
  const prompt = await host.event("UserPromptSubmit", { prompt: "go" }, { sessionId: SESSION });
  // Read as the recorder reads Claude Code's first request (scripts/conformance/record.mjs sessionContext): the
  // "additional context" items.
  return [...start.context, ...prompt.context].filter((t) => /^\w+ hook additional context: /.test(t));
}

/**
 * The run's end as Claude Code's -p run ends it: Stop after the model's last answer ("done") — while a Stop hook
 * blocks, the model answers again and Stop runs again (toolhost sets stop_hook_active and caps the blocks) — then
 * SessionEnd.
 */
async function endSession(host: Awaited<ReturnType<typeof createHost>>, stopped: boolean): Promise<void> {
  for (let i = 0; !stopped && i < 50; i++) if (!(await host.event("Stop", { lastAssistantMessage: "done" }, { sessionId: SESSION })).blocked) break;
  await host.event("SessionEnd", { reason: "other" }, { sessionId: SESSION });
}

export async function replayCase(c: ConformanceCase): Promise<Observation> {
  const root = tmpdir("conf-replay-");
  const L = buildLayout(root, c);
  const caseEnv = substitute(c.env ?? {}, L) as Record<string, string>;
  const saved: Record<string, string | undefined> = { HOME: process.env.HOME, CLAUDE_CONFIG_DIR: process.env.CLAUDE_CONFIG_DIR };
  for (const k of PASS_ENV) saved[k] = process.env[k];
  // User-level settings live in the scratch HOME, as in the recording (~/.claude/settings.json, or the case's
  // CLAUDE_CONFIG_DIR); the case's Claude Code variables toolhost reads too are set as the recorder set them.
  process.env.HOME = L.home;
  process.env.CLAUDE_CONFIG_DIR = caseEnv.CLAUDE_CONFIG_DIR ?? path.join(L.home, ".claude");
  for (const k of PASS_ENV) if (caseEnv[k] !== undefined) process.env[k] = caseEnv[k];
  else delete process.env[k];
  const baseEnv = { ...process.env } as Record<string, string>;
  let current = "";
  const asked = new Set<string>();
  const host = await createHost({
    cwd: L.project,
    pluginDirs: L.plugins,
    mode: c.mode ?? "default",
    trustWorkspace: true,
    ...(L.cliSettings ? { settings: L.cliSettings } : {}),
    // The case's managed settings (the recorder installed them as /etc/claude-code/managed-settings.json); a case
    // without any reads an empty folder, never this machine's.
    managedSettingsDir: L.managedDir,
    // The recorder's permission prompt tool answers every ask "deny"; a case recorded without one (noPromptTool) has
    // nobody to ask, as a headless embedder without onAsk.
    ...(c.noPromptTool
      ? {}
      : {
          onAsk: () => {
            asked.add(current);
            return { behavior: "deny" as const, message: "recorded as ask" };
          },
        }),
  });
  try {
    const before = snapshot(L.project);
    const sessionContext = await startSession(host);
    const obs: Observation = { sessionContext, steps: [], hooks: [], files: {} };
    const wanted = c.tools;
    if (wanted) obs.tools = toAnthropicTools(host).filter((t) => wanted === true || wanted.includes(t.name)).map((t) => ({ name: t.name, description: t.description, input_schema: t.input_schema, ...(t.defer_loading ? { defer_loading: true } : {}) }));
    let stopped = false;
    for (const [i, s] of c.steps.entries()) {
      if (s.oracleOnly) continue;
      current = stepId(i);
      // A hook stopped the run (ExecuteOutcome.stop, Claude Code's continue: false): the model sees no more results.
      if (stopped) {
        obs.steps.push({ id: current, name: s.name, input: substitute(s.input, L), decision: "none", result: null });
        continue;
      }
      const input = substitute(s.input, L);
      // Claude Code with tool search off loads every tool eagerly: a deferred toolhost tool is then called by name.
      const autoLoadDeferred = (c.env as Record<string, string> | undefined)?.ENABLE_TOOL_SEARCH === "false";
      const [o] = await host.executeBatch([{ name: s.name, input, toolUseId: current }], { sessionId: SESSION, source: "model", autoLoadDeferred });
      const r = o!.result;
      // A hook stopped the run (continue: false …): the model never sees this result nor makes another call (Claude Code).
      // Claude Code's -p run goes on after a PermissionRequest `interrupt: true` (recorded: permission-request-deny-interrupt),
      // so the replay, like a -p agent, ends only on the other stops; ExecuteOutcome.stop still reports the interrupt.
      const stop = !!o!.stop && o!.stop.kind !== "interrupt";
      if (stop) obs.steps.push({ id: current, name: s.name, input, decision: "none", result: null });
      else obs.steps.push({ id: current, name: s.name, input, ...decisionOf(o!, asked.has(current)), result: { content: resultText(r.content), is_error: !!r.isError } });
      stopped ||= stop;
    }
    await endSession(host, stopped);
    obs.hooks = readHookLog(L, baseEnv) as Observation["hooks"];
    obs.files = fileChanges(before, snapshot(L.project));
    return scrub(obs, { ...L, toolhostHome: process.env.TOOLHOST_HOME }) as Observation;
  } finally {
    await host.close();
    for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
    else process.env[k] = v;
    fs.rmSync(root, { recursive: true, force: true });
  }
}
