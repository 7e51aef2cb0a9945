/**
 * `toolhost init [dir] [--name NAME] [--force]` (declared in manifests/scaffold.json `cliCommands`): a TypeScript
 * plugin package that works at once — a typed tool, a deny rule with match/not_match tests, a PostToolUse hook, its
 * own tests on `toolhost/testing`, a package.json with toolhost as a peer dependency, a README.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PACKAGE_ROOT, UsageError, type CommandContext } from "../../core/index.ts";

const TEMPLATE = path.join(path.dirname(fileURLToPath(import.meta.url)), "template");

/** template file (relative, without `.tmpl`) → where it goes in the new package. */
function templateFiles(dir = TEMPLATE, rel = ""): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? templateFiles(path.join(dir, e.name), path.join(rel, e.name)) : [path.join(rel, e.name)]));
}

const target = (rel: string) => rel.replace(/\.tmpl$/, "").replace(/^gitignore$/, ".gitignore");

/**
 * How the new package depends on toolhost: the running toolhost's version range when it was installed from
 * the registry, else (a checkout) a `file:` link to it, so `npm install && npm test` work with no network.
 */
function toolhostSpec(): { range: string; spec: string } {
  const { version } = JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, "package.json"), "utf8")) as { version: string };
  const range = `^${version}`;
  return PACKAGE_ROOT.split(path.sep).includes("node_modules") ? { range, spec: range } : { range, spec: `file:${PACKAGE_ROOT}` };
}

export function scaffold(dir: string, name: string, force = false): string[] {
  if (!/^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/.test(name)) throw new UsageError(`--name must be an npm package name (lowercase, no spaces); got ${JSON.stringify(name)}`);
  const files = templateFiles();
  const clash = files.map((f) => path.join(dir, target(f))).filter((f) => fs.existsSync(f));
  if (clash.length && !force) throw new UsageError(`${dir} already has ${clash.map((f) => path.relative(dir, f)).join(", ")}; pass --force to overwrite`);
  const { range, spec } = toolhostSpec();
  const vars: Record<string, string> = { __NAME__: name, __TOOLHOST_RANGE__: range, __TOOLHOST_SPEC__: spec };
  const written: string[] = [];
  for (const rel of files) {
    const out = path.join(dir, target(rel));
    fs.mkdirSync(path.dirname(out), { recursive: true });
    const text = fs.readFileSync(path.join(TEMPLATE, rel), "utf8").replace(/__[A-Z_]+__/g, (k) => vars[k] ?? k);
    fs.writeFileSync(out, text);
    written.push(out);
  }
  return written;
}

export async function run(ctx: CommandContext): Promise<number> {
  const cwd = typeof ctx.args.flags.cwd === "string" ? ctx.args.flags.cwd : process.cwd();
  const dir = path.resolve(cwd, ctx.args.positionals[0] ?? ".");
  const name = typeof ctx.args.flags.name === "string" ? ctx.args.flags.name : path.basename(dir).toLowerCase().replace(/[^a-z0-9-._~]+/g, "-");
  const written = scaffold(dir, name, ctx.args.flags.force === true);
  if (ctx.json) ctx.io.out(JSON.stringify({ dir, name, files: written.map((f) => path.relative(dir, f)) }, null, 2));
  else {
    ctx.io.out(`created plugin ${name} in ${dir}:`);
    for (const f of written) ctx.io.out(`  ${path.relative(dir, f)}`);
    ctx.io.out(`\nnext:\n  cd ${path.relative(process.cwd(), dir) || "."}\n  npm install\n  npm test\n  npx toolhost check .`);
  }
  return 0;
}
