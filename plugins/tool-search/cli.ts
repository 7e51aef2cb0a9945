/**
 * `toolhost search '<query>' [--json] [--limit N] [--all]` (declared in manifests/tool-search.json
 * `cliCommands`): rank the deferred tools exactly as the ToolSearch tool does (same parser, same index, same
 * ranking). --all searches every pooled tool.
 */
import { UsageError, type CommandContext } from "../../core/index.ts";
import { buildDeferredIndex, indexFor, search } from "./search.ts";

export async function run(ctx: CommandContext): Promise<number> {
  const query = ctx.args.positionals.join(" ").trim();
  if (!query) throw new UsageError("search needs a query (keywords, select:<name>,… or +<required> <keywords>)");
  const rawLimit = ctx.args.flags.limit;
  const limit = rawLimit === undefined ? 5 : Number(rawLimit);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit must be a positive integer; got ${JSON.stringify(rawLimit)}`);
  const host = await ctx.host();
  try {
    const pool = host.pool;
    const ix = ctx.args.flags.all === true ? buildDeferredIndex(pool.generation, [...pool.tools, ...pool.deferred]) : indexFor(pool);
    const o = search(ix, query, limit, pool);
    if (ctx.json) {
      ctx.io.out(
        JSON.stringify(
          { query, tools: o.tools, unresolved: o.unresolved, ambiguous: o.ambiguous, alreadyLoaded: o.alreadyLoaded, suggestions: o.suggestions, searched: ix.tools.length },
          null,
          2,
        ),
      );
    } else if (!o.tools.length) {
      ctx.io.out(["No matching deferred tools found.", ...o.ambiguous.map((a) => `"${a.name}" is ambiguous: ${a.candidates.join(", ")}`), ...o.alreadyLoaded.map((n) => `"${n}" is already loaded`), ...o.suggestions].join("\n"));
    } else {
      const w = Math.max(...o.tools.map((t) => t.name.length));
      for (const t of o.tools) ctx.io.out(`${t.name.padEnd(w)}  ${t.score.toFixed(3)}`);
      for (const a of o.ambiguous) ctx.io.out(`"${a.name}" is ambiguous: ${a.candidates.join(", ")}`);
      for (const n of o.unresolved) ctx.io.out(`no deferred tool named "${n}"`);
    }
    return o.tools.length ? 0 : 1;
  } finally {
    await host.close();
  }
}
