/**
 * LSP: language servers declared by plugins (`lspServers`, `.lsp.json`) behind Claude Code's `LSP`
 * tool, plus post-edit diagnostics. Nothing is configured by default: the tool exists only while
 * at least one valid server is. Servers start lazily on first use (`toolhost tools` never spawns),
 * live in a cache keyed by a hash of their resolved config that survives rebuilds, and are shut
 * down when a rebuild drops them or the host closes.
 */
import path from "node:path";
import { defineTool, definePlugin, errorMessage, textResult, type BuildView, type Tool } from "../../core/index.ts";
import { isInsideReal } from "../../lib/fs-path.ts";
import { readServers, type ServerDef, type ServerTable } from "./config.ts";
import type { LspServer } from "./server.ts";
import { OPERATIONS, runOperation, type LspInput } from "./operations.ts";
import { createState, optionProblems, PLUGIN_NAME, rawOptions, serverFor, deliverLate, stopAll, stopDropped, type LspState } from "./state.ts";
import { diagnoseEdit, rememberBefore } from "./edits.ts";

export type { LspOptions } from "./state.ts";

export default definePlugin({
  name: PLUGIN_NAME,
  apply(ctx) {
    ctx.contributeConfig("lsp", { type: "object" });
    const st = createState(ctx);
    ctx.hooks.build.tap(PLUGIN_NAME, (build) => onBuild(st, build));
    ctx.hooks.rebuildDone.tap(PLUGIN_NAME, (pool) => stopDropped(st, pool));
    ctx.onDispose(() => stopAll(st));
  },
});

function onBuild(st: LspState, build: BuildView): void {
  st.config = build.config; // the newest generation's: late diagnostics of an older one use the same options
  const table = readServers(build.plugins, build.cwd);
  st.keysByGeneration.set(build.generation, new Set(table.servers.map((s) => s.key)));

  build.hooks.collect.tap(PLUGIN_NAME, (collector) => {
    for (const p of table.problems) collector.problem(p);
    for (const p of optionProblems(rawOptions(st))) collector.problem(p);
    if (table.servers.length) collector.add(lspTool(table, (def) => serverFor(st, def)));
  });

  // Hot path: a generation without diagnostics servers taps no execution stage, except to deliver late
  // diagnostics (possible only once some generation of this plugin instance had servers).
  if (table.servers.length) st.hadServers = true;
  const diagnostics = [...table.byExt.values()].some((d) => d.diagnostics);
  if (diagnostics) build.hooks.preToolUse.tapPromise(PLUGIN_NAME, async (pre) => rememberBefore(st, build, table, pre));
  if (st.hadServers) build.hooks.postToolUse.tapPromise(PLUGIN_NAME, (post) => diagnoseEdit(st, build, table, post));
  if (st.hadServers) build.hooks.postToolUseFailure.tapPromise(PLUGIN_NAME, async (post) => deliverLate(st, post));
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
      // a link inside the project that leads out of it is outside the project
      return !isInsideReal(path.resolve(cwd, input.filePath), cwd) ? { behavior: "passthrough" } : { behavior: "allow", reason: "LSP reads a file inside the working directory" };
    },
    async call(input, ctx) {
      const ext = path.extname(input.filePath);
      const server = table.byExt.get(ext);
      if (!server) return textResult(`No LSP server available for file type: ${ext || path.basename(input.filePath)}. Configured file types: ${exts.join(" ")}.`, true);
      try {
        return await runOperation(serverFor(server), input, ctx.cwd, ctx.signal, ctx.readFilter?.());
      } catch (e) {
        return textResult(`LSP ${input.operation} failed: ${errorMessage(e)}`, true);
      }
    },
  });
  return { ...def, origin: "lsp", plugin: PLUGIN_NAME, extra: { servers: table.servers.map((s) => ({ id: s.id, file: s.file, extensions: Object.keys(s.extensionToLanguage) })) } };
}
