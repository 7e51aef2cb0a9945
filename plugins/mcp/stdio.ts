/**
 * The stdio transport of a local MCP server: the SDK's StdioClientTransport (same framing, same environment, stderr
 * piped), except that the server runs in its own process group and close ends the whole group. A server started
 * through a wrapper (`sh -c 'node server.mjs'`, `bun run server.ts`, `npm exec …`) is the host's grandchild; the
 * SDK's close signals only the direct child, so the real server stayed, kept its port, and held the pipes that kept
 * `toolhost tools` / `check` / `hooks` from ever exiting.
 *
 * Close follows the MCP lifecycle's stdio shutdown — end stdin, then SIGTERM, then SIGKILL — with short waits
 * (CLOSE_MS: 100 ms for the server to exit on its own, 500 ms after SIGTERM) instead of the SDK's 2 s + 2 s, each
 * applied to the group. On Windows (no process groups) the SDK's transport is used unchanged.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { PassThrough } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { JsonRpcReadBuffer } from "../../lib/jsonrpc-read.ts";
import { endGroup, groupAlive, trackGroup } from "../../lib/process-group.ts";
import { sdkLoaded } from "./sdk.ts";

/** Close's waits: for the server to exit after its stdin ended, then after SIGTERM before SIGKILL. */
export const CLOSE_MS = { polite: 100, term: 500 };

export interface StdioParams {
  command: string;
  args?: string[];
  env: Record<string, string>;
  cwd?: string;
}

/** What connection.ts needs of a stdio transport (the SDK's has the same members). */
export type StdioTransport = Transport & { readonly stderr: import("node:stream").Stream | null; readonly pid: number | null };

export function stdioTransport(p: StdioParams): StdioTransport {
  if (process.platform === "win32") return new (sdkLoaded().StdioClientTransport)({ ...p, stderr: "pipe" });
  return new GroupStdioTransport(p);
}

class GroupStdioTransport implements StdioTransport {
  onclose?: () => void;
  onerror?: (e: Error) => void;
  onmessage?: (m: JSONRPCMessage) => void;
  private child?: ChildProcess;
  // The SDK's framing and size cap; plain messages skip its zod union (lib/jsonrpc-read.ts: a per-call cost of serve).
  private readonly buffer = new JsonRpcReadBuffer<JSONRPCMessage>((v) => sdkLoaded().types.JSONRPCMessageSchema.parse(v), sdkLoaded().stdio.STDIO_DEFAULT_MAX_BUFFER_SIZE);
  private readonly stderrStream = new PassThrough();
  private untrack = () => {};

  constructor(private readonly params: StdioParams) {}

  get stderr(): PassThrough {
    return this.stderrStream;
  }
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  start(): Promise<void> {
    if (this.child) throw new Error("GroupStdioTransport already started");
    return new Promise((resolve, reject) => {
      const p = this.params;
      const child = spawn(p.command, p.args ?? [], { env: p.env, cwd: p.cwd, stdio: ["pipe", "pipe", "pipe"], detached: true });
      this.child = child;
      child.on("error", (e) => {
        reject(e);
        this.onerror?.(e);
      });
      child.on("spawn", () => {
        this.untrack = trackGroup(child);
        resolve();
      });
      child.on("exit", () => {
        if (child.pid && !groupAlive(child.pid)) this.untrack();
      });
      child.on("close", () => {
        if (this.child === child) this.child = undefined;
        this.onclose?.();
      });
      child.stdin!.on("error", (e) => this.onerror?.(e));
      child.stdout!.on("data", (chunk: Buffer) => {
        try {
          this.buffer.append(chunk);
          for (let m = this.next(); m !== null; m = this.next()) this.onmessage?.(m);
        } catch (e) {
          this.onerror?.(e as Error);
          void this.close();
        }
      });
      child.stdout!.on("error", (e) => this.onerror?.(e));
      child.stderr!.pipe(this.stderrStream);
    });
  }

  /** The next buffered message; a line that is not JSON-RPC is reported and skipped, as the SDK does. */
  private next(): JSONRPCMessage | null {
    for (;;) {
      try {
        return this.buffer.readMessage();
      } catch (e) {
        this.onerror?.(e as Error);
      }
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin) return reject(new Error("Not connected"));
      if (stdin.write(sdkLoaded().stdio.serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child) {
      try {
        child.stdin?.end();
      } catch {
        /* already closed */
      }
      await endGroup(child, { politeMs: CLOSE_MS.polite, termMs: CLOSE_MS.term });
      this.untrack();
      // A pipe some other process still holds (a daemon the server double-forked out of its group) must not keep
      // the host alive.
      child.stdout?.destroy();
      child.stderr?.destroy();
    }
    this.buffer.clear();
  }
}
