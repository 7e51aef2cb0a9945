/**
 * The one rebuild path. Every change — a file edit, MCP list_changed, a mode switch, a plugin added —
 * ends here (through host.invalidate's coalescer). It builds a complete new generation and swaps it in
 * with one assignment; a generation that brings new errors leaves the last good one serving.
 */
import { errorMessage, type ProblemReport } from "../errors.ts";
import { Build } from "../build/build.ts";
import { diffPools } from "../build/pool.ts";
import type { PoolSnapshot } from "../types.ts";
import { inlineDefs } from "./plugin-code.ts";
import { problemKey } from "./activate.ts";
import { activateBundled, Generation, readConfiguration, loadManifests, readSettings, checkContributedConfig } from "./generation.ts";
import type { HostState, RebuildResult } from "./state.ts";

export async function rebuild(h: HostState, reason: string): Promise<RebuildResult> {
  const gen = new Generation(h, reason); //                       host.rebuildStart
  await activateBundled(h, gen); //                               first generation only: the host's own plugins first
  const cfg = await readConfiguration(h, gen); //                 config + settings + mode + plugin sources + host.discover
  const plugins = loadManifests(h, gen, cfg); //                  manifests read and checked; duplicates refused
  if (h.current && gen.fresh().length) return keepLastGood(h, gen, gen.fresh());
  const broken = await h.activator.sync(plugins, gen.problems, inlineDefs(h.options.plugins), gen.known, !!h.current);
  if (broken.length) return keepLastGood(h, gen, broken); //      import changed code first, dispose removed plugins after
  await readSettings(h, gen, cfg, plugins); //                   host.settings (Claude Code settings, .mcp.json), then the mode
  checkContributedConfig(h, gen, cfg);
  if (h.current && gen.fresh().length) return keepLastGood(h, gen, gen.fresh());
  const build = new Build(gen.number, h.mode, h.cwd, cfg.config, plugins, h.view, (t, i, s) => h.allowAlways(t, i, s)); // config + mode frozen
  h.hooks.build.call(build);
  const pool = await assemble(h, gen, build);
  if (!pool) return keepLastGood(h, gen, gen.buildFailures);
  return swap(h, gen, build, pool, cfg.config, plugins);
}

/** collect → exclude → conflicts → sort → defer → seal; undefined when the new generation must not serve. */
async function assemble(h: HostState, gen: Generation, build: Build): Promise<PoolSnapshot | undefined> {
  try {
    const pool = await build.assemble();
    // Plugin code that no longer loads (a tool module with a syntax error) is a broken edit too.
    const codeFiles = new Set(build.plugins.flatMap((lp) => [...lp.components.tools.map((t) => t.file), ...(lp.components.main ? [lp.components.main.file] : [])]));
    const knownBuild = new Set((h.current?.problems ?? []).filter((p) => p.severity === "error").map(problemKey));
    gen.buildFailures = build.problems.filter((p) => p.severity === "error" && ((p.file && codeFiles.has(p.file)) || build.blocking.has(p)) && !knownBuild.has(problemKey(p)));
    gen.problems.push(...build.problems);
    return h.current && gen.buildFailures.length ? undefined : pool;
  } catch (e) {
    const pr: ProblemReport = { plugin: "toolhost", path: "build", message: `pool assembly failed: ${errorMessage(e)}`, severity: "error" };
    gen.problems.push(pr);
    gen.buildFailures = [pr];
    if (h.current) return undefined;
    h.hooks.rebuildFailed.call(gen.info, [pr]);
    throw e;
  }
}

function swap(h: HostState, gen: Generation, build: Build, pool: PoolSnapshot, config: HostState["config"], plugins: HostState["loaded"]): RebuildResult {
  const prev = h.current?.pool;
  h.current = build; // the swap: one assignment
  h.config = config;
  h.loaded = plugins;
  h.loadProblems = gen.problems.filter((p) => !build.problems.includes(p));
  const diff = diffPools(prev, pool);
  h.hooks.rebuildDone.call(pool, diff);
  if (diff.fingerprintChanged) h.hooks.poolChanged.call(pool, diff);
  const ms = gen.ms();
  h.log.info(`generation ${gen.number} (${gen.reason}): ${pool.tools.length} loaded, ${pool.deferred.length} deferred, ${pool.excluded.length} excluded; +${diff.added.length} -${diff.removed.length} ~${diff.changed.length}${describeDiff(diff)} in ${ms.toFixed(0)} ms`);
  return { ok: true, pool, diff, problems: gen.problems, ms };
}

function keepLastGood(h: HostState, gen: Generation, failures: ProblemReport[]): RebuildResult {
  const current = h.current!;
  h.hooks.rebuildFailed.call(gen.info, failures);
  h.log.warn(`rebuild #${gen.number} (${gen.reason}) failed; keeping generation ${current.pool.generation}: ${failures.map((p) => `${p.plugin} ${p.file ?? ""}${p.path ? ` ${p.path}` : ""}: ${p.message}`).join("; ")}`);
  return { ok: false, pool: current.pool, problems: gen.problems, failures, ms: gen.ms() };
}

/** " (+a, b; -c; ~d)" with at most 5 names per kind, for the rebuild log line. */
function describeDiff(diff: { added: string[]; removed: string[]; changed: string[] }): string {
  const part = (sign: string, xs: string[]) => (xs.length ? `${sign}${xs.slice(0, 5).join(", ")}${xs.length > 5 ? ` …${xs.length - 5} more` : ""}` : "");
  const parts = [part("+", diff.added), part("-", diff.removed), part("~", diff.changed)].filter(Boolean);
  return parts.length ? ` (${parts.join("; ")})` : "";
}
