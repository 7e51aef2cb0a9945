/**
 * A toolhost config found in the project (not named with --config, not createHost's inline config) came
 * with the repository, like `.claude/settings.json`: in an untrusted workspace the code and commands it
 * names wait for trust — the plugins it lists (their modules would run at activation), its hooks, MCP and
 * LSP servers (their commands would run). Deny and ask rules apply at once; its allow rules are the
 * permissions plugin's (grants.ts projectConfigGate). Each generation says what it withheld (a warning
 * naming the file and the JSON path) and the stderr says it once per host; on a terminal the trust
 * plugin's prompt asks once.
 */
import fs from "node:fs";
import path from "node:path";
import { type BuildView, type LoadedPlugin, type PluginContext, type PluginSource, type ProblemReport } from "../../core/index.ts";
import type { TrustState } from "./store.ts";

export interface ProjectConfigGate {
  /** host.discover: sources a project config names, minus those withheld. */
  sources(list: PluginSource[]): Promise<PluginSource[]>;
  /** build (early): the project config's hooks and servers withheld; this generation's warnings. */
  build(build: BuildView): ProblemReport[];
}

const inside = (dir: string, file: string) => {
  const r = path.relative(dir, file);
  return !!r && !r.startsWith("..") && !path.isAbsolute(r);
};

export function projectConfigGate(ctx: PluginContext, state: () => TrustState, confirm: (withheld: string[]) => Promise<TrustState>): ProjectConfigGate {
  let withheldSources: PluginSource[] = [];
  const said = new Set<string>();
  const fromProject = (file: string | undefined) => !!file && !ctx.host.options.configFile && inside(ctx.host.cwd, file);
  const warn = (message: string, file: string | undefined, jsonPath: string): ProblemReport => {
    if (!said.has(message)) said.add(message), ctx.host.log.warn(`toolhost: ${message}`);
    return { plugin: "trust", file, path: jsonPath, message, severity: "warning" };
  };
  const advice = (s: TrustState) => `workspace ${ctx.host.cwd} is not trusted (${s.by})`;
  const how = `Trust it with \`toolhost trust ${ctx.host.cwd}\`, or name your own config with --config`;
  return {
    async sources(list) {
      const held = list.filter((s) => (s.kind === "config" || s.kind === "npm") && fromProject(s.from));
      withheldSources = [];
      if (!held.length) return list;
      let s = state();
      if (!s.trusted) s = await confirm(held.map((h) => `plugin ${path.relative(ctx.host.cwd, h.path) || h.path} named by ${path.relative(ctx.host.cwd, h.from!)} (its code runs when it loads)`));
      if (s.trusted) return list;
      withheldSources = held;
      return list.filter((x) => !held.includes(x));
    },
    build(build) {
      const problems: ProblemReport[] = [];
      const s = withheldSources.length ? state() : undefined;
      for (const h of withheldSources) problems.push(warn(`${advice(s!)}; not loaded: plugin ${h.path} named by the toolhost config found in the project. ${how}`, h.from, "/plugins"));
      // the config file's source (only a file that exists is the repository's): createHost's inline config is a
      // source of its own (no manifestFile), and what it replaces is not in the file's (core/manifest/config.ts)
      const cfg = build.plugins.find((p): p is LoadedPlugin => p.kind === "config" && fromProject(p.manifestFile) && fs.existsSync(p.manifestFile!));
      if (!cfg) return problems;
      const c = cfg.components;
      const parts = [["hooks", c.hooks], ["mcpServers", c.mcpServers], ["lspServers", c.lspServers]] as const;
      const what = parts.filter(([, list]) => list.length).map(([k]) => k);
      if (!what.length) return problems;
      const st = state();
      if (st.trusted) return problems;
      if (what.includes("hooks")) c.hooks = [];
      if (what.includes("mcpServers")) c.mcpServers = [];
      if (what.includes("lspServers")) c.lspServers = [];
      problems.push(warn(`${advice(st)}; not applied: ${what.join(", ")} of the toolhost config found in the project (their commands would run). ${how}`, cfg.manifestFile, `/${what[0]}`));
      return problems;
    },
  };
}
