/**
 * Bash (+ TaskOutput / TaskStop for background runs). Each command runs in the working directory via
 * `bash -c` (or `sh -c`) in its own process group, so a timeout or an abort kills the whole pipeline.
 * Output is kept bounded in memory (head + tail); beyond the in-memory head it is also streamed to a file
 * as it arrives, so `meta.fullOutputPath` holds the whole output however long (the shaping plugin's note
 * points at it when it applies the model budget; `meta.fullOutputError` says why it could not be saved).
 */
import fs from "node:fs";
import path from "node:path";
import { defineTool, type ToolCallContext, type ToolResult } from "../../core/index.ts";
import { isInside } from "../../lib/fs-path.ts";
import { askRemoteTask } from "../../lib/session-store/types.ts";
import { isReadOnlyCommand as readOnlyCommandLine, isReadOnlyInside } from "../../lib/rules/readonly.ts";
import { bashFromResponse, noOutputExpected, taskStopFromResponse } from "./cc-response.ts";
import { withSessionEnv } from "./session-env.ts";
import { OutputRing, Spool, killGroup, lookup, nextId, ownedIds, registry, saveFullOutput, spawnShell, spillFile, waitFor, type ManagedProc } from "./procs.ts";

export const DEFAULT_TIMEOUT_MS = 120_000;
export const MAX_TIMEOUT_MS = 600_000;

interface BashInput {
  command: string;
  description?: string;
  timeout?: number;
  run_in_background?: boolean;
  /** Accepted as Claude Code accepts it; toolhost has no sandbox, so it changes nothing (echoed in tool_response). */
  dangerouslyDisableSandbox?: boolean;
}

/** Claude Code's timeout: any number; clamped to 1…600000 ms and rounded (Claude Code takes 700000 and 1500.5). */
export function clampTimeout(t: number | undefined): number {
  if (t === undefined || !Number.isFinite(t)) return DEFAULT_TIMEOUT_MS;
  return Math.min(MAX_TIMEOUT_MS, Math.max(1, Math.round(t)));
}

/** Bash's tool_response in Claude Code's shape. */
function ccBashResponse(input: BashInput, stdout: string, stderr: string, interrupted: boolean, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    stdout: stdout.replace(/\n+$/, ""),
    stderr: stderr.replace(/\n+$/, ""),
    interrupted,
    isImage: false,
    noOutputExpected: !input.run_in_background && noOutputExpected(input.command),
    ...extra,
    ...(input.dangerouslyDisableSandbox ? { dangerouslyDisableSandbox: true } : {}),
  };
}

/** Read-only per the shell parser (lib/rules), the same answer the permissions plugin gives. */
export function isReadOnlyCommand(command: unknown): boolean {
  return readOnlyCommandLine(command);
}

const DESTRUCTIVE = /(^|[;&|]\s*)(sudo\s+)?(rm|rmdir|shred|dd|mkfs(\.\w+)?|truncate|wipefs)\b|\bgit\s+(reset\s+--hard|clean\s+-\w*f|push\s+(-f|--force)|checkout\s+--\s|branch\s+-D)|(^|[^>&0-9])>(?!>|&)\s*[^&\s]/;

/** Whether a command is likely to destroy data (rm, dd, git reset --hard, push --force, `>` truncation …). */
export function isDestructiveCommand(command: unknown): boolean {
  return typeof command === "string" && DESTRUCTIVE.test(command);
}

/** Exit codes that mean "no" rather than "failed" (Claude Code interprets these the same way). */
function benignExit(command: string, code: number): boolean {
  if (code !== 1) return false;
  const first = command.trim().split(/\s+/)[0] ?? "";
  return ["grep", "egrep", "fgrep", "rg", "diff", "cmp", "test", "[", "find"].includes(first) && !/[|;&]/.test(command);
}

function owner(ctx: ToolCallContext): object {
  return ctx.sessionState ?? ctx.state;
}

/** Session-wide state key (Session.shared) holding the Bash shell's current directory (private: others read the workingDirectory facet). */
const SHELL_CWD_KEY = "builtin-tools:bashCwd";
const CWD_KEY = SHELL_CWD_KEY;

/**
 * Whether `cd` carries over between Bash calls: on by default (as in Claude Code);
 * TOOLHOST_BASH_PERSIST_CWD=0 turns it off. Bash's workingDirectory facet reports it, so rules check
 * relative paths in a later command where they really land.
 */
export function persistCwd(): boolean {
  return process.env.TOOLHOST_BASH_PERSIST_CWD !== "0";
}

/**
 * The shell's working directory for this session: `cd` carries over between Bash calls (as in Claude
 * Code) as long as it stays inside the host's working directory; otherwise it is reset to it.
 */
export function shellCwd(ctx: Pick<ToolCallContext, "sessionState" | "state" | "cwd">): string {
  if (!persistCwd()) return ctx.cwd;
  const store = ctx.sessionState ?? ctx.state;
  const c = store.get(CWD_KEY);
  return typeof c === "string" && fs.existsSync(c) ? c : ctx.cwd;
}

function formatOutput(stdout: string, stderr: string, notes: string[]): string {
  const parts: string[] = [];
  if (stdout.trim()) parts.push(stdout.replace(/\n+$/, ""));
  if (stderr.trim()) parts.push(stderr.replace(/\n+$/, ""));
  parts.push(...notes);
  return parts.join("\n") || "(no output)";
}

/** Background tasks kept per session; beyond it the oldest finished (then oldest running) are dropped. */
export const MAX_BACKGROUND = 64;

function startBackground(input: BashInput, ctx: ToolCallContext): ToolResult {
  const mine = [...registry().procs.values()].filter((p) => p.kind === "bash" && p.owner === owner(ctx));
  if (mine.length >= MAX_BACKGROUND) {
    mine.sort((a, b) => Number(b.done) - Number(a.done) || a.startedAt - b.startedAt);
    for (const p of mine.slice(0, mine.length - MAX_BACKGROUND + 1)) {
      if (!p.done) p.kill();
      registry().procs.delete(p.id);
    }
  }
  const child = spawnShell(withSessionEnv(input.command, ctx), shellCwd(ctx), { mergeStderr: true });
  const id = nextId("bash_");
  let resolveExit!: () => void;
  const p: ManagedProc = {
    id,
    kind: "bash",
    command: input.command,
    cwd: ctx.cwd,
    sessionId: ctx.sessionId,
    owner: owner(ctx),
    pid: child.pid,
    startedAt: Date.now(),
    exitCode: null,
    signal: null,
    done: false,
    killed: false,
    out: new OutputRing(),
    err: new OutputRing(),
    outCursor: 0,
    errCursor: 0,
    exited: new Promise<void>((r) => (resolveExit = r)),
    kill: () => {
      p.killed = true;
      killGroup(child.pid);
    },
    listeners: new Set(),
  };
  const notify = () => p.listeners.forEach((l) => l());
  child.stdout!.setEncoding("utf8").on("data", (s: string) => (p.out.push(s), notify()));
  child.stderr!.setEncoding("utf8").on("data", (s: string) => (p.err.push(s), notify()));
  child.on("error", (e) => {
    p.err.push(`failed to start: ${e.message}\n`);
  });
  child.on("close", (code, sig) => {
    p.exitCode = code;
    p.signal = sig;
    p.done = true;
    resolveExit();
    notify();
  });
  registry().procs.set(id, p);
  const meta = { backgroundTaskId: id, stdout: "", stderr: "", exitCode: null, interrupted: false, isImage: false };
  return {
    content: [{ type: "text", text: `Command running in background with ID: ${id}. Read its output with TaskOutput {"task_id": "${id}"}; stop it with TaskStop {"task_id": "${id}"}.` }],
    meta,
    structuredContent: meta,
    toolResponse: ccBashResponse(input, "", "", false, { backgroundTaskId: id }),
  };
}

export const Bash = defineTool<BashInput>({
  name: "Bash",
  description:
    "When you need to run a shell command: build, test, lint, git, package managers, or any program, in the working directory (prefer Read, Glob, Grep, Edit and Write for reading, finding and changing files). " +
    "Runs `command` with bash -c (sh if bash is missing) in its own process group, with a timeout (default 120000 ms, at most 600000) after which the whole group is killed; returns its output (stdout and stderr together, in the order they were written, as in Claude Code) and a non-zero exit code. " + (persistCwd() ? "A `cd` carries over to later calls while it stays inside the working directory; environment variables do not." : "Each call starts in the working directory (a `cd` does not carry over; use `cd dir && command`).") + " With run_in_background it returns an id at once; read the output later with TaskOutput and stop it with TaskStop. Very long output keeps its beginning and end. " +
    "Why: commands run with a bounded time and output, so a hung or noisy command cannot stall the session.",
  searchHint: "shell terminal command run execute script sh",
  inputSchema: {
    type: "object",
    properties: {
      command: { type: "string", description: "The command to run." },
      description: { type: "string", description: "What the command does, in 5-10 words (shown to the user)." },
      timeout: { type: "number", description: "Timeout in milliseconds (default 120000; larger values are cut to 600000; no effect with run_in_background)." },
      run_in_background: { type: "boolean", description: "Run in the background and return an id at once; use TaskOutput to read the output later." },
      dangerouslyDisableSandbox: { type: "boolean", description: "Accepted for Claude Code compatibility; toolhost runs commands without a sandbox, so it changes nothing." },
    },
    required: ["command"],
    additionalProperties: false,
  },
  isReadOnly: (input) => isReadOnlyCommand(input?.command),
  isConcurrencySafe: (input) => isReadOnlyCommand(input?.command),
  isDestructive: (input) => isDestructiveCommand(input?.command),
  interruptBehavior: "cancel",
  activityText: "Running",
  workingDirectory: (input, ctx) => shellCwd({ ...ctx, state: ctx.sessionState }),
  checkPermissions: (input, ctx) =>
    !input.run_in_background && isReadOnlyInside(input.command, ctx.cwd) ? { behavior: "allow", reason: "read-only command inside the working directory" } : undefined,
  async call(input, ctx): Promise<ToolResult> {
    if (input.run_in_background) return startBackground(input, ctx);
    const timeout = clampTimeout(input.timeout);
    const t0 = performance.now();
    const startCwd = shellCwd(ctx);
    const out = new Spool(spillFile(ctx.sessionId, ctx.toolUseId));
    const err = new Spool(spillFile(ctx.sessionId, ctx.toolUseId, ".stderr.txt"));
    const run = await runForeground(withSessionEnv(input.command, ctx), startCwd, timeout, ctx.signal, out, err);
    const cwdNote = carryCwd(ctx, startCwd, run.endCwd);
    const exitCode = run.code ?? (run.sig ? 128 + (({ SIGTERM: 15, SIGKILL: 9, SIGINT: 2 }) as Record<string, number>)[run.sig]! || 1 : 1);
    const notes: string[] = [];
    if (run.spawnError) notes.push(`Failed to start the shell: ${run.spawnError}`);
    if (run.interrupted === "timeout") notes.push(`Command timed out after ${timeout} ms and was killed (with its process group). Use a longer timeout (max ${MAX_TIMEOUT_MS}) or run_in_background for long jobs.`);
    if (run.interrupted === "abort") notes.push("Command was interrupted and killed.");
    if (cwdNote) notes.push(cwdNote);
    if (!run.interrupted && exitCode !== 0) notes.push(`Exit code ${exitCode}`);
    const saved = saveFullOutput(out, err, notes);
    const where = saved.path ? `; the full output is in ${saved.path}` : saved.error ? `; the full output could not be saved: ${saved.error}` : "";
    const stdout = out.mem.toString(where);
    const stderr = err.mem.toString(where);
    const full = saved.path ? { fullOutputPath: saved.path, fullOutputChars: saved.chars } : saved.error ? { fullOutputError: saved.error } : {};
    const meta = { stdout, stderr, exitCode, interrupted: !!run.interrupted, isImage: false, durationMs: Math.round(performance.now() - t0), ...full };
    const failed = !!run.interrupted || !!run.spawnError || (exitCode !== 0 && !benignExit(input.command, exitCode));
    const toolResponse = ccBashResponse(input, stdout, stderr, !!run.interrupted);
    return { content: [{ type: "text", text: formatOutput(stdout, stderr, notes) }], isError: failed, meta, structuredContent: meta, toolResponse };
  },
  fromToolResponse: (r) => bashFromResponse(r),
});

interface ForegroundRun {
  code: number | null;
  sig: string | null;
  spawnError?: string;
  interrupted?: "timeout" | "abort";
  endCwd: string;
}

/** Run a command in its own process group until it exits (not until a backgrounded grandchild closes the pipes). */
async function runForeground(command: string, cwd: string, timeout: number, signal: AbortSignal, out: Spool, err: Spool): Promise<ForegroundRun> {
  const child = spawnShell(command, cwd, { cwdPipe: persistCwd(), mergeStderr: true });
  let endCwd = "";
  (child.stdio[3] as NodeJS.ReadableStream | undefined)?.setEncoding("utf8").on("data", (s: string) => (endCwd += s));
  child.stdout!.setEncoding("utf8").on("data", (s: string) => out.push(s));
  child.stderr!.setEncoding("utf8").on("data", (s: string) => err.push(s));
  let interrupted: "timeout" | "abort" | undefined;
  const stop = (why: "timeout" | "abort") => {
    if (interrupted) return;
    interrupted = why;
    killGroup(child.pid, 500);
  };
  const timer = setTimeout(() => stop("timeout"), timeout);
  const onAbort = () => stop("abort");
  signal.addEventListener("abort", onAbort, { once: true });
  const r = await new Promise<{ code: number | null; sig: string | null; spawnError?: string }>((resolve) => {
    let exited: { code: number | null; sig: string | null } | undefined;
    child.on("error", (e) => resolve({ code: null, sig: null, spawnError: e.message }));
    child.on("close", (c, s) => resolve(exited ?? { code: c, sig: s }));
    child.on("exit", (c, s) => {
      exited = { code: c, sig: s };
      // a backgrounded grandchild may hold the pipes open: do not wait for it
      setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        resolve(exited!);
      }, 250).unref();
    });
  });
  clearTimeout(timer);
  signal.removeEventListener("abort", onAbort);
  (child.stdio[3] as (NodeJS.ReadableStream & { destroy(): void }) | undefined)?.destroy();
  return { ...r, interrupted, endCwd };
}

/** Keep the shell's final directory for the next call while it stays inside the working directory. */
function carryCwd(ctx: ToolCallContext, startCwd: string, endCwd: string): string | undefined {
  const reported = endCwd.trim();
  if (!reported || reported === startCwd) return undefined;
  const store = ctx.sessionState ?? ctx.state;
  if (isInside(reported, ctx.cwd) || isInside(reported, fs.realpathSync(ctx.cwd))) {
    store.set(CWD_KEY, reported);
    return undefined;
  }
  store.delete(CWD_KEY);
  return `Shell cwd was reset to ${ctx.cwd} (the command left the working directory; cd only carries over inside it).`;
}

interface TaskOutputInput {
  task_id?: string;
  bash_id?: string;
  block?: boolean;
  timeout?: number;
  filter?: string;
}

export const TaskOutput = defineTool<TaskOutputInput>({
  name: "TaskOutput",
  aliases: ["BashOutput"],
  description:
    "When a command started with Bash run_in_background (or an exec session) is running or has finished and you need its output or exit status. " +
    "Returns the output the task produced since your last TaskOutput call for it, and its status (running, completed with exit code, or killed). With block (default true) it first waits up to `timeout` ms (default 30000) for the task to finish. `filter` keeps only lines matching a regular expression. " +
    "Why: background tasks let long jobs (servers, watchers, slow builds) run while you work, and incremental reads keep each check small.",
  searchHint: "background shell output read poll BashOutput",
  inputSchema: {
    type: "object",
    properties: {
      task_id: { type: "string", description: "The id returned by Bash with run_in_background." },
      bash_id: { type: "string", description: "Legacy name for task_id (BashOutput)." },
      block: { type: "boolean", description: "Wait for the task to finish first (default true)." },
      timeout: { type: "integer", minimum: 0, maximum: MAX_TIMEOUT_MS, description: "How long to wait when block is true, in ms (default 30000)." },
      filter: { type: "string", description: "Only return output lines matching this regular expression." },
    },
    additionalProperties: false,
  },
  isReadOnly: true,
  isConcurrencySafe: true,
  isDestructive: false,
  validateInput(input) {
    if (!input.task_id && !input.bash_id) return "task_id is required (the id Bash returned for a run_in_background command).";
    if (input.filter) {
      try {
        new RegExp(input.filter);
      } catch (e) {
        return `filter is not a valid regular expression: ${(e as Error).message}`;
      }
    }
    return undefined;
  },
  async call(input, ctx): Promise<ToolResult> {
    const id = (input.task_id ?? input.bash_id)!;
    const p = lookup(id, owner(ctx));
    if (!p) {
      const elsewhere = await askRemoteTask(ctx.sessionState, id, "TaskOutput"); // a stored session's task on another instance
      if (elsewhere) return elsewhere;
      const ids = ownedIds(owner(ctx));
      return { content: [{ type: "text", text: `No background task "${id}" in this session.${ids.length ? ` Known tasks: ${ids.join(", ")}.` : " None are running."}` }], isError: true };
    }
    if (input.block !== false) await waitFor(p, input.timeout ?? 30_000, "exit", ctx.signal);
    const o = p.out.readFrom(p.outCursor);
    const e = p.err.readFrom(p.errCursor);
    p.outCursor = o.next;
    p.errCursor = e.next;
    let stdout = o.text;
    let stderr = e.text;
    if (input.filter) {
      const re = new RegExp(input.filter);
      const keep = (s: string) => s.split("\n").filter((l) => re.test(l)).join("\n");
      stdout = keep(stdout);
      stderr = keep(stderr);
    }
    const status = p.done ? (p.killed ? "killed" : "completed") : "running";
    const lines = [`Task ${id} (${p.command.length > 80 ? p.command.slice(0, 80) + "…" : p.command}): ${status}${p.done ? `, exit code ${p.exitCode ?? (p.signal ? `signal ${p.signal}` : "unknown")}` : ""}`];
    if (o.lost || e.lost) lines.push(`[${o.lost + e.lost} characters of earlier output were dropped from the buffer]`);
    if (stdout) lines.push(stdout.replace(/\n+$/, ""));
    if (stderr) lines.push(`stderr:\n${stderr.replace(/\n+$/, "")}`);
    if (!stdout && !stderr) lines.push("(no new output)");
    const meta = { task_id: id, status, stdout, stderr, exitCode: p.exitCode, interrupted: p.killed };
    return { content: [{ type: "text", text: lines.join("\n") }], meta, structuredContent: meta };
  },
});

interface TaskStopInput {
  task_id?: string;
  shell_id?: string;
}

export const TaskStop = defineTool<TaskStopInput>({
  name: "TaskStop",
  aliases: ["KillShell", "KillBash"],
  description:
    "When a background task started with Bash run_in_background (or an exec session) is no longer needed, hangs, or must be restarted. " +
    "Kills the task's whole process group and forgets it; output not yet read is lost. " +
    "Why: stray servers and watchers hold ports, CPU and files until stopped.",
  searchHint: "kill stop background shell process KillShell",
  inputSchema: {
    type: "object",
    properties: {
      task_id: { type: "string", description: "The id of the background task to stop." },
      shell_id: { type: "string", description: "Legacy name for task_id (KillShell)." },
    },
    additionalProperties: false,
  },
  isReadOnly: false,
  isConcurrencySafe: false,
  isDestructive: false,
  validateInput: (input) => (input.task_id || input.shell_id ? undefined : "task_id is required (the id of the background task to stop)."),
  async call(input, ctx): Promise<ToolResult> {
    const id = (input.task_id ?? input.shell_id)!;
    const p = lookup(id, owner(ctx));
    if (!p) return (await askRemoteTask(ctx.sessionState, id, "TaskStop")) ?? { content: [{ type: "text", text: `No background task "${id}" in this session (it may have been stopped already).` }], isError: true };
    const wasRunning = !p.done;
    if (wasRunning) p.kill();
    registry().procs.delete(id);
    if (wasRunning) await waitFor(p, 2000);
    const meta = { task_id: id, stopped: wasRunning, exitCode: p.exitCode };
    const message = wasRunning ? `Stopped task ${id} (${p.command}).` : `Task ${id} had already finished (exit code ${p.exitCode}); removed it.`;
    const toolResponse = { message: wasRunning ? `Successfully stopped task: ${id} (${p.command})` : message, task_id: id, task_type: p.kind === "bash" ? "local_bash" : p.kind, command: p.command };
    return { content: [{ type: "text", text: message }], meta, structuredContent: meta, toolResponse };
  },
  fromToolResponse: (r) => taskStopFromResponse(r),
});
