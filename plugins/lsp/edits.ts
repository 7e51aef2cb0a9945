/**
 * Post-edit diagnostics: the text before an edit of a file its server has not opened (the baseline),
 * then the new diagnostics after the edit, within a bounded wait; a slow server's arrive with a later
 * tool result.
 */
import fs from "node:fs";
import path from "node:path";
import { errorMessage, type BuildView, type PostToolUseContext, type PreToolUseContext } from "../../core/index.ts";
import type { ServerDef, ServerTable } from "./config.ts";
import type { Diagnostic, LspServer } from "./server.ts";
import { relPath } from "./operations.ts";
import { formatNew, newDiagnosticsAfterEdit } from "./diagnostics.ts";
import { EDIT_TOOL_FILE_FIELD } from "../../lib/tool-names.ts";
import { deliverLate, log, options, PLUGIN_NAME, queueLate, serverFor, type LspState } from "./state.ts";

const BEFORE = "lsp.textBeforeEdit";
const MAX_BEFORE_BYTES = 4_000_000;

type NewDiagnostics = Awaited<ReturnType<typeof newDiagnosticsAfterEdit>>;

/** Remember the text before an edit of a file its server has not opened: the diagnostics baseline. */
export function rememberBefore(st: LspState, build: BuildView, table: ServerTable, pre: PreToolUseContext): void {
  const file = editedFile(pre.call.tool?.name, pre.input, build.cwd);
  const def = file ? table.byExt.get(path.extname(file)) : undefined;
  if (!file || !def?.diagnostics || st.servers.get(def.key)?.isOpen(file)) return;
  try {
    const stat = fs.statSync(file);
    pre.call.data.set(BEFORE, { file, text: stat.size <= MAX_BEFORE_BYTES ? fs.readFileSync(file, "utf8") : undefined });
  } catch {
    pre.call.data.set(BEFORE, { file, text: null }); // a new file: nothing before
  }
}

export async function diagnoseEdit(st: LspState, build: BuildView, table: ServerTable, post: PostToolUseContext): Promise<void> {
  deliverLate(st, post);
  const file = editedFile(post.call.tool?.name, post.call.input, build.cwd);
  const def = file ? table.byExt.get(path.extname(file)) : undefined;
  if (!file || !def?.diagnostics || post.error || post.result.isError) return;
  const o = options(st);
  const waitMs = o.diagnosticsWaitMs ?? 1500;
  const captured = post.call.data.get(BEFORE) as { file: string; text?: string | null } | undefined;
  const before = captured?.file === file ? captured.text : undefined;
  const server = serverFor(st, def);
  const wait = { waitMs, settleMs: o.diagnosticsSettleMs ?? 300, lateMs: o.diagnosticsLateMs ?? 10_000 };
  // Bounded: one wait per phase (baseline of an unopened file, then the change); a server that is
  // still starting answers with a later tool result instead.
  const phases = before !== undefined && !server.isOpen(file) ? 2 : 1;
  const job = newDiagnosticsAfterEdit(server, file, before, wait);
  const bound = phases * waitMs + 250;
  const res = await Promise.race([job.then((nd) => ({ nd }), (e: unknown) => ({ error: errorMessage(e) })), sleepValue(bound)]);
  reportDiagnostics(st, { post, cwd: build.cwd, def, server, rel: relPath(file, build.cwd), job }, res);
}

interface EditJob {
  post: PostToolUseContext;
  cwd: string;
  def: ServerDef;
  server: LspServer;
  rel: string;
  job: Promise<NewDiagnostics>;
}

function reportDiagnostics(st: LspState, e: EditJob, res: { nd: NewDiagnostics } | { error: string } | undefined): void {
  const { post, def, rel } = e;
  const sessionId = post.call.sessionId;
  if (!res) {
    post.addContext(`LSP diagnostics: ${def.id} is ${e.server.state === "running" ? "slow to answer" : "still starting"}; new issues in ${rel}, if any, will be reported with a later tool result.`, PLUGIN_NAME);
    e.job.then(
      (nd) => (reportLater(st, e, Promise.resolve(nd.files)), nd.late && reportLater(st, e, nd.late)),
      (err) => log(st, `diagnostics for ${rel}: ${errorMessage(err)}`),
    );
  } else if ("error" in res) {
    const msg = `LSP diagnostics unavailable for ${rel}: ${res.error}`;
    if (!st.noted.has(`${sessionId}\0${msg}`)) post.addContext(msg, PLUGIN_NAME);
    st.noted.add(`${sessionId}\0${msg}`);
  } else {
    const text = formatNew(res.nd.files, e.cwd, def.id);
    if (text) post.addContext(text, PLUGIN_NAME);
    if (res.nd.late) void reportLater(st, e, res.nd.late);
  }
}

/** Diagnostics after the edit's result was returned: queued for the session's next tool result. */
function reportLater(st: LspState, e: EditJob, files: Promise<Map<string, Diagnostic[]>>): Promise<void> {
  return files.then(
    (f) => {
      const text = formatNew(f, e.cwd, e.def.id);
      if (text) queueLate(st, e.post.call.sessionId, text.replace("LSP diagnostics:", `LSP diagnostics (reported late, after the edit of ${e.rel}):`));
    },
    (err) => log(st, `diagnostics for ${e.rel}: ${errorMessage(err)}`),
  );
}

function editedFile(toolName: string | undefined, input: unknown, cwd: string): string | undefined {
  const field = toolName ? EDIT_TOOL_FILE_FIELD[toolName] : undefined;
  const v = field && input && typeof input === "object" ? (input as Record<string, unknown>)[field] : undefined;
  return typeof v === "string" && v ? path.resolve(cwd, v) : undefined;
}

function sleepValue(ms: number): Promise<undefined> {
  return new Promise((r) => setTimeout(() => r(undefined), ms));
}
