/**
 * Running one command hook: JSON on stdin, exit code + stdout + stderr back, with Claude Code's
 * exit-code table (formats §3.6) applied. Shell form runs `sh -c <command>` (`"shell": "powershell"`: pwsh
 * -Command, or a non-blocking failure when PATH has no PowerShell); exec form (`args`) spawns the program directly. Each hook runs in its own process group (detached, no TTY) so a
 * timeout or an abort kills the whole tree.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { findPowerShell, noPowerShell, type Handler } from "./handlers.ts";

export type RunStatus = "ok" | "block" | "error" | "timeout" | "missing" | "spawn-error" | "aborted";

export interface RunResult {
  status: RunStatus;
  exitCode: number | null;
  signal?: string | null;
  stdout: string;
  stderr: string;
  /** Parsed stdout JSON when stdout starts with `{` and parses to an object. */
  json?: Record<string, unknown>;
  /** Stdout started with `{` but did not parse. */
  badJson?: string;
  ms: number;
  /** Human-readable description of a failure. */
  message?: string;
}

const MAX_OUTPUT = 1 << 20;
/** After the hook process exits, how long its pipes may take to drain (as the Bash tool waits). */
const EXIT_GRACE_MS = 250;
const createdDataDirs = new Set<string>();

let baseEnv: Record<string, string> | undefined;
/** The host's environment minus OTEL_* (formats §3.4), computed once. */
function inheritedEnv(): Record<string, string> {
  if (!baseEnv) {
    baseEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("OTEL_")) baseEnv[k] = v;
  }
  return baseEnv;
}

/** Calls an MCP tool for an mcp_tool hook (the plugin wires it to the host's pool). */
export type McpCaller = (server: string, tool: string, input: Record<string, unknown>, signal: AbortSignal) => Promise<{ text: string; isError: boolean } | { missing: string }>;

/** ${CLAUDE_PLUGIN_DATA} is created on first reference (formats §1.5): when a plugin's hook first runs. */
function ensureDataDir(h: Handler): void {
  const dataDir = h.pluginKind === "plugin" ? h.env.CLAUDE_PLUGIN_DATA : undefined;
  if (!dataDir || createdDataDirs.has(dataDir)) return;
  createdDataDirs.add(dataDir);
  try {
    fs.mkdirSync(dataDir, { recursive: true });
  } catch {}
}

/** The exit-code table (formats §3.6): 0 ok, 2 blocks, anything else is a non-blocking error. */
function exitResult(code: number | null, signal: NodeJS.Signals | null, stdout: string, stderr: string): Omit<RunResult, "ms" | "stdout" | "stderr"> {
  if (code === null) return { status: "error", exitCode: null, signal, message: `killed by signal ${signal}` };
  const parsed = parseStdout(stdout);
  if (code === 0) return { status: "ok", exitCode: 0, ...parsed };
  if (code === 2) return { status: "block", exitCode: 2, ...parsed };
  // Any other code is a non-blocking error, but a valid JSON object on stdout is still honoured.
  if (parsed.json) return { status: "ok", exitCode: code, ...parsed, message: `exit ${code} ignored: stdout carried a JSON object` };
  const first = stderr.split("\n").find((l) => l.trim())?.trim() ?? "";
  if (code === 127 || code === 126) return { status: "missing", exitCode: code, message: `${code === 127 ? "command not found" : "command not executable"} (exit ${code})${first ? `: ${first}` : ""}` };
  return { status: "error", exitCode: code, message: `failed with non-blocking status code ${code}${first ? `: ${first}` : ""}` };
}

/**
 * What Claude Code 2.1.328 puts in every hook's environment (recorded: test/conformance/shapes/*.json):
 * CLAUDECODE=1, the session id and the entrypoint ("sdk-cli" for a headless run, which is what an
 * embedding looks like; an entrypoint already in the host's environment is kept).
 */
function claudeCodeEnv(sessionId: string | undefined): Record<string, string> {
  return { CLAUDECODE: "1", CLAUDE_CODE_ENTRYPOINT: process.env.CLAUDE_CODE_ENTRYPOINT || "sdk-cli", ...(sessionId ? { CLAUDE_CODE_SESSION_ID: sessionId } : {}) };
}

export function runHandler(h: Handler, stdin: string, opts: { cwd: string; projectDir: string; signal?: AbortSignal; callMcp?: McpCaller; sessionId?: string; env?: Record<string, string> }): Promise<RunResult> {
  if (h.type === "http") return runHttp(h, stdin, opts.signal);
  if (h.type === "mcp_tool") return runMcpTool(h, stdin, opts.signal, opts.callMcp);
  const t0 = performance.now();
  ensureDataDir(h);
  const env: Record<string, string> = { ...inheritedEnv(), ...claudeCodeEnv(opts.sessionId), ...opts.env, CLAUDE_PROJECT_DIR: opts.projectDir, TOOLHOST_PROJECT_DIR: opts.projectDir, ...h.env };
  // `"shell": "powershell"` with no PowerShell: Claude Code fails the hook as a non-blocking error (exit 1) and the
  // model sees nothing (recorded: hook-shell-powershell).
  const noPwsh = noPowerShell(h, env.PATH);
  if (noPwsh) return Promise.resolve({ status: "error", exitCode: 1, stdout: "", stderr: `Failed to run: ${noPwsh}`, ms: 0, message: noPwsh });
  return new Promise<RunResult>((resolve) => {
    let stdout = "";
    let stderr = "";
    let settled = false;
    let timedOut = false;
    let aborted = false;
    const pwsh = h.shell === "powershell" ? findPowerShell(env.PATH) : null;
    const direct = pwsh ? { file: pwsh, args: ["-NoProfile", "-NonInteractive", "-Command", h.command] } : h.args ? { file: h.command, args: h.args } : directExec(h.command, opts.cwd, env.PATH);
    const child = direct
      ? spawn(direct.file, direct.args, { cwd: opts.cwd, env, detached: true, stdio: ["pipe", "pipe", "pipe"] })
      : spawn("/bin/sh", ["-c", h.command], { cwd: opts.cwd, env, detached: true, stdio: ["pipe", "pipe", "pipe"] });
    const killTree = () => {
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killTree();
    }, h.timeout * 1000);
    const onAbort = () => {
      aborted = true;
      killTree();
    };
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    const done = (r: Omit<RunResult, "ms" | "stdout" | "stderr">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      resolve({ ...r, stdout, stderr, ms: performance.now() - t0 });
    };
    child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      if (stdout.length < MAX_OUTPUT) stdout += d;
    });
    child.stderr!.setEncoding("utf8").on("data", (d: string) => {
      if (stderr.length < MAX_OUTPUT) stderr += d;
    });
    // A hook that does not read stdin closes the pipe early; that is not an error.
    child.stdin!.on("error", () => {});
    child.stdin!.end(stdin);
    child.on("error", (e: NodeJS.ErrnoException) => {
      if (e.code === "ENOENT") done({ status: "missing", exitCode: 127, message: `command not found: ${h.command}` });
      else done({ status: "spawn-error", exitCode: null, message: `cannot start hook: ${e.message}` });
    });
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (timedOut) return done({ status: "timeout", exitCode: code, signal, message: `timed out after ${h.timeout} s (process group killed)` });
      if (aborted) return done({ status: "aborted", exitCode: code, signal, message: "the call was aborted" });
      done(exitResult(code, signal, stdout, stderr));
    };
    child.on("close", finish);
    // The hook is done when its process exits, not when its pipes close: a child it left in the
    // background (`sleep 60 & echo started`) may hold them open. What is already written is read
    // (a short grace for the pipes to drain), then the pipes are let go.
    child.on("exit", (code, signal) => {
      setTimeout(() => {
        child.stdout!.destroy();
        child.stderr!.destroy();
        finish(code, signal);
      }, EXIT_GRACE_MS);
    });
  });
}

const PLAIN_WORD = /^[A-Za-z0-9_./,:@%+-]+$/;
/** POSIX sh builtins and keywords: a command starting with one of these must go through the shell. */
const SH_BUILTINS = new Set(
  "alias bg break cd command continue echo eval exec exit export false fc fg getopts hash jobs kill local printf pwd read readonly return set shift test times trap true type ulimit umask unalias unset wait if then else elif fi for while until do done case esac".split(" "),
);

/**
 * Shell-form fast path: a command that is only plain words (no quotes, `$`, globs, redirections,
 * `~`, `;`, `=` …) whose first word is an executable file (a path, or a name found on PATH that is
 * not a shell builtin) starting with `#!` or ELF magic means exactly the same with or without
 * `sh -c`, so it is exec'd directly: one process instead of two, which is most of a hook's cost.
 * Anything else goes through `sh -c` unchanged (including missing files, so exit 127 stays exact).
 */
export function directExec(command: string, cwd: string, envPath = process.env.PATH ?? ""): { file: string; args: string[] } | undefined {
  const words = command.trim().split(/[ \t]+/);
  const first = words[0];
  if (!first || !words.every((w) => PLAIN_WORD.test(w)) || SH_BUILTINS.has(first)) return undefined;
  const candidates = first.includes("/") ? [path.resolve(cwd, first)] : envPath.split(":").filter(Boolean).map((d) => path.join(d, first));
  for (const file of candidates) if (isExecutable(file)) return { file, args: words.slice(1) };
  return undefined;
}

function isExecutable(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    const fd = fs.openSync(file, "r");
    const buf = Buffer.alloc(4);
    try {
      fs.readSync(fd, buf, 0, 4, 0);
    } finally {
      fs.closeSync(fd);
    }
    return buf.toString("latin1", 0, 2) === "#!" || (buf[0] === 0x7f && buf.toString("latin1", 1, 4) === "ELF");
  } catch {
    return false;
  }
}

/**
 * HTTP hooks (formats §3.6): the same JSON is POSTed to the URL. 2xx + empty body = exit 0; 2xx + JSON =
 * parsed; 2xx + non-JSON, non-2xx, connection error or timeout = non-blocking error. HTTP can only block
 * through JSON (there is no exit 2).
 */
async function runHttp(h: Handler, body: string, signal?: AbortSignal): Promise<RunResult> {
  const t0 = performance.now();
  const allowed = new Set(h.allowedEnvVars);
  const headers: Record<string, string> = { "content-type": "application/json" };
  for (const [k, v] of Object.entries(h.headers ?? {})) {
    headers[k] = String(v).replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_m, a: string | undefined, b: string | undefined) => {
      const name = (a ?? b)!;
      return allowed.has(name) ? process.env[name] ?? "" : "";
    });
  }
  const timeout = AbortSignal.timeout(h.timeout * 1000);
  const both = signal ? AbortSignal.any([signal, timeout]) : timeout;
  const base = { exitCode: null, stdout: "", stderr: "" };
  try {
    const res = await fetch(h.command, { method: "POST", headers, body, signal: both });
    const text = await res.text();
    const ms = performance.now() - t0;
    if (!res.ok) return { ...base, status: "error", stdout: text, ms, message: `HTTP ${res.status} ${res.statusText}` };
    if (!text.trim()) return { ...base, status: "ok", exitCode: 0, ms };
    const parsed = parseStdout(text);
    if (parsed.json) return { ...base, status: "ok", exitCode: 0, stdout: text, json: parsed.json, ms };
    return { ...base, status: "error", stdout: text, ms, message: "2xx response whose body is not a JSON object" };
  } catch (e) {
    const ms = performance.now() - t0;
    if (signal?.aborted) return { ...base, status: "aborted", ms, message: "the call was aborted" };
    if (timeout.aborted) return { ...base, status: "timeout", ms, message: `timed out after ${h.timeout} s` };
    return { ...base, status: "error", ms, message: `request failed: ${(e as Error).message}${(e as { cause?: Error }).cause ? ` (${(e as { cause: Error }).cause.message})` : ""}` };
  }
}

/**
 * mcp_tool hooks (formats §3.4): call `tool` on MCP server `server` with `input`, whose string values may
 * name paths into the hook input (`${tool_input.file_path}`, `${tool_name}`). The tool's text is read like a
 * command hook's stdout: a JSON object decides, anything else is plain output. A tool error, a missing
 * server/tool or a timeout is a non-blocking error (onFailure: "block" turns it into a block).
 */
async function runMcpTool(h: Handler, stdin: string, signal: AbortSignal | undefined, callMcp: McpCaller | undefined): Promise<RunResult> {
  const t0 = performance.now();
  const base = { exitCode: null, stdout: "", stderr: "" };
  if (!callMcp) return { ...base, status: "missing", ms: 0, message: "no MCP client is loaded (the mcp plugin is disabled)" };
  let event: Record<string, unknown> = {};
  try {
    event = JSON.parse(stdin) as Record<string, unknown>;
  } catch {
    /* the host wrote it: always JSON */
  }
  const input = substituteInput(h.input ?? {}, event);
  const timeout = AbortSignal.timeout(h.timeout * 1000);
  const both = signal ? AbortSignal.any([signal, timeout]) : timeout;
  try {
    const r = await callMcp(h.server!, h.tool!, input, both);
    const ms = performance.now() - t0;
    if ("missing" in r) return { ...base, status: "missing", ms, message: r.missing };
    if (r.isError) return { ...base, status: "error", stdout: r.text, ms, message: `the MCP tool returned an error: ${r.text.slice(0, 300)}` };
    const parsed = parseStdout(r.text);
    if (parsed.badJson) return { ...base, status: "error", stdout: r.text, ms, badJson: parsed.badJson, message: parsed.badJson };
    return { ...base, status: "ok", exitCode: 0, stdout: r.text, json: parsed.json, ms };
  } catch (e) {
    const ms = performance.now() - t0;
    if (signal?.aborted) return { ...base, status: "aborted", ms, message: "the call was aborted" };
    if (timeout.aborted) return { ...base, status: "timeout", ms, message: `timed out after ${h.timeout} s` };
    return { ...base, status: "error", ms, message: `MCP call failed: ${(e as Error).message}` };
  }
}

/** `${a.b.c}` in string values → that path of the hook input (a whole-string reference keeps its JSON type). */
export function substituteInput(input: Record<string, unknown>, event: Record<string, unknown>): Record<string, unknown> {
  const get = (p: string): unknown => p.split(".").reduce<unknown>((o, k) => (o && typeof o === "object" ? (o as Record<string, unknown>)[k] : undefined), event);
  const sub = (v: unknown): unknown => {
    if (typeof v === "string") {
      const whole = /^\$\{([A-Za-z0-9_.]+)\}$/.exec(v);
      if (whole) return get(whole[1]!) ?? "";
      return v.replace(/\$\{([A-Za-z0-9_.]+)\}/g, (_m, p: string) => {
        const x = get(p);
        return x === undefined ? "" : typeof x === "string" ? x : JSON.stringify(x);
      });
    }
    if (Array.isArray(v)) return v.map(sub);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, sub(x)]));
    return v;
  };
  return sub(input) as Record<string, unknown>;
}

/** stdout is JSON iff its first non-space character is `{` (formats §3.6). */
export function parseStdout(stdout: string): { json?: Record<string, unknown>; badJson?: string } {
  const t = stdout.trimStart();
  if (!t.startsWith("{")) return {};
  try {
    const v = JSON.parse(t);
    if (v && typeof v === "object" && !Array.isArray(v)) return { json: v as Record<string, unknown> };
    return { badJson: "stdout is JSON but not an object" };
  } catch (e) {
    return { badJson: `stdout starts with "{" but is not valid JSON: ${(e as Error).message}` };
  }
}
