/** What `toolhost check --json` lists as loaded: tools, rules (and their examples), hooks, MCP and LSP servers. */
import type { Host, LoadedPlugin, Tool } from "../../core/index.ts";
import { handlersOf } from "../../lib/hook-scripts.ts";

export function loadedOf(host: Host, plugins: readonly LoadedPlugin[], tools: readonly Tool[]) {
  const deferred = new Set(host.pool.deferred.map((t) => t.name));
  const rules: Array<{ behavior: string; rule: string; plugin: string; file: string | null; path: string }> = [];
  let examples = 0;
  const hooks: Array<{ event: string; matcher: string | null; type: string | null; command: string | null; plugin: string; file: string | null; path: string }> = [];
  const servers = { mcp: [] as Array<{ name: string; plugin: string; file: string | null }>, lsp: [] as Array<{ name: string; plugin: string; file: string | null }> };
  for (const lp of plugins) {
    const perms = lp.components.permissions;
    if (perms) {
      for (const behavior of ["deny", "ask", "allow"] as const)
        (perms.value[behavior] ?? []).forEach((rule, i) => rules.push({ behavior, rule, plugin: lp.id, file: perms.file ?? null, path: `${perms.jsonPath}/${behavior}/${i}` }));
      for (const t of Array.isArray(perms.value.tests) ? perms.value.tests : []) examples += (Array.isArray(t?.match) ? t.match.length : 0) + (Array.isArray(t?.not_match) ? t.not_match.length : 0);
    }
    for (const comp of lp.components.hooks)
      for (const h of handlersOf(comp.value as Record<string, unknown>, comp.jsonPath)) hooks.push({ event: h.event, matcher: h.matcher ?? null, type: h.type ?? null, command: h.command ?? null, plugin: lp.id, file: comp.file ?? null, path: h.path });
    for (const comp of lp.components.mcpServers) for (const name of Object.keys(comp.value ?? {})) servers.mcp.push({ name, plugin: lp.id, file: comp.file ?? null });
    for (const comp of lp.components.lspServers) for (const name of Object.keys(comp.value ?? {})) servers.lsp.push({ name, plugin: lp.id, file: comp.file ?? null });
  }
  return {
    plugins: plugins.map((p) => ({ id: p.id, root: p.kind === "plugin" ? p.root : null, manifest: p.manifestFile ?? null, failed: p.failed })),
    tools: [
      ...tools.map((t) => ({ name: t.name, plugin: t.plugin ?? null, deferred: deferred.has(t.name) })),
      ...host.pool.excluded.filter((x) => plugins.some((p) => p.id === x.toolPlugin)).map((x) => ({ name: x.name, plugin: x.toolPlugin ?? null, deferred: false, excluded: x.rule ?? x.reason })),
    ],
    rules,
    ruleExamples: examples,
    hooks,
    mcpServers: servers.mcp,
    lspServers: servers.lsp,
  };
}
