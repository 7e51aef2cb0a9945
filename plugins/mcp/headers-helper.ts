/**
 * `headersHelper` for http/sse servers (Claude Code's field, ../shared/formats.md §6.2): a shell command
 * that prints a JSON object of HTTP headers, run at every connection attempt (so a reconnect gets fresh
 * credentials) and merged over the static `headers` (the helper wins on the same name). It runs in the
 * plugin root (plugin servers) or the project directory, with the server's env plus
 * CLAUDE_CODE_MCP_SERVER_NAME and CLAUDE_CODE_MCP_SERVER_URL, and is killed after its timeout
 * (`headersHelperTimeout`, default 10 s).
 *
 * A helper that fails — exit code, timeout, output that is not a JSON object of string values — fails
 * the connection with a HeadersHelperError naming the server, plugin, file and field: toolhost does not
 * connect without the headers the configuration asked for (a request without its credentials would
 * fail later with a less useful 401, or reach the server as someone else).
 */
import { spawn } from "node:child_process";
import type { ServerSpec } from "./config.ts";

export const DEFAULT_HEADERS_HELPER_TIMEOUT_MS = 10_000;
const MAX_OUTPUT = 64 * 1024;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export class HeadersHelperError extends Error {
  /** JSON path of the field at fault (`…/headersHelper`). */
  readonly path: string;
  constructor(spec: ServerSpec, reason: string) {
    super(
      `headersHelper ${JSON.stringify(spec.headersHelper)} of MCP server "${spec.label}" (plugin ${spec.plugin}, ${spec.file} ${spec.jsonPath}/headersHelper) ${reason}; ` +
        `not connecting without its headers — fix the helper (it must print a JSON object of header names to string values) or remove "headersHelper"`,
    );
    this.name = "HeadersHelperError";
    this.path = `${spec.jsonPath}/headersHelper`;
  }
}

/** Parse a helper's stdout: a JSON object whose values are strings. Returns the headers or a reason. */
export function parseHelperOutput(stdout: string): { headers: Record<string, string> } | { reason: string } {
  const text = stdout.trim();
  if (!text) return { reason: "printed nothing" };
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    // The output is not quoted: a helper's output is usually a credential.
    return { reason: `printed output that is not valid JSON (${text.length} characters, not shown here as it may hold credentials)` };
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) return { reason: `printed JSON that is not an object (${Array.isArray(v) ? "an array" : v === null ? "null" : typeof v})` };
  const headers: Record<string, string> = {};
  const bad: string[] = [];
  for (const [k, val] of Object.entries(v)) {
    if (!HEADER_NAME.test(k)) bad.push(`${JSON.stringify(k)} is not a valid header name`);
    else if (typeof val !== "string") bad.push(`the value of ${JSON.stringify(k)} is ${val === null ? "null" : typeof val}, not a string`);
    else if (/[\r\n\0]/.test(val)) bad.push(`the value of ${JSON.stringify(k)} contains a line break or NUL`);
    else headers[k] = val;
  }
  if (bad.length) return { reason: `printed headers toolhost cannot send: ${bad.join("; ")}` };
  return { headers };
}

/** Run the server's headersHelper; resolves to its headers or rejects with a HeadersHelperError. */
export function runHeadersHelper(spec: ServerSpec): Promise<Record<string, string>> {
  const timeoutMs = spec.headersHelperTimeoutMs ?? DEFAULT_HEADERS_HELPER_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    const fail = (reason: string) => reject(new HeadersHelperError(spec, reason));
    const env: NodeJS.ProcessEnv = { ...process.env, ...spec.env, CLAUDE_CODE_MCP_SERVER_NAME: spec.name, CLAUDE_CODE_MCP_SERVER_URL: spec.url ?? "" };
    // detached: its own process group, so a timeout kills the shell and whatever it started.
    const child = spawn(spec.headersHelper!, { shell: true, cwd: spec.baseDir, env, stdio: ["ignore", "pipe", "pipe"], detached: process.platform !== "win32" });
    let out = "";
    let err = "";
    let done = false;
    const timer = setTimeout(() => {
      if (done) return;
      done = true;
      kill();
      fail(`did not finish within ${timeoutMs} ms (headersHelperTimeout)`);
    }, timeoutMs);
    const kill = () => {
      try {
        if (child.pid && process.platform !== "win32") process.kill(-child.pid, "SIGKILL");
        else child.kill("SIGKILL");
      } catch {
        // already gone
      }
    };
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString("utf8");
      if (out.length > MAX_OUTPUT && !done) {
        done = true;
        clearTimeout(timer);
        kill();
        fail(`printed more than ${MAX_OUTPUT / 1024} KB`);
      }
    });
    child.stderr!.on("data", (c: Buffer) => {
      err = (err + c.toString("utf8")).slice(-2000);
    });
    child.on("error", (e) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      fail(`could not be run: ${e.message}`);
    });
    child.on("close", (code, signal) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      const tail = err.trim().split("\n").slice(-5).join("\n");
      if (code !== 0) return fail(`exited with ${signal ? `signal ${signal}` : `code ${code}`}${tail ? `; its stderr: ${tail}` : ""}`);
      const parsed = parseHelperOutput(out);
      if ("reason" in parsed) return fail(parsed.reason);
      resolve(parsed.headers);
    });
  });
}
