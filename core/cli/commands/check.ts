import path from "node:path";
import type { CommandContext } from "../context.ts";
import { loadPlugin } from "../../index.ts";

export async function run(ctx: CommandContext): Promise<number> {
  const dir = ctx.args.positionals[0];
  const cwd = typeof ctx.args.flags.cwd === "string" ? ctx.args.flags.cwd : process.cwd();
  let pluginId: string | undefined;
  let rootFile: string | undefined;
  if (dir) {
    const lp = loadPlugin({ kind: "plugin-dir", path: path.resolve(cwd, dir) }, { projectDir: path.resolve(cwd) });
    pluginId = lp.id;
    rootFile = lp.root;
  }
  // Load it inside a real host too, so tool modules, rules with examples and hooks are exercised.
  const host = await ctx.host(dir ? { pluginDirs: [...((ctx.args.flags["plugin-dir"] as string[]) ?? []), path.resolve(cwd, dir)] } : {});
  try {
    let problems = host.problems();
    if (pluginId) problems = problems.filter((p) => p.plugin === pluginId || (rootFile && p.file?.startsWith(rootFile)));
    const [errors, warnings] = [problems.filter((p) => p.severity === "error"), problems.filter((p) => p.severity === "warning")];
    const strip = (p: (typeof problems)[number]) => ({ plugin: p.plugin, file: p.file ?? null, path: p.path ?? null, message: p.message });
    if (ctx.json) ctx.io.out(JSON.stringify({ ok: errors.length === 0, plugin: pluginId ?? null, errors: errors.map(strip), warnings: warnings.map(strip) }, null, 2));
    else {
      for (const p of [...errors, ...warnings]) ctx.io.out(`${p.severity}: [${p.plugin}] ${p.file ?? ""}${p.path ? ` ${p.path}` : ""}: ${p.message}`);
      const tools = pluginId ? [...host.pool.tools, ...host.pool.deferred].filter((t) => t.plugin === pluginId).length : host.pool.tools.length + host.pool.deferred.length;
      ctx.io.out(`${errors.length ? "✗" : "✓"} ${pluginId ? `plugin ${pluginId}` : "configuration"}: ${errors.length} errors, ${warnings.length} warnings, ${tools} tools`);
    }
    return errors.length ? 1 : 0;
  } finally {
    await host.close();
  }
}
