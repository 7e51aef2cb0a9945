/**
 * `toolhost check [dir | file | package] [--json] [--strict]` (declared in manifests/check.json): load a
 * plugin — a directory, a manifest file, or an npm package installed where config would find it — or the
 * whole configuration inside a real host, so tool modules, rules with examples and hooks are exercised; then
 * report the host's problems, what loads but would never work (lint.ts), and each tool's design score
 * (design.ts). Exit 1 on an error, and with --strict on a warning too (for CI).
 */
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { loadPlugin, UsageError, type CommandContext, type Host, type LoadedPlugin, type ProblemReport } from "../../core/index.ts";
import { hookFindings, pluginDirFindings, type Finding } from "./lint.ts";
import { scoreTool, type DesignScore } from "./design.ts";
import { loadedOf } from "./loaded.ts";

/** A path, else the root of an npm package resolved from cwd as config resolves plugin packages. */
export function resolveTarget(spec: string, cwd: string): string {
  const p = path.resolve(cwd, spec);
  if (fs.existsSync(p)) return p;
  try {
    return path.dirname(createRequire(path.join(cwd, "noop.js")).resolve(`${spec}/package.json`));
  } catch {
    throw new UsageError(`${spec} is neither a path nor a package installed in ${cwd} (npm install it, or give its directory)`);
  }
}

export async function run(ctx: CommandContext): Promise<number> {
  const spec = ctx.args.positionals[0];
  const strict = ctx.args.flags.strict === true;
  const cwd = typeof ctx.args.flags.cwd === "string" ? path.resolve(ctx.args.flags.cwd) : process.cwd();
  const target = spec ? resolveTarget(spec, cwd) : undefined;
  const alone = target ? loadPlugin({ kind: "plugin-dir", path: target }, { projectDir: cwd }) : undefined;
  const host = await ctx.host(target ? { pluginDirs: [...((ctx.args.flags["plugin-dir"] as string[]) ?? []), target] } : {});
  try {
    const mine = (pl: { plugin?: string; file?: string | null }) => !alone || pl.plugin === alone.id || (!!pl.file && pl.file.startsWith(alone.root));
    const checked: LoadedPlugin[] = alone ? host.plugins.filter((p) => p.id === alone.id) : host.plugins.filter((p) => p.source.kind !== "bundled");
    const findings: Finding[] = [
      ...host.problems().filter(mine).map(fromProblem),
      ...(alone ? pluginDirFindings(host.plugins.find((p) => p.id === alone.id) ?? alone) : []),
      ...hookFindings(host, checked),
    ];
    const errors = dedupe(findings.filter((f) => f.severity === "error"));
    const warnings = dedupe(findings.filter((f) => f.severity === "warning"));
    const deferred = new Set(host.pool.deferred.map((t) => t.name));
    const tools = [...host.pool.tools, ...host.pool.deferred].filter((t) => (alone ? t.plugin === alone.id : checked.some((p) => p.id === t.plugin)));
    const design = tools.map((t) => scoreTool(t, deferred.has(t.name)));
    const failed = errors.length > 0 || (strict && warnings.length > 0);
    if (ctx.json) {
      // entries keep the shape `check --json` always had: {plugin, file, path, message} (the list says the severity)
      const strip = ({ severity: _, ...f }: Finding) => f;
      ctx.io.out(JSON.stringify({ ok: !failed, plugin: alone?.id ?? null, strict, errors: errors.map(strip), warnings: warnings.map(strip), loaded: loadedOf(host, checked, tools), design }, null, 2));
    } else print(ctx, { errors, warnings, design, label: alone ? `plugin ${alone.id}` : "configuration", tools: alone ? tools.length : host.pool.tools.length + host.pool.deferred.length, failed, strict });
    return failed ? 1 : 0;
  } finally {
    await host.close();
  }
}

function fromProblem(p: ProblemReport): Finding {
  return { severity: p.severity === "error" ? "error" : "warning", plugin: p.plugin, file: p.file ?? null, path: p.path ?? null, message: p.message };
}

function dedupe(fs: Finding[]): Finding[] {
  const seen = new Set<string>();
  return fs.filter((f) => {
    const k = `${f.plugin}\0${f.file}\0${f.path}\0${f.message}`;
    return !seen.has(k) && (seen.add(k), true);
  });
}

function print(ctx: CommandContext, r: { errors: Finding[]; warnings: Finding[]; design: DesignScore[]; label: string; tools: number; failed: boolean; strict: boolean }): void {
  for (const p of [...r.errors, ...r.warnings]) ctx.io.out(`${p.severity}: [${p.plugin}] ${p.file ?? ""}${p.path ? ` ${p.path}` : ""}: ${p.message}`);
  for (const d of r.design) {
    const misses = d.checks.filter((c) => !c.ok);
    ctx.io.out(`design ${d.score} ${d.tool}${misses.length ? ":" : ""}`);
    for (const c of misses) ctx.io.out(`  - ${c.check}: ${c.advice}`);
  }
  const counts = `${r.errors.length} errors, ${r.warnings.length} warnings${r.strict && r.warnings.length ? " (--strict: warnings fail)" : ""}`;
  ctx.io.out(`${r.failed ? "✗" : "✓"} ${r.label}: ${counts}, ${r.tools} tools`);
}

export type { Host };
