/**
 * What the LSP plugin keeps across builds: the connection cache (config hash → server), the server
 * keys each generation configures, the options (config file, overridden by `createHost({ lsp })`), and
 * diagnostics that arrived after their edit's result was returned, per session.
 */
import fs from "node:fs";
import path from "node:path";
import { PACKAGE_ROOT, type PluginContext, type PoolSnapshot, type PostToolUseContext, type ProblemReport } from "../../core/index.ts";
import type { ServerDef } from "./config.ts";
import { LspServer } from "./server.ts";

export const PLUGIN_NAME = "lsp";

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

const OPTION_KEYS = ["diagnosticsWaitMs", "diagnosticsSettleMs", "diagnosticsLateMs", "requestTimeoutMs"] as const;

export interface LspState {
  readonly ctx: PluginContext;
  /** The connection cache: config hash → server, across builds. */
  readonly servers: Map<string, LspServer>;
  readonly keysByGeneration: Map<number, Set<string>>;
  /** Diagnostics that arrived after their edit's result was returned, per session. */
  readonly late: Map<string, string[]>;
  readonly noted: Set<string>;
  /** Some generation configured a server: late diagnostics may arrive from now on. */
  hadServers: boolean;
  /** The newest generation's config: late diagnostics of an older one use the same options. */
  config: Readonly<Record<string, unknown>>;
}

export function createState(ctx: PluginContext): LspState {
  return { ctx, servers: new Map(), keysByGeneration: new Map(), late: new Map(), noted: new Set(), hadServers: false, config: {} };
}

/** `lsp` from the config file, overridden by `createHost({ lsp })`. */
export function rawOptions(st: LspState): Record<string, unknown> {
  return { ...plain(st.config.lsp), ...plain(st.ctx.host.options.lsp) };
}

export function options(st: LspState): LspOptions {
  const merged = rawOptions(st);
  // A wrong value falls back to the default (reported once per build by optionProblems).
  for (const k of OPTION_KEYS) if (merged[k] !== undefined && !(typeof merged[k] === "number" && merged[k] >= 0)) delete merged[k];
  return merged as LspOptions;
}

export function optionProblems(o: Record<string, unknown>): ProblemReport[] {
  const out: ProblemReport[] = [];
  for (const [k, v] of Object.entries(o)) {
    if (!(OPTION_KEYS as readonly string[]).includes(k)) out.push({ plugin: PLUGIN_NAME, path: `/lsp/${k}`, message: `unknown lsp option "${k}" is ignored (known: ${OPTION_KEYS.join(", ")})`, severity: "warning" });
    else if (!(typeof v === "number" && v >= 0)) out.push({ plugin: PLUGIN_NAME, path: `/lsp/${k}`, message: `lsp.${k} must be a number of milliseconds ≥ 0; the default is used`, severity: "warning" });
  }
  return out;
}

function plain(v: unknown): Record<string, unknown> {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

export function log(st: LspState, m: string): void {
  st.ctx.host.log.warn(`[${PLUGIN_NAME}] ${m}`);
}

export function serverFor(st: LspState, def: ServerDef): LspServer {
  let s = st.servers.get(def.key);
  if (!s) st.servers.set(def.key, (s = new LspServer(def, { clientVersion: VERSION, requestTimeoutMs: options(st).requestTimeoutMs, log: (m) => log(st, m), info: (m) => st.ctx.host.log.info(`[${PLUGIN_NAME}] ${m}`), step: (label) => st.ctx.step(label) })));
  else s.def = def; // same process; timeouts, restart policy and language ids may have changed
  return s;
}

export function queueLate(st: LspState, sessionId: string, text: string): void {
  st.late.set(sessionId, [...(st.late.get(sessionId) ?? []), text]);
}

export function deliverLate(st: LspState, post: PostToolUseContext): void {
  const texts = st.late.get(post.call.sessionId);
  if (!texts?.length) return;
  st.late.delete(post.call.sessionId);
  for (const t of texts) post.addContext(t, PLUGIN_NAME);
}

/** Servers a successful rebuild no longer configures are shut down; unchanged ones keep running. */
export function stopDropped(st: LspState, pool: PoolSnapshot): void {
  const keep = st.keysByGeneration.get(pool.generation);
  if (!keep) return;
  for (const g of st.keysByGeneration.keys()) if (g < pool.generation) st.keysByGeneration.delete(g);
  for (const [key, s] of st.servers) {
    if (keep.has(key)) continue;
    st.servers.delete(key);
    void s.stop();
  }
}

export async function stopAll(st: LspState): Promise<void> {
  const all = [...st.servers.values()];
  st.servers.clear();
  await Promise.all(all.map((s) => s.stop()));
}
