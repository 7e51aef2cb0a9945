/**
 * Exec sessions (Codex's unified exec): exec_command starts a process and returns its output, or a
 * session id when it is still running after yield_time_ms; write_stdin sends keystrokes and collects
 * what came back. tty:true runs it under a real pseudo-terminal (node-pty), otherwise plain pipes.
 * Output is held in a bounded ring; exited sessions are dropped after their final read, and all of a
 * host's sessions are killed when it closes (see index.ts).
 */
import path from "node:path";
import fs from "node:fs";
import { createRequire } from "node:module";
import { defineTool, type ToolCallContext, type ToolResult } from "../../core/index.ts";
import { absolutePath, normalizePaths } from "./shared.ts";
import { OutputRing, killGroup, lookup, nextId, ownedIds, registry, shell, spawnShell, waitFor, type ManagedProc } from "./procs.ts";

const require = createRequire(import.meta.url);
const DEFAULT_YIELD_MS = 10_000;
const WRITE_DEFAULT_YIELD_MS = 250;
const MAX_YIELD_MS = 30_000;
const DEFAULT_MAX_TOKENS = 10_000;
/** Concurrent live sessions per host session; the oldest finished/idle ones go first. */
export const MAX_SESSIONS = 32;

interface ExecInput {
  cmd: string;
  workdir?: string;
  shell?: string;
  login?: boolean;
  tty?: boolean;
  yield_time_ms?: number;
  max_output_tokens?: number;
}

interface WriteStdinInput {
  session_id: number | string;
  chars?: string;
  yield_time_ms?: number;
  max_output_tokens?: number;
}

function owner(ctx: ToolCallContext): object {
  return ctx.sessionState ?? ctx.state;
}

/** Keep output within ~max tokens (4 characters per token), cutting the middle. */
export function truncateMiddle(text: string, maxTokens: number): { text: string; cut: number } {
  const max = Math.max(64, maxTokens * 4);
  if (text.length <= max) return { text, cut: 0 };
  const half = Math.floor(max / 2);
  return { text: `${text.slice(0, half)}\n[… ${text.length - 2 * half} characters truncated …]\n${text.slice(-half)}`, cut: text.length - 2 * half };
}

function clampYield(ms: number | undefined, dflt: number): number {
  return Math.min(MAX_YIELD_MS, Math.max(50, ms ?? dflt));
}

function startSession(input: ExecInput, ctx: ToolCallContext, cwd: string): ManagedProc {
  const id = nextId("");
  let resolveExit!: () => void;
  const p: ManagedProc = {
    id,
    kind: "exec",
    command: input.cmd,
    cwd,
    sessionId: ctx.sessionId,
    owner: owner(ctx),
    startedAt: Date.now(),
    exitCode: null,
    signal: null,
    done: false,
    killed: false,
    out: new OutputRing(),
    err: new OutputRing(0),
    outCursor: 0,
    errCursor: 0,
    exited: new Promise<void>((r) => (resolveExit = r)),
    kill: () => {},
    listeners: new Set(),
  };
  const notify = () => p.listeners.forEach((l) => l());
  const onExit = (code: number | null, sig: string | null) => {
    if (p.done) return;
    p.exitCode = code;
    p.signal = sig;
    p.done = true;
    resolveExit();
    notify();
  };
  const sh = input.shell ?? shell();
  if (input.tty) {
    const pty = require("node-pty") as typeof import("node-pty");
    const term = pty.spawn(sh, [input.login ? "-lc" : "-c", input.cmd], {
      name: "xterm-256color",
      cols: 120,
      rows: 40,
      cwd,
      env: { ...process.env, TERM: "xterm-256color" } as Record<string, string>,
    });
    p.pid = term.pid;
    term.onData((d) => (p.out.push(d), notify()));
    term.onExit(({ exitCode, signal }) => onExit(exitCode, signal ? String(signal) : null));
    p.write = (chars) => term.write(chars);
    p.kill = () => {
      p.killed = true;
      killGroup(term.pid, 500); // the pty's child leads its own session/process group
      try {
        term.kill();
      } catch {
        /* gone */
      }
    };
  } else {
    const child = input.shell
      ? require("node:child_process").spawn(input.shell, [input.login ? "-lc" : "-c", input.cmd], { cwd, detached: true, stdio: ["pipe", "pipe", "pipe"], env: process.env })
      : spawnShell(input.cmd, cwd, { stdin: true, login: input.login });
    p.pid = child.pid;
    child.stdout.setEncoding("utf8").on("data", (s: string) => (p.out.push(s), notify()));
    child.stderr.setEncoding("utf8").on("data", (s: string) => (p.out.push(s), notify()));
    child.stdin.on("error", () => {});
    child.on("error", (e: Error) => (p.out.push(`failed to start: ${e.message}\n`), onExit(127, null)));
    child.on("close", (code: number | null, sig: string | null) => onExit(code, sig));
    p.write = (chars) => {
      child.stdin.write(chars);
    };
    p.kill = () => {
      p.killed = true;
      killGroup(child.pid, 500);
    };
  }
  registry().procs.set(id, p);
  return p;
}

/** Drop the oldest sessions of this owner beyond the cap (finished ones first). */
function enforceCap(own: object): void {
  const mine = [...registry().procs.values()].filter((p) => p.kind === "exec" && p.owner === own);
  if (mine.length < MAX_SESSIONS) return;
  mine.sort((a, b) => Number(b.done) - Number(a.done) || a.startedAt - b.startedAt);
  for (const p of mine.slice(0, mine.length - MAX_SESSIONS + 1)) {
    if (!p.done) p.kill();
    registry().procs.delete(p.id);
  }
}

function report(p: ManagedProc, t0: number, maxTokens: number | undefined): ToolResult {
  const r = p.out.readFrom(p.outCursor);
  p.outCursor = r.next;
  const { text, cut } = truncateMiddle(r.text, maxTokens ?? DEFAULT_MAX_TOKENS);
  const wall = ((performance.now() - t0) / 1000).toFixed(3);
  const lines = [`Wall time: ${wall} seconds`];
  if (p.done) {
    lines.push(`Process exited with code ${p.exitCode ?? (p.signal ? `signal ${p.signal}` : "unknown")}`);
    registry().procs.delete(p.id); // reaped: its final output has been read
  } else lines.push(`Process running with session ID ${p.id}`);
  if (r.lost) lines.push(`[${r.lost} characters of earlier output were dropped from the buffer]`);
  if (cut) lines.push(`Original output: ${r.text.length} characters (truncated to max_output_tokens)`);
  lines.push("Output:", text);
  const meta = { session_id: p.done ? null : Number(p.id), exit_code: p.done ? p.exitCode : null, output: text, wall_time_seconds: Number(wall) };
  return { content: [{ type: "text", text: lines.join("\n") }], meta, structuredContent: meta };
}

export const exec_command = defineTool<ExecInput>({
  name: "exec_command",
  description:
    "When you need an interactive or long-running process you will keep talking to: a REPL (python3, node), a debugger, a dev server, a prompt that asks questions, or a command needing a real terminal (tty: true). For one-shot commands prefer Bash. " +
    "Starts `cmd` with the shell in `workdir` (default: the working directory), waits up to yield_time_ms (default 10000, max 30000) and returns its output and exit code if it finished, otherwise its output so far and a session id to drive with write_stdin. Output beyond max_output_tokens (default 10000) is cut in the middle; the session's buffer is bounded. Sessions are killed when the host closes. " +
    "Why: one process can be driven across many calls, with a real pseudo-terminal when the program needs one.",
  searchHint: "interactive pty terminal repl session unified exec stdin",
  inputSchema: {
    type: "object",
    properties: {
      cmd: { type: "string", description: "Shell command to execute." },
      workdir: { type: "string", description: "Working directory for the command (absolute, or relative to the working directory)." },
      shell: { type: "string", description: "Shell binary to run the command with (default bash, or sh)." },
      login: { type: "boolean", description: "Run the shell as a login shell (-lc). Default false." },
      tty: { type: "boolean", description: "Allocate a pseudo-terminal (needed by REPLs, editors, password prompts, colour output). Default false." },
      yield_time_ms: { type: "integer", minimum: 0, description: "How long to wait for output before returning (default 10000, max 30000)." },
      max_output_tokens: { type: "integer", minimum: 1, description: "Maximum output tokens to return (default 10000); excess is cut in the middle." },
    },
    required: ["cmd"],
    additionalProperties: false,
  },
  isReadOnly: false,
  isConcurrencySafe: false,
  isDestructive: false,
  shouldDefer: true,
  activityText: "Running",
  normalizeInput: normalizePaths(["workdir"]),
  workingDirectory: (input, ctx) => absolutePath(input.workdir ?? ctx.cwd, ctx.cwd),
  async call(input, ctx): Promise<ToolResult> {
    const cwd = absolutePath(input.workdir ?? ctx.cwd, ctx.cwd);
    if (!fs.existsSync(cwd) || !fs.statSync(cwd).isDirectory()) return { content: [{ type: "text", text: `workdir ${cwd} is not an existing directory.` }], isError: true };
    if (input.shell && !path.isAbsolute(input.shell) && !/^[\w.-]+$/.test(input.shell)) return { content: [{ type: "text", text: `shell must be a program name or an absolute path, got ${JSON.stringify(input.shell)}.` }], isError: true };
    enforceCap(owner(ctx));
    const t0 = performance.now();
    const p = startSession(input, ctx, cwd);
    await waitFor(p, clampYield(input.yield_time_ms, DEFAULT_YIELD_MS), "exit", ctx.signal);
    return report(p, t0, input.max_output_tokens);
  },
});

export const write_stdin = defineTool<WriteStdinInput>({
  name: "write_stdin",
  description:
    "When a process started with exec_command is still running (it returned a session id) and you need to send it input or see its newer output. " +
    "Writes `chars` to the session's stdin (or terminal: use \"\\n\" for Enter, \"\\u0003\" for Ctrl-C, \"\\u0004\" for Ctrl-D; empty chars just polls), waits up to yield_time_ms (default 250, max 30000) and returns the output produced since the last call, plus the exit code once the process has ended. " +
    "Why: driving a running program step by step (answering prompts, typing into a REPL) is impossible with one-shot commands.",
  searchHint: "send keys input stdin interactive session poll",
  inputSchema: {
    type: "object",
    properties: {
      session_id: { type: ["integer", "string"], description: "Session id returned by exec_command." },
      chars: { type: "string", description: "Characters to write (may be empty to poll for output)." },
      yield_time_ms: { type: "integer", minimum: 0, description: "How long to wait for output before returning (default 250, max 30000)." },
      max_output_tokens: { type: "integer", minimum: 1, description: "Maximum output tokens to return (default 10000)." },
    },
    required: ["session_id"],
    additionalProperties: false,
  },
  isReadOnly: false,
  isConcurrencySafe: false,
  isDestructive: false,
  shouldDefer: true,
  async call(input, ctx): Promise<ToolResult> {
    const id = String(input.session_id);
    const p = lookup(id, owner(ctx));
    if (!p || p.kind !== "exec") {
      const ids = ownedIds(owner(ctx), "exec");
      return {
        content: [{ type: "text", text: `No exec session ${id} in this session (it may have exited and been reaped after its final output was returned).${ids.length ? ` Live sessions: ${ids.join(", ")}.` : ""} Start one with exec_command.` }],
        isError: true,
      };
    }
    const t0 = performance.now();
    if (input.chars && !p.done) p.write?.(input.chars);
    const yieldMs = clampYield(input.yield_time_ms, WRITE_DEFAULT_YIELD_MS);
    // wait for the process to react; return early only when it exits
    await waitFor(p, yieldMs, "exit", ctx.signal);
    return report(p, t0, input.max_output_tokens);
  },
});
