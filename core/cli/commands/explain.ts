import type { CommandContext } from "../context.ts";
import { UsageError } from "../args.ts";

export async function run(ctx: CommandContext): Promise<number> {
  const name = ctx.args.positionals[0];
  if (!name) throw new UsageError("explain needs a tool name");
  const host = await ctx.host();
  try {
    const e = host.explain(name);
    const { name: n, status, reason, rule, plugin, file, ...rest } = e;
    if (ctx.json) ctx.io.out(JSON.stringify({ name: n, status, reason, rule, plugin, file, ...rest }, null, 2));
    else {
      ctx.io.out(`${n}: ${status}\n  reason: ${reason}`);
      if (rule) ctx.io.out(`  rule:   ${rule}`);
      if (plugin) ctx.io.out(`  plugin: ${plugin}`);
      if (file) ctx.io.out(`  file:   ${file}`);
      if (e.tool) ctx.io.out(`  from:   ${e.tool.origin} tool of plugin ${e.tool.plugin}${e.tool.server ? ` (server ${e.tool.server})` : ""}${e.tool.file ? ` — ${e.tool.file}` : ""}`);
      for (const note of e.notes ?? []) ctx.io.out(`  note:   ${note}`);
      for (const a of e.also ?? []) ctx.io.out(`  also:   ${a.reason}${a.plugin ? ` (plugin ${a.plugin})` : ""}`);
    }
    return status === "unknown" ? 1 : 0;
  } finally {
    await host.close();
  }
}
