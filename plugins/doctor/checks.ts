/**
 * What `toolhost doctor` checks, each a pure function of the host's public view: the runtime, the config and
 * settings files, every plugin, MCP servers (live, through the `mcp.connections` service), LSP servers, hook
 * scripts, and every problem the host reported. A finding has a level: ok, warn or error (error → exit 1).
 */
import fs from "node:fs";
import path from "node:path";
import { handlersOf, missingScript } from "../../lib/hook-scripts.ts";
import type { Host, LoadedPlugin } from "../../core/index.ts";

export type Level = "ok" | "warn" | "error";
export interface Finding {
  section: string;
  level: Level;
  what: string;
  detail?: string;
  plugin?: string;
  file?: string;
  path?: string;
}

const MIN_NODE = [20, 19];

export function runtime(): Finding[] {
  const [maj, min] = process.versions.node.split(".").map(Number) as [number, number];
  const ok = maj > MIN_NODE[0]! || (maj === MIN_NODE[0] && min >= MIN_NODE[1]!);
  return [{ section: "runtime", level: ok ? "ok" : "error", what: `node ${process.versions.node}`, detail: ok ? undefined : `toolhost needs Node ${MIN_NODE.join(".")} or newer` }, startUp()];
}

/** Where this process's toolhost code came from: the start-up bundle, or the sources and why (bin/dist.mjs records it). */
function startUp(): Finding {
  const d = (globalThis as Record<symbol, unknown>)[Symbol.for("toolhost.dist")] as { dir?: string; stale?: string } | undefined;
  if (d?.dir) return { section: "runtime", level: "ok", what: "start-up bundle", detail: `${d.dir} (built from these sources)` };
  return { section: "runtime", level: "ok", what: "start-up from the TypeScript sources (jiti)", detail: d?.stale ? `${d.stale}; \`npm run build\` makes start-up faster` : "not started through bin/toolhost.mjs or the package entry" };
}

/** Config and settings files: those that exist and were read, and those searched for but absent. */
export function files(host: Host): Finding[] {
  const read = new Map<string, LoadedPlugin>();
  for (const p of host.plugins) if (p.kind !== "plugin" && p.kind !== "inline" && p.manifestFile) read.set(path.resolve(p.manifestFile), p);
  const out: Finding[] = [];
  for (const f of host.watchedFiles) {
    const lp = read.get(path.resolve(f));
    if (lp) out.push({ section: "files", level: lp.failed ? "error" : "ok", what: f, detail: `read as ${lp.id}${lp.failed ? " (failed: see problems)" : ""}`, plugin: lp.id, file: f });
    else if (fs.existsSync(f)) out.push({ section: "files", level: "ok", what: f, detail: "found (read by its plugin)", file: f });
  }
  for (const [f, lp] of read) if (!out.some((o) => o.file === f)) out.push({ section: "files", level: lp.failed ? "error" : "ok", what: f, detail: `read as ${lp.id}`, plugin: lp.id, file: f });
  return out;
}

/** Plugin sources that were discovered but did not load: the error that stopped each (file and JSON path). */
function unloaded(host: Host): Finding[] {
  const loaded = new Set(host.plugins.map((p) => path.resolve(p.source.path)));
  return host.sources
    .filter((s) => !loaded.has(path.resolve(s.path)))
    .map((s) => {
      const why = host.problems().find((p) => p.severity === "error" && p.file && path.resolve(p.file).startsWith(path.resolve(s.path)));
      return { section: "plugins", level: "error" as Level, what: why?.plugin ?? s.path, detail: `failed to load — ${s.kind} ${s.path}${why ? `: ${why.message}` : ""}`, plugin: why?.plugin, file: why?.file, path: why?.path };
    });
}

export function plugins(host: Host): Finding[] {
  const tools = new Map<string, number>();
  for (const t of [...host.pool.tools, ...host.pool.deferred]) tools.set(t.plugin, (tools.get(t.plugin) ?? 0) + 1);
  return [...pluginStates(host, tools), ...unloaded(host)];
}

function pluginStates(host: Host, tools: Map<string, number>): Finding[] {
  return host.plugins
    .filter((p) => p.kind === "plugin" || p.kind === "inline")
    .map((p) => {
      const errors = p.problems.filter((x) => x.severity === "error").length;
      const level: Level = p.failed || errors ? "error" : p.problems.length ? "warn" : "ok";
      const state = p.failed ? "failed" : "loaded";
      return { section: "plugins", level, what: p.id, detail: `${state}, ${tools.get(p.id) ?? 0} tools${p.problems.length ? `, ${p.problems.length} problems` : ""} — ${p.source.kind} ${p.source.path}`, plugin: p.id, file: p.manifestFile };
    });
}

interface ConnLike {
  status: string;
  error?: string;
  spec: { label?: string; segment?: string; name?: string };
}

/** MCP servers as the mcp plugin's live connections report them (like `claude mcp list`). */
export function mcp(host: Host): Finding[] {
  const svc = host.service<{ connections(): ConnLike[] }>("mcp.connections");
  if (!svc) return [];
  return svc.connections().map((c) => {
    const name = c.spec.label ?? c.spec.name ?? c.spec.segment ?? "?";
    const n = [...host.pool.tools, ...host.pool.deferred].filter((t) => t.origin === "mcp" && (t.server === name || t.server === c.spec.segment)).length;
    // Not connected with an error (failed, or retrying after one) is an error; still starting is a warning.
    const level: Level = c.status === "connected" ? "ok" : c.status === "failed" || c.error ? "error" : "warn";
    return { section: "mcp", level, what: name, detail: `${c.status}${c.status === "connected" ? `, ${n} tools` : ""}${c.error ? ` — last error: ${c.error}` : ""}` };
  });
}

export function lsp(host: Host): Finding[] {
  const out: Finding[] = [];
  for (const p of host.plugins)
    for (const comp of p.components.lspServers)
      for (const name of Object.keys(comp.value ?? {})) out.push({ section: "lsp", level: "ok", what: name, detail: `from ${p.id}`, plugin: p.id, file: comp.file, path: `${comp.jsonPath}/${name}` });
  return out;
}


export function hooks(host: Host): Finding[] {
  const out: Finding[] = [];
  for (const p of host.plugins)
    for (const comp of p.components.hooks)
      for (const h of handlersOf(comp.value as Record<string, unknown>, comp.jsonPath)) {
        if (h.type !== "command" || !h.command) continue;
        const miss = missingScript(h.command, p.env, p.kind === "plugin" ? p.root : host.cwd);
        if (miss) out.push({ section: "hooks", level: "error", what: `${h.event} hook of ${p.id}`, detail: `script ${miss} does not exist (command: ${h.command})`, plugin: p.id, file: comp.file, path: `${h.path}/command` });
      }
  return out;
}

export function problems(host: Host): Finding[] {
  return host.problems().map((p) => ({ section: "problems", level: p.severity === "error" ? "error" : "warn", what: `[${p.plugin}] ${p.message}`, plugin: p.plugin, file: p.file, path: p.path }));
}
