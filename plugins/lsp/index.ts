/**
 * LSP: language servers declared by plugins (`lspServers`, `.lsp.json`) behind Claude Code's `LSP`
 * tool, plus post-edit diagnostics. Nothing is configured by default: the tool exists only while
 * at least one valid server is. Servers start lazily on first use (`toolhost tools` never spawns),
 * live in a cache keyed by a hash of their resolved config that survives rebuilds, and are shut
 * down when a rebuild drops them or the host closes.
 */
import fs from "node:fs";
import path from "node:path";
import { defineTool, definePlugin, errorMessage, textResult, PACKAGE_ROOT, type Tool, type PostToolUseContext, type ProblemReport } from "../../core/index.ts";
import { readServers, type ServerDef, type ServerTable } from "./config.ts";
import { LspServer, type Diagnostic } from "./server.ts";
import { OPERATIONS, relPath, runOperation, type LspInput } from "./operations.ts";
import { formatNew, newDiagnosticsAfterEdit } from "./diagnostics.ts";
import { EDIT_TOOL_FILE_FIELD } from "../../lib/tool-names.ts";

const PLUGIN_NAME = "lsp";
/** Claude Code's editing tools and the input field that names the file. */
const BEFORE = "lsp.textBeforeEdit";
const MAX_BEFORE_BYTES = 4_000_000;

export interface LspOptions {
  /** Longest wait for diagnostics after an edit before the result is returned (default 1500 ms). */
  diagnosticsWaitMs?: number;
  /** Quiet time after the last publishDiagnostics before diagnostics are taken (default 300 ms). */
  diagnosticsSettleMs?: number;
  /** How long a slow server's diagnostics are still awaited after the bounded wait, for a later result (default 10000 ms). */
  diagnosticsLateMs?: number;
  /** Timeout of one LSP request (default 30000 ms). */
  requestTimeoutMs?: number;
}

const VERSION = (() => {
  try {
    return String(JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, "package.json"), "utf8")).version);
  } catch {
    return "0";
  }
})();

export default definePlugin({
  name: PLUGIN_NAME,
  apply(ctx) {
    ctx.contributeConfig("lsp", { type: "object" });
    /** The connection cache: config hash → server, across builds. */
    const servers = new Map<string, LspServer>();
    const keysByGeneration = new Map<number, Set<string>>();
    /** Diagnostics that arrived after their edit's result was returned, per session. */
    const late = new Map<string, string[]>();
    const noted = new Set<string>();
    /** Some generation configured a server: late diagnostics may arrive from now on. */
    let hadServers = false;
    const options = (): LspOptions => {
      const merged = rawOptions();
      // A wrong value falls back to the default (reported once per build by optionProblems).
      for (const k of OPTION_KEYS) if (merged[k] !== undefined && !(typeof merged[k] === "number" && merged[k] >= 0)) delete merged[k];
      return merged as LspOptions;
    };
    /** `lsp` from the config file, overridden by `createHost({ lsp })`. */
    let config: Readonly<Record<string, unknown>> = {};
    const rawOptions = (): Record<string, unknown> => ({ ...plain(config.lsp), ...plain(ctx.host.options.lsp) });
    const log = (m: string) => ctx.host.log.warn(`[${PLUGIN_NAME}] ${m}`);

    const serverFor = (def: ServerDef): LspServer => {
      let s = servers.get(def.key);
      if (!s) servers.set(def.key, (s = new LspServer(def, { clientVersion: VERSION, requestTimeoutMs: options().requestTimeoutMs, log, info: (m) => ctx.host.log.info(`[${PLUGIN_NAME}] ${m}`) })));
      else s.def = def; // same process; timeouts, restart policy and language ids may have changed
      return s;
    };

    ctx.hooks.build.tap(PLUGIN_NAME, (build) => {
      config = build.config; // the newest generation's: late diagnostics of an older one use the same options
      const table = readServers(build.plugins, build.cwd);
      keysByGeneration.set(build.generation, new Set(table.servers.map((s) => s.key)));

      build.hooks.collect.tap(PLUGIN_NAME, (collector) => {
        for (const p of table.problems) collector.problem(p);
        for (const p of optionProblems(rawOptions())) collector.problem(p);
        if (table.servers.length) collector.add(lspTool(table, serverFor));
      });

      // Hot path: a generation without diagnostics servers taps no execution stage, except to deliver late
      // diagnostics (possible only once some generation of this plugin instance had servers).
      if (table.servers.length) hadServers = true;
      const diagnostics = [...table.byExt.values()].some((d) => d.diagnostics);

      // Remember the text before an edit of a file its server has not opened: the diagnostics baseline.
      if (diagnostics) build.hooks.preToolUse.tapPromise(PLUGIN_NAME, async (pre) => {
        const file = editedFile(pre.call.tool?.name, pre.input, build.cwd);
        const def = file ? table.byExt.get(path.extname(file)) : undefined;
        if (!file || !def?.diagnostics || servers.get(def.key)?.isOpen(file)) return;
        try {
          const st = fs.statSync(file);
          pre.call.data.set(BEFORE, { file, text: st.size <= MAX_BEFORE_BYTES ? fs.readFileSync(file, "utf8") : undefined });
        } catch {
          pre.call.data.set(BEFORE, { file, text: null }); // a new file: nothing before
        }
      });

      if (hadServers) build.hooks.postToolUse.tapPromise(PLUGIN_NAME, async (post) => {
        deliverLate(post);
        const file = editedFile(post.call.tool?.name, post.call.input, build.cwd);
        const def = file ? table.byExt.get(path.extname(file)) : undefined;
        if (!file || !def?.diagnostics || post.error || post.result.isError) return;
        const o = options();
        const waitMs = o.diagnosticsWaitMs ?? 1500;
        const captured = post.call.data.get(BEFORE) as { file: string; text?: string | null } | undefined;
        const before = captured?.file === file ? captured.text : undefined;
        const server = serverFor(def);
        const rel = relPath(file, build.cwd);
        const sessionId = post.call.sessionId;
        const wait = { waitMs, settleMs: o.diagnosticsSettleMs ?? 300, lateMs: o.diagnosticsLateMs ?? 10_000 };
        // Bounded: one wait per phase (baseline of an unopened file, then the change); a server that is
        // still starting answers with a later tool result instead.
        const phases = before !== undefined && !server.isOpen(file) ? 2 : 1;
        const job = newDiagnosticsAfterEdit(server, file, before, wait);
        const later = (files: Promise<Map<string, Diagnostic[]>>) =>
          files.then(
            (f) => {
              const text = formatNew(f, build.cwd, def.id);
              if (text) queue(sessionId, text.replace("LSP diagnostics:", `LSP diagnostics (reported late, after the edit of ${rel}):`));
            },
            (e) => log(`diagnostics for ${rel}: ${errorMessage(e)}`),
          );
        const bound = phases * waitMs + 250;
        const res = await Promise.race([job.then((nd) => ({ nd }), (e: unknown) => ({ error: errorMessage(e) })), sleepValue(bound)]);
        if (!res) {
          post.addContext(`LSP diagnostics: ${def.id} is ${server.state === "running" ? "slow to answer" : "still starting"}; new issues in ${rel}, if any, will be reported with a later tool result.`, PLUGIN_NAME);
          job.then(
            (nd) => (later(Promise.resolve(nd.files)), nd.late && later(nd.late)),
            (e) => log(`diagnostics for ${rel}: ${errorMessage(e)}`),
          );
        } else if ("error" in res) {
          const msg = `LSP diagnostics unavailable for ${rel}: ${res.error}`;
          if (!noted.has(`${sessionId}\0${msg}`)) post.addContext(msg, PLUGIN_NAME);
          noted.add(`${sessionId}\0${msg}`);
        } else {
          const text = formatNew(res.nd.files, build.cwd, def.id);
          if (text) post.addContext(text, PLUGIN_NAME);
          if (res.nd.late) void later(res.nd.late);
        }
      });
      if (hadServers) build.hooks.postToolUseFailure.tapPromise(PLUGIN_NAME, async (post) => deliverLate(post));
    });

    function queue(sessionId: string, text: string) {
      late.set(sessionId, [...(late.get(sessionId) ?? []), text]);
    }
    function deliverLate(post: PostToolUseContext) {
      const texts = late.get(post.call.sessionId);
      if (!texts?.length) return;
      late.delete(post.call.sessionId);
      for (const t of texts) post.addContext(t, PLUGIN_NAME);
    }

    // Servers a successful rebuild no longer configures are shut down; unchanged ones keep running.
    ctx.hooks.rebuildDone.tap(PLUGIN_NAME, (pool) => {
      const keep = keysByGeneration.get(pool.generation);
      if (!keep) return;
      for (const g of keysByGeneration.keys()) if (g < pool.generation) keysByGeneration.delete(g);
      for (const [key, s] of servers) {
        if (keep.has(key)) continue;
        servers.delete(key);
        void s.stop();
      }
    });

    ctx.onDispose(async () => {
      const all = [...servers.values()];
      servers.clear();
      await Promise.all(all.map((s) => s.stop()));
    });
  },
});

const OPTION_KEYS = ["diagnosticsWaitMs", "diagnosticsSettleMs", "diagnosticsLateMs", "requestTimeoutMs"] as const;

function plain(v: unknown): Record<string, unknown> {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function optionProblems(o: Record<string, unknown>): ProblemReport[] {
  const out: ProblemReport[] = [];
  for (const [k, v] of Object.entries(o)) {
    if (!(OPTION_KEYS as readonly string[]).includes(k)) out.push({ plugin: PLUGIN_NAME, path: `/lsp/${k}`, message: `unknown lsp option "${k}" is ignored (known: ${OPTION_KEYS.join(", ")})`, severity: "warning" });
    else if (!(typeof v === "number" && v >= 0)) out.push({ plugin: PLUGIN_NAME, path: `/lsp/${k}`, message: `lsp.${k} must be a number of milliseconds ≥ 0; the default is used`, severity: "warning" });
  }
  return out;
}

function editedFile(toolName: string | undefined, input: unknown, cwd: string): string | undefined {
  const field = toolName ? EDIT_TOOL_FILE_FIELD[toolName] : undefined;
  const v = field && input && typeof input === "object" ? (input as Record<string, unknown>)[field] : undefined;
  return typeof v === "string" && v ? path.resolve(cwd, v) : undefined;
}

function sleepValue(ms: number): Promise<undefined> {
  return new Promise((r) => setTimeout(() => r(undefined), ms));
}

function lspTool(table: ServerTable, serverFor: (def: ServerDef) => LspServer): Tool<LspInput> {
  const exts = [...table.byExt.keys()].sort();
  const def = defineTool<LspInput>({
    name: "LSP",
    description: [
      "Ask a language server (LSP) for code intelligence.",
      "",
      "Operations:",
      "- goToDefinition: where the symbol at the position is defined",
      "- findReferences: every reference to the symbol at the position",
      "- hover: type information and documentation for the symbol at the position",
      "- documentSymbol: all symbols (functions, classes, variables …) in the file",
      "- workspaceSymbol: search symbols across the workspace by `query`",
      "- goToImplementation: implementations of an interface or abstract method",
      "- prepareCallHierarchy: the function or method at the position",
      "- incomingCalls: functions and methods that call the one at the position",
      "- outgoingCalls: functions and methods called by the one at the position",
      "",
      "Every operation takes filePath, line and character; line and character are 1-based, as shown in editors.",
      `Files with a configured server: ${exts.join(" ")}. Other files return an error.`,
    ].join("\n"),
    searchHint: "language server go to definition references hover symbols call hierarchy code navigation",
    inputSchema: {
      type: "object",
      properties: {
        operation: { type: "string", enum: [...OPERATIONS], description: "The LSP operation to perform" },
        filePath: { type: "string", description: "The file to operate on (absolute, or relative to the working directory)" },
        line: { type: "integer", minimum: 1, description: "The line number (1-based, as shown in editors)" },
        character: { type: "integer", minimum: 1, description: "The character offset (1-based, as shown in editors)" },
        query: { type: "string", description: "Search text for workspaceSymbol" },
      },
      required: ["operation", "filePath", "line", "character"],
    },
    isReadOnly: true,
    isConcurrencySafe: true,
    userFacingName: "LSP",
    activityText: "Asking the language server",
    normalizeInput: (input, { cwd }) => ({ ...input, filePath: path.resolve(cwd, input.filePath) }),
    checkPermissions: (input, { cwd }) => {
      const r = path.relative(cwd, path.resolve(cwd, input.filePath));
      return r.startsWith("..") || path.isAbsolute(r) ? { behavior: "passthrough" } : { behavior: "allow", reason: "LSP reads a file inside the working directory" };
    },
    async call(input, ctx) {
      const ext = path.extname(input.filePath);
      const server = table.byExt.get(ext);
      if (!server) return textResult(`No LSP server available for file type: ${ext || path.basename(input.filePath)}. Configured file types: ${exts.join(" ")}.`, true);
      try {
        return await runOperation(serverFor(server), input, ctx.cwd, ctx.signal);
      } catch (e) {
        return textResult(`LSP ${input.operation} failed: ${errorMessage(e)}`, true);
      }
    },
  });
  return { ...def, origin: "lsp", plugin: PLUGIN_NAME, extra: { servers: table.servers.map((s) => ({ id: s.id, file: s.file, extensions: Object.keys(s.extensionToLanguage) })) } };
}
