import type { CommandContext } from "../../core/index.ts";
import { resolveFlag, type Host } from "../../core/index.ts";
import { poolTokens, TOKENIZER } from "../../lib/tokens.ts";

/** `toolhost tools`: the pool as the model sees it. The --json shape is a contract (test/cli.test.ts). */
export function toolsJson(host: Host) {
  const pool = host.pool;
  const problems = host.problems();
  const tok = poolTokens(pool);
  const ms = host.modeSource;
  return {
    generation: pool.generation,
    fingerprint: pool.fingerprint,
    /** The permission mode in force and where it came from (option, config, settings:local, settings:project, default). */
    mode: { name: host.mode, source: ms.source, file: ms.file ?? null, path: ms.path ?? null },
    tools: [...pool.tools, ...pool.deferred].map((t) => ({
      name: t.name,
      origin: t.origin,
      plugin: t.plugin,
      deferred: pool.deferral.get(t.name)?.defer === true,
      readOnly: resolveFlag(t.isReadOnly, {} as never, false),
      tokens: tok.perTool.get(t.name) ?? 0,
    })),
    /** Tokens of the tool definitions (o200k approximation): what the eager tools cost every turn vs what deferral keeps out. */
    tokens: { eager: tok.eager, deferred: tok.deferred },
    excluded: pool.excluded.map((x) => ({ name: x.name, reason: x.reason, rule: x.rule ?? null, plugin: x.plugin ?? null, file: x.file ?? null, toolPlugin: x.toolPlugin ?? null })),
    errors: problems.filter((p) => p.severity === "error").map((p) => ({ plugin: p.plugin, file: p.file ?? null, path: p.path ?? null, message: p.message })),
    warnings: problems.filter((p) => p.severity === "warning").map((p) => ({ plugin: p.plugin, file: p.file ?? null, path: p.path ?? null, message: p.message })),
  };
}

export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join("  ")).join("\n");
}

export async function run(ctx: CommandContext): Promise<number> {
  const host = await ctx.host();
  try {
    if (ctx.args.flags.usage === true) return await usage(ctx, host);
    const j = toolsJson(host);
    if (ctx.json) {
      ctx.io.out(JSON.stringify(j, null, 2));
      return 0;
    }
    const rows = [["NAME", "ORIGIN", "PLUGIN", "STATUS", "READ-ONLY", "TOKENS"]];
    for (const t of j.tools) rows.push([t.name, t.origin, t.plugin, t.deferred ? "deferred" : "loaded", t.readOnly ? "yes" : "no", String(t.tokens)]);
    ctx.io.out(table(rows));
    if (j.excluded.length) {
      ctx.io.out("\nExcluded:");
      for (const x of j.excluded) ctx.io.out(`  ${x.name}: ${x.reason}${x.rule ? ` [rule ${x.rule}${x.plugin ? `, plugin ${x.plugin}` : ""}${x.file ? `, ${x.file}` : ""}]` : ""}`);
    }
    if (j.errors.length) {
      ctx.io.out("\nErrors:");
      for (const e of j.errors) ctx.io.out(`  [${e.plugin}] ${e.file ?? ""}${e.path ? ` ${e.path}` : ""}: ${e.message}`);
    }
    const loaded = j.tools.filter((t) => !t.deferred).length;
    ctx.io.out(`\nTokens (${TOKENIZER}): ${j.tokens.eager} eager (sent every turn), ${j.tokens.deferred} deferred (names only until ToolSearch loads them)`);
    ctx.io.out(
      `\n${j.tools.length} tools: ${loaded} loaded, ${j.tools.length - loaded} deferred, ${j.excluded.length} excluded, ${j.errors.length} errors, ${j.warnings.length} warnings · generation ${j.generation} · fingerprint ${j.fingerprint.slice(0, 12)}`,
    );
    ctx.io.out(`mode ${j.mode.name} (from ${j.mode.source}${j.mode.file ? `: ${j.mode.file}${j.mode.path ? ` ${j.mode.path}` : ""}` : ""})`);
    return 0;
  } finally {
    await host.close();
  }
}

/** `toolhost tools --usage`: asks the tool-search plugin's "tool-search.usage" service (core imports no plugin). */
async function usage(ctx: CommandContext, host: Host): Promise<number> {
  const svc = host.service<{ report(): Promise<unknown>; text(r: unknown): string }>("tool-search.usage");
  if (!svc) {
    ctx.io.err("toolhost tools --usage: the tool-search plugin is not loaded (it provides usage-driven deferral)");
    return 1;
  }
  const r = await svc.report();
  ctx.io.out(ctx.json ? JSON.stringify(r, null, 2) : svc.text(r));
  return 0;
}
