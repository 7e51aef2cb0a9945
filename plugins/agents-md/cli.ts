/**
 * `toolhost agents [--json]` (declared in manifests/agents-md.json `cliCommands`): what the project's
 * AGENTS.md files compile to — each enforced rule with its line, the post-edit reminders, and the rule-like
 * sentences that stay advice (with why), so authors see exactly what the host enforces.
 */
import path from "node:path";
import { loadConfig, type CommandContext } from "../../core/index.ts";
import { loadAgents } from "./load.ts";

export async function run(ctx: CommandContext): Promise<number> {
  const cwd = path.resolve(typeof ctx.args.flags.cwd === "string" ? ctx.args.flags.cwd : process.cwd());
  const cfg = await loadConfig({ cwd, configFile: typeof ctx.args.flags.config === "string" ? ctx.args.flags.config : undefined });
  const { files, errors } = loadAgents(cwd, cfg.config.agentsMd?.files);
  if (ctx.json) {
    ctx.io.out(
      JSON.stringify(
        {
          files: files.map((f) => ({
            file: f.file,
            scope: f.scope,
            rules: f.rules.map((r) => ({ line: r.line, behavior: r.behavior, rule: r.rule, text: r.text, hint: r.hint ?? null })),
            reminders: f.reminders.map((r) => ({ line: r.line, paths: r.paths, run: r.run, text: r.text })),
            unenforced: f.unenforced.map((u) => ({ line: u.line, text: u.text, why: u.why })),
            problems: f.problems.map((p) => ({ line: p.line, text: p.text, why: p.why })),
          })),
          errors,
        },
        null,
        2,
      ),
    );
    return errors.length || files.some((f) => f.problems.length) ? 1 : 0;
  }
  if (!files.length && !errors.length) ctx.io.out(`No AGENTS.md found in ${cwd} or the directories below it.`);
  for (const f of files) {
    const rel = path.relative(cwd, f.file) || f.file;
    ctx.io.out(`${rel}${f.scope === cwd ? "" : ` (governs ${path.relative(cwd, f.scope)}/)`}`);
    for (const r of f.rules) ctx.io.out(`  ${rel}:${r.line}  ${r.behavior.padEnd(4)} ${r.rule}${r.hint ? `  (${r.hint})` : ""}`);
    for (const r of f.reminders) ctx.io.out(`  ${rel}:${r.line}  after editing ${r.paths.length ? r.paths.join(", ") : "any file"}: remind to run ${r.run.join(", ")}`);
    for (const u of f.unenforced) ctx.io.out(`  ${rel}:${u.line}  advice only: ${u.text}  [${u.why}]`);
    for (const p of f.problems) ctx.io.out(`  ${rel}:${p.line}  problem: ${p.text}  [${p.why}]`);
  }
  for (const e of errors) ctx.io.out(`${e.file}: ${e.message}`);
  return errors.length || files.some((f) => f.problems.length) ? 1 : 0;
}
