/**
 * `toolhost` CLI. Global flags: --cwd DIR, --config FILE, --plugin-dir DIR (repeatable), --mode MODE,
 * --json, --help, --version. Every command is a bundled plugin's `cliCommands` entry (./plugin-commands.ts):
 * tools, explain and call are host-cli's.
 */
import fs from "node:fs";
import readline from "node:readline";
import { parseArgs, UsageError } from "./args.ts";
import { createHost, hostOptionsFrom, type CliIO, type Command, type CommandContext } from "./context.ts";
import { commandHelp, completion, flagName, GLOBAL_FLAGS, usage } from "./help.ts";
import { pluginCommands } from "./plugin-commands.ts";
import { errorMessage } from "../errors.ts";
import { suggest } from "../../lib/text.ts";
import { startStep, stepProgress, terminalLine } from "../../lib/progress.ts";

const GLOBAL_VALUES = ["cwd", "config", "plugin-dir", "mode", "settings"];
const GLOBAL_REPEAT = ["plugin-dir"];
const GLOBAL_NAMES = [...Object.keys(GLOBAL_FLAGS).map(flagName), "version"];

/** Output that survives a closed pipe (`toolhost tools | head`): EPIPE ends the process quietly. */
export function defaultIO(): CliIO {
  for (const s of [process.stdout, process.stderr]) if (!s.listenerCount("error")) s.on("error", (e: NodeJS.ErrnoException) => (e.code === "EPIPE" ? process.exit(process.exitCode ?? 0) : undefined));
  const status = process.stderr.isTTY && process.env.TERM !== "dumb" ? terminalLine(process.stderr) : undefined;
  /** Output goes above the status line: clear it, write, draw it again. */
  const write = (s: NodeJS.WriteStream, t: string) => {
    const line = status?.text;
    if (line !== undefined) status!.clear();
    s.write(t.endsWith("\n") ? t : t + "\n");
    if (line !== undefined) status!.show(line);
  };
  return {
    status,
    out: (t) => write(process.stdout, t),
    err: (t) => write(process.stderr, t),
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

let allCommands: Command[] | undefined;
function commandList(): Command[] {
  return (allCommands ??= pluginCommands(new Set(["help", "completion"])));
}

function version(): string {
  const pkg = JSON.parse(fs.readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  return `toolhost ${pkg.version}`;
}

/** The words before any command: `help [cmd]`, `completion SHELL`, `--version`, `--help`, or nothing. */
function meta(argv: string[], io: CliIO): number | undefined {
  const first = commandName(argv);
  const second = first === undefined ? undefined : commandName(argv.slice(argv.indexOf(first) + 1));
  if (first === "help") {
    const cmd = second === undefined ? undefined : commandList().find((c) => c.name === second);
    if (second !== undefined && !cmd) return unknownCommand(second, io);
    io.out(cmd ? commandHelp(cmd) : usage(commandList()));
    return 0;
  }
  if (first === "completion") {
    const script = completion(second ?? "", commandList());
    if (script === undefined) throw new UsageError(`completion needs a shell: bash or zsh${second ? `, got ${JSON.stringify(second)}` : ""}`);
    io.out(script);
    return 0;
  }
  if (first !== undefined) return undefined;
  const flags = parseArgs(argv, { values: GLOBAL_VALUES, repeat: GLOBAL_REPEAT, known: new Set(GLOBAL_NAMES) }).flags;
  if (flags.version) io.out(version());
  else io.out(usage(commandList()));
  return flags.version || flags.help ? 0 : 3;
}

function unknownCommand(name: string, io: CliIO): number {
  io.err(`toolhost: unknown command "${name}"${suggest(name, [...commandList().map((c) => c.name), "help", "completion"])}\n\n${usage(commandList())}`);
  return 3;
}

/** The first word that is neither a flag nor a global flag's value (`--plugin-dir . call …` runs `call`). */
function commandName(argv: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") return argv[i + 1];
    if (!a.startsWith("-")) return a;
    if (GLOBAL_VALUES.includes(a.slice(2))) i++;
  }
  return undefined;
}

export async function main(argv: string[], io: CliIO = defaultIO()): Promise<number> {
  const cmdName = commandName(argv);
  const cmd = commandList().find((c) => c.name === cmdName);
  try {
    if (!cmd) return meta(argv, io) ?? unknownCommand(cmdName!, io);
    const known = cmd.flags ? new Set([...GLOBAL_NAMES, ...Object.keys(cmd.flags).map(flagName)]) : undefined;
    const args = parseArgs(argv, { values: [...GLOBAL_VALUES, ...(cmd.values ?? [])], repeat: [...GLOBAL_REPEAT, ...(cmd.repeat ?? [])], known });
    if (args.flags.help) {
      io.out(commandHelp(cmd));
      return 0;
    }
    args.positionals.splice(args.positionals.indexOf(cmd.name), 1);
    const progress = io.status ? stepProgress(io.status) : undefined;
    const ctx: CommandContext = {
      args, io, json: args.flags.json === true,
      host: (extra) => createHost({ ...hostOptionsFrom(args), ...(progress && { onStep: progress.onStep }), ...extra }),
      step: (label) => (progress ? startStep(progress.onStep, "cli", label) : () => {}),
    };
    try {
      return await cmd.run(ctx);
    } finally {
      progress?.close();
    }
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`toolhost: ${e.message}${cmd ? `\nUsage: ${cmd.usage}` : ""}`);
      return 3;
    }
    io.err(`toolhost: ${errorMessage(e)}`);
    return 1;
  }
}
