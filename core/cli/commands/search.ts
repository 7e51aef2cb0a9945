import path from "node:path";
import type { Command } from "../context.ts";
import { UsageError } from "../args.ts";
import { PACKAGE_ROOT } from "../../host.ts";
import type { PoolSnapshot, Tool } from "../../index.ts";

/** What `toolhost search` uses from the bundled tool-search plugin (loaded by path so core's types stay core-only). */
interface SearchApi {
  indexFor(pool: PoolSnapshot): { tools: readonly Tool[] };
  buildDeferredIndex(generation: number, tools: readonly Tool[]): { tools: readonly Tool[] };
  search(
    ix: unknown,
    query: string,
    limit: number,
    pool?: PoolSnapshot,
  ): { tools: Array<{ name: string; score: number }>; unresolved: string[]; ambiguous: Array<{ name: string; candidates: string[] }>; alreadyLoaded: string[]; suggestions: string[] };
}

export async function loadSearchApi(): Promise<SearchApi> {
  const file = path.join(PACKAGE_ROOT, "plugins", "tool-search", "search.ts");
  return (await import(file)) as SearchApi;
}

/**
 * `toolhost search '<query>' [--json] [--limit N] [--all]`: rank the deferred tools exactly as the
 * ToolSearch tool does (same parser, same index, same ranking). --all searches every pooled tool.
 */
export const searchCommand: Command = {
  name: "search",
  summary: "rank deferred tools for a query, exactly as the ToolSearch tool does",
  usage: "toolhost search '<query>' [--json] [--limit N] [--all]",
  values: ["limit"],
  async run(ctx) {
    const query = ctx.args.positionals.join(" ").trim();
    if (!query) throw new UsageError("search needs a query (keywords, select:<name>,… or +<required> <keywords>)");
    const rawLimit = ctx.args.flags.limit;
    const limit = rawLimit === undefined ? 5 : Number(rawLimit);
    if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit must be a positive integer; got ${JSON.stringify(rawLimit)}`);
    const api = await loadSearchApi();
    const host = await ctx.host();
    try {
      const pool = host.pool;
      const ix = ctx.args.flags.all === true ? api.buildDeferredIndex(pool.generation, [...pool.tools, ...pool.deferred]) : api.indexFor(pool);
      const o = api.search(ix, query, limit, pool);
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
  },
};
