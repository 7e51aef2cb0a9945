/**
 * Post-edit diagnostics: after an edit, sync the file to its server, wait (bounded) for the
 * diagnostics it publishes, and keep only the NEW errors and warnings — those not present before
 * the edit. "Before" is the last diagnostics the server published for each file; a file the server
 * had not opened yet is first opened with its pre-edit text (captured by the PreToolUse tap) so its
 * old problems are not reported as new.
 *
 * Diagnostics are compared as multisets of (severity, code, message), ignoring positions: an edit
 * that moves an old error down ten lines does not make it new.
 */
import { pathToFileURL, fileURLToPath } from "node:url";
import { relPath } from "./operations.ts";
import { sleep, type Diagnostic, type LspServer } from "./server.ts";

export interface WaitOptions {
  /** Longest wait for the first publish after a change (ms). */
  waitMs: number;
  /** Quiet time after the last publish before the result is taken (ms). */
  settleMs: number;
  /** How long a slow server's late publish is still listened for after `waitMs` (ms). */
  lateMs: number;
}

export interface NewDiagnostics {
  /** uri → new error/warning diagnostics. */
  files: Map<string, Diagnostic[]>;
  /**
   * The server published nothing for the edited file within `waitMs`: it may be slow, or it may
   * publish nothing because nothing changed. Resolves with what a later publish brings (empty when
   * none comes within `lateMs`), to be reported with a later tool result.
   */
  late?: Promise<Map<string, Diagnostic[]>>;
}

const SEVERITY = ["", "error", "warning", "info", "hint"];
const MAX_LISTED = 30;

export async function newDiagnosticsAfterEdit(server: LspServer, file: string, before: string | null | undefined, w: WaitOptions): Promise<NewDiagnostics> {
  await server.ensureStarted();
  const uri = pathToFileURL(file).href;
  if (server.capabilities.diagnosticProvider) return pull(server, file, uri, before);

  // A file the server has not seen: open it as it was before the edit and take its diagnostics as the baseline.
  if (!server.isOpen(file) && typeof before === "string") {
    await waitForPublish(server, uri, w, () => server.syncFile(file, before));
  }
  const baseline = new Map([...server.diagnostics].map(([k, v]) => [k, v.slice()]));
  if (!server.isOpen(file) && before == null) baseline.set(uri, []);
  const compare = (uris: Iterable<string>) => {
    const files = new Map<string, Diagnostic[]>();
    for (const u of uris) {
      const fresh = diff(baseline.get(u) ?? [], server.diagnostics.get(u) ?? []);
      if (fresh.length) files.set(u, fresh);
    }
    return files;
  };
  const prior = server.openText(file);
  const seen = await waitForPublish(server, uri, w, () => {
    server.syncFile(file);
    return server.openText(file) !== prior;
  });
  const out: NewDiagnostics = { files: compare(seen.touched) };
  if (seen.changed && !seen.sawTarget && server.state === "running") out.late = lateWatch(server, uri, server.versionOf(file), w).then(compare);
  return out;
}

/** Listen on after the bounded wait: the URIs published once the edited file was, or none after `lateMs`. */
function lateWatch(server: LspServer, uri: string, version: number | undefined, w: WaitOptions): Promise<Set<string>> {
  return new Promise((resolve) => {
    const touched = new Set<string>();
    let sawTarget = false;
    let settle: NodeJS.Timeout | undefined;
    const finish = () => {
      off();
      clearTimeout(giveUp);
      clearTimeout(settle);
      resolve(sawTarget ? touched : new Set());
    };
    const off = server.onDiagnostics((u, v) => {
      if (u === uri && stale(v, version)) return;
      touched.add(u);
      if (u === uri) sawTarget = true;
      if (!sawTarget) return;
      clearTimeout(settle);
      settle = setTimeout(finish, w.settleMs).unref();
    });
    const giveUp = setTimeout(finish, w.lateMs).unref();
  });
}

/** Servers with pull diagnostics (LSP 3.17 textDocument/diagnostic): ask before and after, no waiting on pushes. */
async function pull(server: LspServer, file: string, uri: string, before: string | null | undefined): Promise<NewDiagnostics> {
  const ask = async () => {
    const r: any = await server.request("textDocument/diagnostic", { textDocument: { uri } });
    const items: Diagnostic[] = r?.kind === "full" && Array.isArray(r.items) ? r.items : server.diagnostics.get(uri) ?? [];
    server.diagnostics.set(uri, items);
    return items;
  };
  let baseline = server.diagnostics.get(uri);
  if (!server.isOpen(file)) {
    if (typeof before === "string") {
      server.syncFile(file, before);
      baseline = await ask();
    } else baseline = [];
  }
  server.syncFile(file);
  const fresh = diff(baseline ?? [], await ask());
  return { files: fresh.length ? new Map([[uri, fresh]]) : new Map() };
}

/**
 * Run `act` (which sends a change; returns false when nothing was sent) and collect the URIs the
 * server publishes for until the edited file was published and `settleMs` passed quietly, or
 * `waitMs` passed. Servers that publish nothing when nothing changed (typescript-language-server
 * skips clean → clean) cost the full `waitMs`.
 */
async function waitForPublish(server: LspServer, uri: string, w: WaitOptions, act: () => unknown): Promise<{ touched: Set<string>; sawTarget: boolean; changed: boolean }> {
  const touched = new Set<string>();
  let sawTarget = false;
  let last = 0;
  let version: number | undefined;
  const off = server.onDiagnostics((u, v) => {
    if (u === uri && stale(v, version)) return;
    touched.add(u);
    if (u === uri) sawTarget = true;
    last = Date.now();
  });
  try {
    if (act() === false) return { touched, sawTarget, changed: false };
    version = server.versionOf(fileURLToPath(uri));
    const deadline = Date.now() + w.waitMs;
    while (Date.now() < deadline) {
      if (sawTarget && Date.now() - last >= w.settleMs) break;
      if (server.state !== "running") break;
      await sleep(25);
    }
  } finally {
    off();
  }
  return { touched, sawTarget, changed: true };
}

/** A publish for an older version of the document than the one just sent (servers that send `version`). */
function stale(published: number | undefined, sent: number | undefined): boolean {
  return published !== undefined && sent !== undefined && published < sent;
}

function key(d: Diagnostic): string {
  return `${d.severity ?? 1}\0${d.code ?? ""}\0${d.message}`;
}

/** Errors and warnings in `after` that `before` does not account for (multiset difference). */
export function diff(before: Diagnostic[], after: Diagnostic[]): Diagnostic[] {
  const left = new Map<string, number>();
  for (const d of before) left.set(key(d), (left.get(key(d)) ?? 0) + 1);
  const out: Diagnostic[] = [];
  for (const d of after) {
    if ((d.severity ?? 1) > 2) continue;
    const n = left.get(key(d)) ?? 0;
    if (n > 0) left.set(key(d), n - 1);
    else out.push(d);
  }
  return out;
}

/** "LSP diagnostics: Found N new diagnostic issues in M files" + one line per issue, or "" when none. */
export function formatNew(files: Map<string, Diagnostic[]>, cwd: string, serverId: string): string {
  const nd = { files };
  const all = [...nd.files].flatMap(([uri, ds]) => ds.map((d) => ({ uri, d })));
  if (!all.length) return "";
  const n = all.length;
  const m = nd.files.size;
  const lines = all.slice(0, MAX_LISTED).map(({ uri, d }) => {
    let f = uri;
    try {
      f = relPath(fileURLToPath(uri), cwd);
    } catch {}
    const code = d.code !== undefined ? ` [${d.code}]` : "";
    return `  ${f}:${d.range.start.line + 1}:${d.range.start.character + 1} ${SEVERITY[d.severity ?? 1] ?? "error"}${code} ${d.message.split("\n").join(" ")}${d.source ? ` (${d.source})` : ""}`;
  });
  if (all.length > MAX_LISTED) lines.push(`  … and ${all.length - MAX_LISTED} more`);
  return `LSP diagnostics: Found ${n} new diagnostic ${n === 1 ? "issue" : "issues"} in ${m} ${m === 1 ? "file" : "files"} (${serverId}):\n${lines.join("\n")}`;
}
