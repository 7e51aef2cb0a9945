/**
 * `toolhost` CLI. Global flags: --cwd DIR, --config FILE, --plugin-dir DIR (repeatable), --mode MODE,
 * --json, --help. Commands are listed in ./commands/index.ts.
 */
import readline from "node:readline";
import { parseArgs, UsageError } from "./args.ts";
import { commands } from "./commands/index.ts";
import { createHost, hostOptionsFrom, type CliIO, type CommandContext } from "./context.ts";
import { errorMessage } from "../errors.ts";

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

function usage(): string {
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
  const cmd = commands.find((c) => c.name === cmdName);
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
