/**
 * One language server process and its JSON-RPC connection (vscode-jsonrpc over the child's stdio).
 * Started lazily on first use; documents kept open in an LRU of 50 and re-synced when the file
 * changed on disk; the last published diagnostics kept per file; restarted on the next request
 * after a crash (restartOnCrash, maxRestarts); shut down with shutdown + exit, then the whole
 * process group is killed after shutdownTimeout so no grandchild (tsserver …) is orphaned.
 * Stdout is protocol only; stderr is kept (last 4 KiB) for error messages.
 */
import fs from "node:fs";
import path from "node:path";
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { CancellationTokenSource, createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from "vscode-jsonrpc/node.js";
import { errorMessage } from "../../core/index.ts";
import { whichProblem, type ServerDef } from "./config.ts";
import { signalGroup, trackGroup } from "../../lib/process-group.ts";

export const MAX_OPEN_DOCUMENTS = 50;
export const DEFAULT_SHUTDOWN_MS = 3_000;
export const DEFAULT_REQUEST_MS = 30_000;
const STDERR_KEEP = 4096;

export interface Position {
  line: number;
  character: number;
}
export interface Range {
  start: Position;
  end: Position;
}
export interface Diagnostic {
  range: Range;
  severity?: number;
  code?: string | number;
  source?: string;
  message: string;
}

export class LspError extends Error {}

/** A server's whole process group, SIGKILLed (lib/process-group.ts; the direct child alone on Windows). */
function killGroup(child: ChildProcess): void {
  if (child.pid) signalGroup(child.pid, "SIGKILL");
}

/** Until it exits, a server's group is killed at process exit, whatever host forgot to close (lib/process-group.ts). */
function track(child: ChildProcess): void {
  child.once("exit", trackGroup(child));
}

interface OpenDoc {
  version: number;
  text: string;
  languageId: string;
  mtimeMs: number;
  size: number;
}

export type ServerState = "idle" | "starting" | "running" | "crashed" | "stopping" | "stopped";

export class LspServer {
  state: ServerState = "idle";
  /** Restarts done after crashes (bounded by maxRestarts). */
  restarts = 0;
  capabilities: Record<string, any> = {};
  /** Last published diagnostics per document URI. */
  readonly diagnostics = new Map<string, Diagnostic[]>();
  private proc?: ChildProcess;
  private conn?: MessageConnection;
  private starting?: Promise<void>;
  private stderr = "";
  private lastExit?: string;
  private protocolBroken = false;
  private readonly docs = new Map<string, OpenDoc>();
  private readonly listeners = new Set<(uri: string, version?: number) => void>();

  constructor(
    public def: ServerDef,
    private readonly opts: { clientVersion: string; requestTimeoutMs?: number; log?: (msg: string) => void; info?: (msg: string) => void; step?: (label: string) => (ok?: boolean) => void } = { clientVersion: "0" },
  ) {}

  get label(): string {
    return `LSP server ${this.def.id}`;
  }
  get pid(): number | undefined {
    return this.state === "running" ? this.proc?.pid : undefined;
  }

  /** Start (or restart after a crash) unless running. Concurrent callers share one start. */
  ensureStarted(): Promise<void> {
    if (this.state === "running") return Promise.resolve();
    if (this.starting) return this.starting;
    if (this.state === "stopping" || this.state === "stopped") return Promise.reject(new LspError(`${this.label} is shut down (the host is closing)`));
    if (this.state === "crashed") {
      if (!this.def.restartOnCrash) return Promise.reject(new LspError(`${this.label} crashed (${this.lastExit}) and "restartOnCrash" is false${this.stderrTail()}`));
      if (this.restarts >= this.def.maxRestarts)
        return Promise.reject(new LspError(`${this.label} crashed ${this.restarts + 1} times (last: ${this.lastExit}); giving up after maxRestarts ${this.def.maxRestarts}${this.stderrTail()}`));
      this.restarts++;
    }
    const done = this.opts.step?.(`starting language server ${this.label}`);
    const ended = (ok: boolean) => (done?.(ok), (this.starting = undefined));
    this.starting = this.start().then(() => void ended(true), (e) => (ended(false), Promise.reject(e)));
    return this.starting;
  }

  private async start(): Promise<void> {
    const def = this.def;
    const missing = whichProblem(def);
    if (missing) throw new LspError(`${this.label} cannot start: ${missing} (configured in ${def.file} at ${def.jsonPath}/command)`);
    this.state = "starting";
    this.stderr = "";
    const t0 = performance.now();
    const child = spawn(def.command, def.args, {
      cwd: def.workspaceFolder,
      env: { ...process.env, ...def.env },
      stdio: ["pipe", "pipe", "pipe"],
      // Own process group: on shutdown the whole group goes, grandchildren included.
      detached: process.platform !== "win32",
    });
    this.proc = child;
    track(child);
    try {
      await new Promise<void>((resolve, reject) => {
        child.once("spawn", resolve);
        child.once("error", reject);
      });
    } catch (e) {
      this.state = "idle";
      this.proc = undefined;
      throw new LspError(`${this.label} cannot start "${def.command}": ${errorMessage(e)}`);
    }
    child.on("error", (e) => this.opts.log?.(`${this.label}: ${errorMessage(e)}`));
    child.stderr!.on("data", (d: Buffer) => {
      this.stderr = (this.stderr + d.toString("utf8")).slice(-STDERR_KEEP);
    });
    const conn = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    this.conn = conn;
    conn.onNotification((method, params: any) => {
      if (method === "textDocument/publishDiagnostics" && params?.uri) {
        this.diagnostics.set(params.uri, Array.isArray(params.diagnostics) ? params.diagnostics : []);
        for (const fn of this.listeners) fn(params.uri, typeof params.version === "number" ? params.version : undefined);
      }
    });
    conn.onRequest((method, params: any) => this.answerServerRequest(method, params));
    // Stdout is protocol only: anything else breaks the stream, so it counts as a crash (Claude Code does the same).
    conn.onError(([e]) => {
      if (this.proc !== child) return;
      this.lastExit = `wrote non-protocol output to stdout (${errorMessage(e).replace(/\s+/g, " ")}); servers must log to stderr`;
      this.protocolBroken = true;
      this.killGroup(child);
    });
    child.on("exit", (code, signal) => this.onExit(child, code, signal));
    conn.listen();

    const root = def.workspaceFolder;
    const rootUri = pathToFileURL(root).href;
    try {
      const init: any = await this.withTimeout(
        conn.sendRequest("initialize", {
          processId: process.pid,
          clientInfo: { name: "toolhost", version: this.opts.clientVersion },
          rootUri,
          rootPath: root,
          workspaceFolders: [{ uri: rootUri, name: path.basename(root) }],
          initializationOptions: def.initializationOptions,
          capabilities: CLIENT_CAPABILITIES,
        }),
        def.startupTimeout,
        `did not answer "initialize" within startupTimeout ${def.startupTimeout} ms`,
      );
      this.capabilities = init?.capabilities ?? {};
      await conn.sendNotification("initialized", {});
      if (def.settings !== undefined) await conn.sendNotification("workspace/didChangeConfiguration", { settings: def.settings });
    } catch (e) {
      const msg = `${this.label} failed to initialize: ${errorMessage(e)}${this.stderrTail()}`;
      this.lastExit = errorMessage(e);
      this.killGroup(child);
      if (this.state === "starting") this.state = "crashed";
      throw new LspError(msg);
    }
    if (this.proc === child && this.state === "starting") {
      this.state = "running";
      this.opts.info?.(`${this.label} started (pid ${child.pid}, ${(performance.now() - t0).toFixed(0)} ms${this.restarts ? `, restart ${this.restarts}/${def.maxRestarts}` : ""})`);
    } else throw new LspError(`${this.label} exited during startup (${this.lastExit})${this.stderrTail()}`);
  }

  private answerServerRequest(method: string, params: any): unknown {
    switch (method) {
      case "workspace/configuration":
        return (params?.items ?? []).map((it: { section?: string }) => pick(this.def.settings, it.section));
      case "workspace/workspaceFolders":
        return [{ uri: pathToFileURL(this.def.workspaceFolder).href, name: path.basename(this.def.workspaceFolder) }];
      default:
        // client/registerCapability, window/workDoneProgress/create, window/showMessageRequest …
        return null;
    }
  }

  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.proc !== child) return;
    if (!this.protocolBroken) this.lastExit = signal ? `killed by ${signal}` : `exit code ${code}`;
    this.protocolBroken = false;
    this.killGroup(child);
    this.conn?.dispose();
    this.conn = undefined;
    this.docs.clear();
    if (this.state === "stopping" || this.state === "stopped") return;
    this.state = "crashed";
    this.opts.log?.(`${this.label} ${this.lastExit}${this.stderrTail()}`);
  }

  private killGroup(child: ChildProcess): void {
    killGroup(child);
  }

  /** A request on a running server; a crash or timeout becomes an LspError naming the server. */
  async request<R = unknown>(method: string, params: unknown, signal?: AbortSignal): Promise<R> {
    await this.ensureStarted();
    const conn = this.conn!;
    const cts = new CancellationTokenSource();
    const onAbort = () => cts.cancel();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const ms = this.opts.requestTimeoutMs ?? DEFAULT_REQUEST_MS;
      return (await this.withTimeout(conn.sendRequest(method, params, cts.token), ms, `did not answer ${method} within ${ms} ms`)) as R;
    } catch (e) {
      if (e instanceof LspError) throw e;
      const why = this.state === "crashed" ? `crashed (${this.lastExit})` : errorMessage(e);
      throw new LspError(`${this.label}: ${method} failed: ${why}${this.state === "crashed" ? this.stderrTail() : ""}`);
    } finally {
      signal?.removeEventListener("abort", onAbort);
      cts.dispose();
    }
  }

  notify(method: string, params: unknown): void {
    void this.conn?.sendNotification(method, params).catch(() => {});
  }

  /**
   * Make the server see the file as it is on disk (or as `text`): didOpen when not open (evicting
   * the least recently used document past 50), didChange when the content differs. Returns the URI.
   */
  syncFile(file: string, text?: string): string {
    const uri = pathToFileURL(file).href;
    let st: fs.Stats;
    try {
      st = fs.statSync(file);
    } catch {
      if (text === undefined) throw new LspError(`File does not exist: ${file}`);
      st = { mtimeMs: 0, size: -1 } as fs.Stats;
    }
    const doc = this.docs.get(uri);
    if (doc && text === undefined && doc.mtimeMs === st.mtimeMs && doc.size === st.size) {
      this.docs.delete(uri);
      this.docs.set(uri, doc);
      return uri;
    }
    const body = text ?? fs.readFileSync(file, "utf8");
    if (!doc) {
      const languageId = this.def.extensionToLanguage[path.extname(file)] ?? "plaintext";
      this.notify("textDocument/didOpen", { textDocument: { uri, languageId, version: 1, text: body } });
      this.docs.set(uri, { version: 1, text: body, languageId, mtimeMs: text === undefined ? st.mtimeMs : -1, size: text === undefined ? st.size : -1 });
      while (this.docs.size > MAX_OPEN_DOCUMENTS) {
        const oldest = this.docs.keys().next().value!;
        this.docs.delete(oldest);
        this.notify("textDocument/didClose", { textDocument: { uri: oldest } });
      }
      return uri;
    }
    this.docs.delete(uri);
    this.docs.set(uri, doc);
    if (body !== doc.text) {
      doc.version++;
      doc.text = body;
      this.notify("textDocument/didChange", { textDocument: { uri, version: doc.version }, contentChanges: [{ text: body }] });
      const save = this.capabilities.textDocumentSync?.save;
      if (save) this.notify("textDocument/didSave", { textDocument: { uri }, ...(save.includeText ? { text: body } : {}) });
    }
    doc.mtimeMs = text === undefined ? st.mtimeMs : -1;
    doc.size = text === undefined ? st.size : -1;
    return uri;
  }

  /** Re-sync every open document whose file changed on disk since it was sent (edits by other tools). */
  refreshOpenDocuments(): void {
    for (const uri of [...this.docs.keys()]) {
      const doc = this.docs.get(uri)!;
      try {
        const file = fileURLToPath(uri);
        const st = fs.statSync(file);
        if (st.mtimeMs !== doc.mtimeMs || st.size !== doc.size) this.syncFile(file);
      } catch {}
    }
  }

  isOpen(file: string): boolean {
    return this.docs.has(pathToFileURL(file).href);
  }

  openText(file: string): string | undefined {
    return this.docs.get(pathToFileURL(file).href)?.text;
  }

  /** The version last sent for an open document. */
  versionOf(file: string): number | undefined {
    return this.docs.get(pathToFileURL(file).href)?.version;
  }

  /** Listen for publishDiagnostics (with the document version when the server sends one); returns the unsubscribe function. */
  onDiagnostics(fn: (uri: string, version?: number) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** shutdown + exit; the process group is killed when it has not exited after shutdownTimeout. */
  async stop(): Promise<void> {
    if (this.state === "stopped" || this.state === "stopping") return;
    const wasStarting = this.state === "starting";
    this.state = "stopping";
    const child = this.proc;
    // A server still starting has no protocol to shut down politely: don't wait out its startupTimeout.
    if (child && wasStarting) this.killGroup(child);
    await this.starting?.catch(() => {});
    const conn = this.conn;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((r) => child.once("exit", () => r()));
      const ms = this.def.shutdownTimeout ?? DEFAULT_SHUTDOWN_MS;
      const deadline = Date.now() + ms;
      try {
        if (conn) {
          await this.withTimeout(conn.sendRequest("shutdown"), ms, "shutdown timed out");
          await conn.sendNotification("exit");
        }
      } catch {}
      await Promise.race([exited, sleep(Math.max(0, deadline - Date.now()))]);
      this.killGroup(child);
      await Promise.race([exited, sleep(1000)]);
    } else if (child) this.killGroup(child);
    conn?.dispose();
    this.conn = undefined;
    this.proc = undefined;
    this.docs.clear();
    this.state = "stopped";
  }

  private stderrTail(): string {
    const t = this.stderr.trim();
    return t ? `; server stderr: ${t.slice(-600)}` : "";
  }

  private withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new LspError(`${this.label} ${what}${this.stderrTail()}`)), ms);
      p.then(
        (v) => (clearTimeout(timer), resolve(v)),
        (e) => (clearTimeout(timer), reject(e)),
      );
    });
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function pick(settings: unknown, section?: string): unknown {
  if (!section) return settings ?? null;
  let cur = settings as Record<string, unknown> | undefined;
  for (const part of section.split(".")) cur = cur && typeof cur === "object" ? (cur[part] as Record<string, unknown>) : undefined;
  return cur ?? null;
}

const CLIENT_CAPABILITIES = {
  general: { positionEncodings: ["utf-16"] },
  workspace: { workspaceFolders: true, configuration: true, symbol: { dynamicRegistration: false }, didChangeConfiguration: { dynamicRegistration: false } },
  window: { workDoneProgress: false },
  textDocument: {
    synchronization: { dynamicRegistration: false, didSave: true, willSave: false, willSaveWaitUntil: false },
    definition: { linkSupport: true },
    implementation: { linkSupport: true },
    references: {},
    hover: { contentFormat: ["markdown", "plaintext"] },
    documentSymbol: { hierarchicalDocumentSymbolSupport: true },
    callHierarchy: { dynamicRegistration: false },
    publishDiagnostics: { relatedInformation: false, versionSupport: false },
    diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false },
  },
};
