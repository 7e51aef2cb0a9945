/**
 * `toolhost` CLI. Global flags: --cwd DIR, --config FILE, --plugin-dir DIR (repeatable), --mode MODE,
 * --json, --help. Core commands are listed in ./commands/index.ts; bundled plugins add theirs through
 * `cliCommands` in their manifests.
 */
import readline from "node:readline";
import { parseArgs, UsageError } from "./args.ts";
import fs from "node:fs";
import path from "node:path";
import { commands as coreCommands } from "./commands/index.ts";
import { createHost, hostOptionsFrom, type CliIO, type Command, type CommandContext } from "./context.ts";
import { fileURLToPath } from "node:url";
import { errorMessage } from "../errors.ts";

const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const BUNDLED_MANIFESTS = path.join(PACKAGE_ROOT, "manifests");

const GLOBAL_VALUES = ["cwd", "config", "plugin-dir", "mode"];
const GLOBAL_REPEAT = ["plugin-dir"];

export const GLOBAL_HELP = `Global flags:
  --cwd DIR          working directory (default: current directory)
  --config FILE      config file (default: searched with cosmiconfig)
  --plugin-dir DIR   load a plugin directory (repeatable)
  --mode MODE        permission mode: default, acceptEdits, plan, dontAsk, bypassPermissions
  --json             machine-readable output
  --help             help for a command`;

export function defaultIO(): CliIO {
  return {
    out: (t) => process.stdout.write(t.endsWith("\n") ? t : t + "\n"),
    err: (t) => process.stderr.write(t.endsWith("\n") ? t : t + "\n"),
    isTTY: !!process.stdin.isTTY && !!process.stderr.isTTY,
    readLine: (prompt) =>
      new Promise((resolve) => {
        const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
        rl.question(prompt, (a) => {
          rl.close();
          resolve(a);
        });
      }),
  };
}

interface CliCommandSpec {
  name: string;
  summary: string;
  usage?: string;
  values?: string[];
  repeat?: string[];
  module: string;
}

/**
 * Commands the bundled plugins declare in their manifests (`cliCommands`): metadata from the JSON, the
 * module imported only when the command runs. So core names no plugin and a plugin's command lives with
 * its plugin. A name core already has is skipped (core's commands are the contract).
 */
export function pluginCommands(taken: ReadonlySet<string>): Command[] {
  const out: Command[] = [];
  let files: string[] = [];
  try {
    files = fs.readdirSync(BUNDLED_MANIFESTS).filter((f) => f.endsWith(".json")).sort();
  } catch {
    return out;
  }
  for (const f of files) {
    let specs: CliCommandSpec[] = [];
    try {
      const m = JSON.parse(fs.readFileSync(path.join(BUNDLED_MANIFESTS, f), "utf8")) as { cliCommands?: CliCommandSpec[] };
      specs = Array.isArray(m.cliCommands) ? m.cliCommands : [];
    } catch {
      continue; // a broken manifest is reported by the host like any other
    }
    for (const spec of specs) {
      if (!spec || typeof spec.name !== "string" || typeof spec.module !== "string" || taken.has(spec.name) || out.some((c) => c.name === spec.name)) continue;
      const file = path.resolve(PACKAGE_ROOT, spec.module);
      out.push({
        name: spec.name,
        summary: spec.summary ?? "",
        usage: spec.usage ?? `toolhost ${spec.name}`,
        values: spec.values,
        repeat: spec.repeat,
        run: async (ctx) => {
          const mod = (await import(file)) as { run?: (c: CommandContext) => Promise<number> };
          if (typeof mod.run !== "function") throw new Error(`${file} (cliCommands "${spec.name}" of ${f}) does not export run(ctx)`);
          return mod.run(ctx);
        },
      });
    }
  }
  return out;
}

let allCommands: Command[] | undefined;
function commandList(): Command[] {
  return (allCommands ??= [...coreCommands, ...pluginCommands(new Set(coreCommands.map((c) => c.name)))]);
}

function usage(): string {
  const commands = commandList();
  const w = Math.max(...commands.map((c) => c.name.length));
  return `toolhost — the tool runtime of a coding agent, as a plugin host

Usage: toolhost <command> [flags]

Commands:
${commands.map((c) => `  ${c.name.padEnd(w)}  ${c.summary}`).join("\n")}

${GLOBAL_HELP}

Run "toolhost <command> --help" for a command's flags.`;
}

export async function main(argv: string[], io: CliIO = defaultIO()): Promise<number> {
  const cmdName = argv.find((a) => !a.startsWith("-"));
  const cmd = commandList().find((c) => c.name === cmdName);
  try {
    const args = parseArgs(argv, { values: [...GLOBAL_VALUES, ...(cmd?.values ?? [])], repeat: [...GLOBAL_REPEAT, ...(cmd?.repeat ?? [])] });
    if (!cmd) {
      if (args.flags.help || !cmdName) {
        io.out(usage());
        return cmdName || args.flags.help ? 0 : 3;
      }
      io.err(`toolhost: unknown command "${cmdName}"\n\n${usage()}`);
      return 3;
    }
    if (args.flags.help) {
      io.out(`Usage: ${cmd.usage}\n\n${cmd.summary}\n\n${GLOBAL_HELP}`);
      return 0;
    }
    args.positionals.splice(args.positionals.indexOf(cmd.name), 1);
    const ctx: CommandContext = {
      args,
      io,
      json: args.flags.json === true,
      host: (extra) => createHost({ ...hostOptionsFrom(args), ...extra }),
    };
    return await cmd.run(ctx);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`toolhost: ${e.message}${cmd ? `\nUsage: ${cmd.usage}` : ""}`);
      return 3;
    }
    io.err(`toolhost: ${errorMessage(e)}`);
    return 1;
  }
}
