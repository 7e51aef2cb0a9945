import type { CommandContext } from "../../core/index.ts";
import { UsageError } from "../../core/index.ts";
import type { Explanation } from "../../core/index.ts";

export async function run(ctx: CommandContext): Promise<number> {
  const name = ctx.args.positionals[0];
  if (!name) throw new UsageError("explain needs a tool name");
  const host = await ctx.host();
  try {
    const e = host.explain(name); // key order: name, status, reason, rule, plugin, file, then the rest
    ctx.io.out(ctx.json ? JSON.stringify(e, null, 2) : text(e).join("\n"));
    return e.status === "unknown" ? 1 : 0;
  } finally {
    await host.close();
  }
}

function text(e: Explanation): string[] {
  const out = [`${e.name}: ${e.status}`, `  reason: ${e.reason}`, ...[["rule:  ", e.rule], ["plugin:", e.plugin], ["file:  ", e.file]].filter((x) => x[1]).map(([k, v]) => `  ${k} ${v}`)];
  if (e.tool) out.push(`  from:   ${e.tool.origin} tool of plugin ${e.tool.plugin}${e.tool.server ? ` (server ${e.tool.server})` : ""}${e.tool.file ? ` — ${e.tool.file}` : ""}`);
  if (e.owner !== undefined) out.push(`  owner:  ${e.owner ? `plugin ${e.owner.plugin} (${e.owner.why})` : "none — the name is contested, so no tool serves it"}`);
  for (const l of e.lost ?? []) out.push(`  lost:   plugin ${l.plugin ?? "?"}${l.file ? ` (${l.file})` : ""}: ${l.reason}`);
  for (const note of e.notes ?? []) out.push(`  note:   ${note}`);
  for (const g of e.grants ?? []) out.push(`  allow:  "${g.rule}" from ${g.plugin}${g.file ? ` ${g.file}` : ""} ${g.path}: ${g.applies}`);
  for (const a of e.also ?? []) if (!/^(conflict|name: )/.test(a.rule ?? "")) out.push(`  also:   ${a.reason}${a.plugin ? ` (plugin ${a.plugin})` : ""}`);
  return out;
}
