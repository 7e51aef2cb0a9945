import type { CommandContext } from "../context.ts";
import { UsageError } from "../args.ts";
import { explanationText } from "../../index.ts";

export async function run(ctx: CommandContext): Promise<number> {
  const name = ctx.args.positionals[0];
  if (!name) throw new UsageError("explain needs a tool name");
  const host = await ctx.host();
  try {
    const e = host.explain(name);
    const { name: n, status, reason, rule, plugin, file, ...rest } = e;
    if (ctx.json) ctx.io.out(JSON.stringify({ name: n, status, reason, rule, plugin, file, ...rest }, null, 2));
    else for (const line of explanationText(e)) ctx.io.out(line);
    return status === "unknown" ? 1 : 0;
  } finally {
    await host.close();
  }
}
