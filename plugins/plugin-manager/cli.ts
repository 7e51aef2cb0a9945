/**
 * `toolhost plugin add|remove|list|update [spec]` and `toolhost plugin marketplace add|list` (declared in
 * manifests/plugin-manager.json `cliCommands`). A spec is an npm spec (`pkg`, `pkg@range`, `@scope/pkg`), a git
 * URL (installed with npm), a local path, or `plugin@marketplace` (a Claude Code marketplace added before).
 * npm and git plugins are installed into the project (`npm install --save`); every plugin is recorded in the
 * project's toolhost config `plugins`. After add and update, the plugin is checked in a real host; on errors the
 * config change is undone (exit 1) unless --force.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { UsageError, type CommandContext, type ProblemReport } from "../../core/index.ts";
import { configFile, type ConfigFile } from "./config-file.ts";
import { addMarketplace, isGit, isMarketplaceSpec, listMarketplaces, resolveMarketplacePlugin } from "./marketplace.ts";

const isTarball = (s: string) => /\.(tgz|tar\.gz)$/.test(s);
const isPath = (s: string) => (s.startsWith(".") || path.isAbsolute(s) || s.startsWith("~")) && !isTarball(s);
/** `pkg@range` / `@scope/pkg@range` → the package name. */
const npmName = (spec: string) => (spec.startsWith("@") ? spec.split("@").slice(0, 2).join("@") : spec.split("@")[0]!);

/** Run npm without blocking the event loop, so a terminal shows the step while it runs (`ctx.step`). */
async function npm(ctx: CommandContext, args: string[], cwd: string): Promise<void> {
  const done = ctx.step(`npm ${args.join(" ")}`);
  const r = await new Promise<{ status: number | null; out: string }>((resolve) => {
    const child = spawn("npm", [...args, "--no-audit", "--no-fund"], { cwd, env: { ...process.env, npm_config_update_notifier: "false" }, stdio: ["ignore", "pipe", "pipe"] });
    const chunks: { out: string[]; err: string[] } = { out: [], err: [] };
    child.stdout.on("data", (d) => chunks.out.push(String(d)));
    child.stderr.on("data", (d) => chunks.err.push(String(d)));
    child.on("error", (e) => resolve({ status: null, out: e.message }));
    child.on("close", (status) => resolve({ status, out: (chunks.err.join("") || chunks.out.join("")).trim() }));
  });
  done(r.status === 0);
  if (r.status !== 0) throw new Error(`npm ${args.join(" ")} failed (exit ${r.status}):\n${r.out}`);
}

function dependencies(cwd: string): Record<string, string> {
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(cwd, "package.json"), "utf8"));
    return { ...pkg.dependencies, ...pkg.devDependencies };
  } catch {
    return {};
  }
}

/** Install `spec` (npm or git) into the project; the config entry is the installed package's name. */
async function installPackage(ctx: CommandContext, spec: string, cwd: string): Promise<string> {
  if (!fs.existsSync(path.join(cwd, "package.json"))) fs.writeFileSync(path.join(cwd, "package.json"), JSON.stringify({ private: true }, null, 2) + "\n");
  const before = dependencies(cwd);
  await npm(ctx, ["install", "--save", spec], cwd);
  const after = dependencies(cwd);
  const added = Object.keys(after).find((k) => before[k] !== after[k]);
  return added ?? npmName(spec);
}

/** What goes into config `plugins` for `spec` (installing it first where it must be). */
async function entryFor(ctx: CommandContext, spec: string, cwd: string, cfg: ConfigFile): Promise<string> {
  if (isMarketplaceSpec(spec)) return resolveMarketplacePlugin(spec);
  if (isPath(spec) && !isGit(spec)) {
    const abs = path.resolve(cwd, spec);
    if (!fs.existsSync(abs)) throw new UsageError(`${abs} does not exist`);
    const rel = path.relative(path.dirname(cfg.file), abs);
    return rel.startsWith("..") || path.isAbsolute(rel) ? abs : `./${rel}`;
  }
  try {
    return await installPackage(ctx, spec, cwd);
  } catch (e) {
    const market = /^[a-z0-9][\w.-]*@([a-z][\w.-]*)$/i.exec(spec)?.[1];
    if (market && !["latest", "next", "beta", "canary"].includes(market)) throw new Error(`${(e as Error).message}\n(if "${market}" is a Claude Code marketplace, add it first: toolhost plugin marketplace add <dir | git url>)`);
    throw e;
  }
}

/** Load the configuration in a real host and return the errors that concern `entry`. */
async function checkEntry(ctx: CommandContext, entry: string, cfgFile: string): Promise<ProblemReport[]> {
  // The plugin the user just added is checked as a --plugin-dir: in a workspace not yet trusted, plugins named by a
  // project's config are withheld (the trust plugin), but this one is the user's own choice, made now.
  const base = path.dirname(cfgFile);
  const dir = isPath(entry) ? path.resolve(base, entry) : nodeModule(base, entry);
  const host = await ctx.host({ watch: false, ...(dir ? { pluginDirs: [...((ctx.args.flags["plugin-dir"] as string[]) ?? []), dir] } : {}) });
  try {
    const src = host.sources.find((s) => s.path && (s.path === dir || s.path === entry || path.basename(s.path) === path.basename(entry) || s.path.endsWith(path.join("node_modules", entry))));
    return host.problems().filter((p) => p.severity === "error" && (p.plugin === entry || (!!src?.path && !!p.file && p.file.startsWith(src.path))));
  } finally {
    await host.close();
  }
}

async function untrusted(ctx: CommandContext): Promise<boolean> {
  const host = await ctx.host({ watch: false });
  try {
    return host.service<{ state(): { trusted: boolean } }>("workspace.trust")?.state().trusted === false;
  } finally {
    await host.close();
  }
}

/** The trust plugin withheld this entry of a project's config (the workspace is not trusted). */
function isWithheld(problems: ProblemReport[], entry: string, cfgFile: string): boolean {
  const dir = isPath(entry) ? path.resolve(path.dirname(cfgFile), entry) : nodeModule(path.dirname(cfgFile), entry);
  return problems.some((p) => p.plugin === "trust" && p.path === "/plugins" && !!dir && p.message.includes(`plugin ${dir} `));
}

/** Where an npm plugin entry is installed, as config resolves it (node_modules above the config file). */
function nodeModule(from: string, name: string): string | undefined {
  for (let d = from; ; d = path.dirname(d)) {
    const cand = path.join(d, "node_modules", name);
    if (fs.existsSync(path.join(cand, "package.json"))) return cand;
    if (path.dirname(d) === d) return undefined;
  }
}

async function add(ctx: CommandContext, cwd: string, spec: string): Promise<number> {
  const cfg = configFile(cwd, ctx.args.flags.config as string | undefined);
  const before = cfg.plugins();
  const entry = await entryFor(ctx, spec, cwd, cfg);
  if (!before.includes(entry)) cfg.write([...before, entry]);
  const errors = await checkEntry(ctx, entry, cfg.file);
  if (errors.length && ctx.args.flags.force !== true) cfg.write(before);
  report(ctx, { action: "add", plugin: entry, config: cfg.file, errors, kept: !errors.length || ctx.args.flags.force === true });
  if (!errors.length && !ctx.json && (await untrusted(ctx))) ctx.io.err(`note: ${cwd} is not a trusted workspace, so plugins named by its toolhost config load once you trust it: toolhost trust ${cwd}`);
  return errors.length ? 1 : 0;
}

async function remove(ctx: CommandContext, cwd: string, spec: string): Promise<number> {
  const cfg = configFile(cwd, ctx.args.flags.config as string | undefined);
  const list = cfg.plugins();
  const name = isPath(spec) ? spec : npmName(spec);
  const keep = list.filter((p) => p !== name && path.resolve(cwd, p) !== path.resolve(cwd, name) && !p.endsWith(`@${name}`) && path.basename(p) !== name);
  if (keep.length === list.length) throw new UsageError(`"${spec}" is not in ${cfg.file} "plugins" (${list.join(", ") || "empty"})`);
  cfg.write(keep);
  if (!isPath(spec) && dependencies(cwd)[name]) await npm(ctx, ["uninstall", "--save", name], cwd);
  report(ctx, { action: "remove", plugin: name, config: cfg.file, errors: [], kept: false });
  return 0;
}

async function list(ctx: CommandContext, cwd: string): Promise<number> {
  const cfg = configFile(cwd, ctx.args.flags.config as string | undefined);
  const host = await ctx.host({ watch: false });
  try {
    const rows = cfg.plugins().map((entry) => {
      const src = host.sources.find((s) => s.from && s.path && (path.resolve(path.dirname(s.from), entry) === s.path || s.path.endsWith(path.join("node_modules", entry))));
      const lp = src && host.plugins.find((p) => p.source.path === src.path);
      const errors = host.problems().filter((p) => p.severity === "error" && (p.plugin === entry || (!!src?.path && !!p.file?.startsWith(src.path)))).length;
      const version = (lp?.manifest.version as string | undefined) ?? dependencies(cwd)[entry];
      const withheld = !lp && isWithheld(host.problems(), entry, cfg.file);
      return { entry, id: lp?.id ?? null, version: version ?? null, state: lp ? (errors ? "errors" : "loaded") : withheld ? "withheld" : "failed", errors, tools: lp ? [...host.pool.tools, ...host.pool.deferred].filter((t) => t.plugin === lp.id).length : 0 };
    });
    if (ctx.json) ctx.io.out(JSON.stringify({ config: cfg.file, plugins: rows, marketplaces: listMarketplaces() }, null, 2));
    else if (!rows.length) ctx.io.out(`no plugins in ${cfg.file} (add one: toolhost plugin add <npm spec | path | git url | plugin@marketplace>)`);
    else for (const r of rows) ctx.io.out(`${r.state === "loaded" ? "✓" : "✗"} ${r.entry}${r.version ? `@${r.version}` : ""}: ${r.state === "withheld" ? `withheld — the workspace is not trusted (toolhost trust ${cwd})` : r.state}, ${r.tools} tools${r.errors ? `, ${r.errors} errors` : ""}`);
    return rows.some((r) => r.state !== "loaded") ? 1 : 0;
  } finally {
    await host.close();
  }
}

async function update(ctx: CommandContext, cwd: string, spec: string | undefined): Promise<number> {
  const cfg = configFile(cwd, ctx.args.flags.config as string | undefined);
  const names = spec ? [npmName(spec)] : cfg.plugins().filter((p) => dependencies(cwd)[p]);
  if (names.length) await npm(ctx, ["update", ...names], cwd);
  let failed = 0;
  for (const n of names) {
    const errors = await checkEntry(ctx, n, cfg.file);
    report(ctx, { action: "update", plugin: n, config: cfg.file, errors, kept: true });
    failed += errors.length ? 1 : 0;
  }
  return failed ? 1 : 0;
}

function report(ctx: CommandContext, r: { action: string; plugin: string; config: string; errors: ProblemReport[]; kept: boolean }): void {
  if (ctx.json) return ctx.io.out(JSON.stringify({ ...r, ok: !r.errors.length, errors: r.errors.map((p) => ({ plugin: p.plugin, file: p.file ?? null, path: p.path ?? null, message: p.message })) }, null, 2));
  for (const p of r.errors) ctx.io.err(`error: [${p.plugin}] ${p.file ?? ""}${p.path ? ` ${p.path}` : ""}: ${p.message}`);
  if (r.action === "remove") return ctx.io.out(`removed ${r.plugin} from ${r.config}`);
  if (r.errors.length) return ctx.io.out(`✗ ${r.action} ${r.plugin}: ${r.errors.length} errors — ${r.kept ? `kept in ${r.config} (--force)` : `not recorded in ${r.config}`}`);
  ctx.io.out(`✓ ${r.action} ${r.plugin}: checked, recorded in ${r.config}`);
}

function marketplace(ctx: CommandContext, cwd: string, sub: string | undefined, source: string | undefined): number {
  if (sub === "add" && source) {
    const m = addMarketplace(source, cwd);
    if (ctx.json) ctx.io.out(JSON.stringify(m, null, 2));
    else ctx.io.out(`✓ marketplace ${m.name}: ${m.plugins.length} plugins (${m.plugins.join(", ")}); install one with: toolhost plugin add <plugin>@${m.name}`);
    return 0;
  }
  if (sub === "list") {
    const all = listMarketplaces();
    if (ctx.json) ctx.io.out(JSON.stringify(all, null, 2));
    else for (const m of all) ctx.io.out(`${m.name} (${m.source}): ${m.plugins.join(", ")}`);
    return 0;
  }
  throw new UsageError("usage: toolhost plugin marketplace add <dir | git url> | toolhost plugin marketplace list");
}

export async function run(ctx: CommandContext): Promise<number> {
  const cwd = path.resolve(typeof ctx.args.flags.cwd === "string" ? ctx.args.flags.cwd : process.cwd());
  const [sub, spec, extra] = ctx.args.positionals;
  if (sub === "add" && spec) return add(ctx, cwd, spec);
  if (sub === "remove" && spec) return remove(ctx, cwd, spec);
  if (sub === "list") return list(ctx, cwd);
  if (sub === "update") return update(ctx, cwd, spec);
  if (sub === "marketplace") return marketplace(ctx, cwd, spec, extra);
  throw new UsageError(`${sub ? `unknown subcommand "${sub}" or missing spec` : "a subcommand is needed"}: add <spec> | remove <name> | list | update [name] | marketplace add <source> | marketplace list`);
}
