/**
 * `toolhost hooks [--json]` (declared in manifests/command-hooks.json `cliCommands`): every loaded hook
 * handler with its provenance (like Claude Code's /hooks browser), in composition order: event, matcher,
 * `if`, type, command/url, timeout, source plugin, file and JSON path, and when it runs (`runs`: every tool
 * call, after each turn, when the embedder reports the event, or "not run: <why>").
 */
import type { CommandContext, Host } from "../../core/index.ts";
import { layerRank } from "../../lib/settings-layers.ts";
import { runsText } from "./events-table.ts";
import { hookPolicy } from "./policy.ts";

export async function run(ctx: CommandContext): Promise<number> {
  const host = await ctx.host();
  try {
    const rows = handlerRows(host);
    if (ctx.json) ctx.io.out(JSON.stringify(rows, null, 2));
    else if (!rows.length) ctx.io.out("no hooks loaded");
    else
      for (const r of rows) {
        ctx.io.out(`${String(r.event).padEnd(20)} ${String(r.matcher).padEnd(16)} ${r.type} ${r.command}${r.if ? `  if ${r.if}` : ""}${r.async ? "  (async)" : ""}`);
        ctx.io.out(`${"".padEnd(21)}${r.plugin}: ${r.file}${r.jsonPath}`);
        if (!String(r.runs).startsWith("every")) ctx.io.out(`${"".padEnd(21)}runs ${r.runs}`);
      }
    return 0;
  } finally {
    await host.close();
  }
}

/** One row per declared handler (every event, supported or not), in composition order (docs/hooks.md). */
function handlerRows(host: Host): Array<Record<string, unknown>> {
  const rows: Array<Record<string, unknown>> = [];
  const sources = host.plugins.map((lp, i) => ({ lp, i })).sort((a, b) => layerRank(a.lp.id) - layerRank(b.lp.id) || a.i - b.i);
  const off = hookPolicy(host.plugins);
  for (const { lp } of sources) {
    for (const comp of lp.components.hooks) {
      for (const [event, groups] of Object.entries(comp.value)) {
        (groups as Array<{ matcher?: string; hooks?: Array<Record<string, unknown>> }>).forEach((g, gi) =>
          (g.hooks ?? []).forEach((h, hi) =>
            rows.push({
              event,
              matcher: g.matcher ?? "*",
              if: h.if ?? null,
              type: h.type,
              command: h.type === "http" ? h.url : [h.command, ...((h.args as string[] | undefined) ?? [])].join(" "),
              timeout: h.timeout ?? null,
              async: h.async === true,
              onFailure: h.onFailure ?? "continue",
              plugin: lp.id,
              runs: off(lp.id) ? `not run: ${off(lp.id)}` : runsText(event),
              file: comp.file,
              jsonPath: `${comp.jsonPath === "/" ? "" : comp.jsonPath}/${event}/${gi}/hooks/${hi}`,
            }),
          ),
        );
      }
    }
  }
  return rows;
}
