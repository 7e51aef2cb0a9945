/**
 * `toolhost agents [--json] [--strict]` (declared in manifests/agents-md.json `cliCommands`): what the
 * project's instruction files compile to — each enforced rule with its line, the reminders, and every
 * instruction-like sentence that stays advice (with its kind and why; conflicts name the rule they would
 * have been), so nothing is dropped silently. Exit 1 on a problem; with --strict also on any sentence the
 * compiler could not classify.
 */
import path from "node:path";
import { loadConfig, type CommandContext } from "../../core/index.ts";
import { loadAgents, type AgentsFile } from "./load.ts";
import { isInside } from "../../lib/fs-path.ts";

export async function run(ctx: CommandContext): Promise<number> {
  const cwd = path.resolve(typeof ctx.args.flags.cwd === "string" ? ctx.args.flags.cwd : process.cwd());
  const cfg = await loadConfig({ cwd, configFile: typeof ctx.args.flags.config === "string" ? ctx.args.flags.config : undefined });
  const { files, errors } = loadAgents(cwd, cfg.config.agentsMd?.files);
  const strict = ctx.args.flags.strict === true;
  if (ctx.json) {
    ctx.io.out(
      JSON.stringify(
        {
          files: files.map((f) => ({
            file: f.file,
            scope: f.scope,
            rules: f.rules.map((r) => ({ line: r.line, behavior: r.behavior, rule: r.rule, text: r.text, hint: r.hint ?? null, also: r.also ?? [] })),
            reminders: f.reminders.map((r) => ({ line: r.line, paths: r.paths, run: r.run, text: r.text, on: r.on ?? "edit", after: r.after ?? [], before: r.on === "commit" ? (r.before ?? ["Bash(git commit *)"]) : [], action: r.action ?? null })),
            unenforced: f.unenforced.map((u) => ({ line: u.line, text: u.text, why: u.why, kind: u.kind ?? "unclassified" })),
            problems: f.problems.map((p) => ({ line: p.line, text: p.text, why: p.why })),
          })),
          errors,
        },
        null,
        2,
      ),
    );
    return exitCode(files, errors, strict);
  }
  if (!files.length && !errors.length) ctx.io.out(`No AGENTS.md found in ${cwd} or the directories below it.`);
  for (const f of files) {
    const rel = path.relative(cwd, f.file) || f.file;
    ctx.io.out(`${rel}${f.scope === cwd || isInside(cwd, f.scope) ? "" : ` (governs ${path.relative(cwd, f.scope)}/)`}`);
    for (const r of f.rules) ctx.io.out(`  ${rel}:${r.line}  ${r.behavior.padEnd(4)} ${r.rule}${r.hint ? `  (${r.hint})` : ""}${r.also?.length ? `  (also line ${r.also.join(", ")})` : ""}`);
    for (const r of f.reminders) ctx.io.out(`  ${rel}:${r.line}  ${when(r)}: remind to ${r.run.length ? `run ${r.run.join(", ")}` : (r.action ?? r.text)}`);
    for (const u of f.unenforced) ctx.io.out(`  ${rel}:${u.line}  ${u.kind === "conflict" ? "conflict, not enforced" : `advice only (${u.kind ?? "unclassified"})`}: ${u.text}  [${u.why}]`);
    for (const p of f.problems) ctx.io.out(`  ${rel}:${p.line}  problem: ${p.text}  [${p.why}]`);
  }
  for (const e of errors) ctx.io.out(`${e.file}: ${e.message}`);
  const open = unclassified(files);
  if (strict && open) ctx.io.out(`--strict: ${open} instruction line(s) could not be classified`);
  return exitCode(files, errors, strict);
}

function when(r: AgentsFile["reminders"][number]): string {
  if (r.on === "commit") return r.before ? `before ${r.before.map((b) => b.replace(/^Bash\((.*?)(?: \*)?\)$/, "$1")).join(" / ")}` : "before git commit";
  if (r.on === "command") return `after running ${(r.after ?? []).join(", ")}`;
  return `after editing ${r.paths.join(", ")}`;
}

const unclassified = (files: AgentsFile[]) => files.reduce((n, f) => n + f.unenforced.filter((u) => (u.kind ?? "unclassified") === "unclassified").length, 0);

function exitCode(files: AgentsFile[], errors: unknown[], strict: boolean): number {
  if (errors.length || files.some((f) => f.problems.length)) return 1;
  return strict && unclassified(files) ? 1 : 0;
}
