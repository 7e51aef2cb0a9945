/** What every CLI command gets: parsed flags, a host factory honouring the global flags, output helpers. */
import type { Host, HostOptions } from "../host/host.ts";
import { UsageError, type ParsedArgs } from "./args.ts";
import { PERMISSION_MODES } from "../../lib/modes.ts";
import type { StatusLine } from "../../lib/progress.ts";

export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  isTTY: boolean;
  readLine(prompt: string): Promise<string>;
  /** A transient status line (stderr when it is a terminal; absent when piped): long steps show on it. */
  status?: StatusLine;
}

export interface CommandContext {
  args: ParsedArgs;
  io: CliIO;
  /** Create a host from the global flags (--cwd, --config, --plugin-dir, --mode). */
  host(extra?: Partial<HostOptions>): Promise<Host>;
  json: boolean;
  /** Announce a long step of the command itself (an install): shown on a terminal after a second. */
  step(label: string): (ok?: boolean) => void;
}

export interface Command {
  name: string;
  summary: string;
  usage: string;
  /** Extra flags that take a value / may repeat. */
  values?: string[];
  repeat?: string[];
  /**
   * Every flag of the command beyond the global ones, as `"name": "what it does"` (`"name VALUE"` for a
   * flag that takes a value). Shown by `--help`; any other flag is a usage error. A command without
   * `flags` (a plugin's, declared before they existed) has its flags unchecked.
   */
  flags?: Record<string, string>;
  /** Exit codes and what they mean, for `--help` (`"0": "…"`). */
  exits?: Record<string, string>;
  run(ctx: CommandContext): Promise<number>;
}

export function hostOptionsFrom(args: ParsedArgs): HostOptions {
  const f = args.flags;
  return {
    cwd: typeof f.cwd === "string" ? f.cwd : undefined,
    configFile: typeof f.config === "string" ? f.config : undefined,
    pluginDirs: Array.isArray(f["plugin-dir"]) ? (f["plugin-dir"] as string[]) : undefined,
    mode: typeof f.mode === "string" ? cliMode(f.mode) : undefined,
    settings: typeof f.settings === "string" ? f.settings : undefined,
    logger: process.env.TOOLHOST_DEBUG ? { info: (m) => console.error(m), warn: (m) => console.error(m), error: (m) => console.error(m), debug: (m) => console.error(m) } : { warn: (m) => console.error(m), error: (m) => console.error(m) },
  };
}

/** `--mode`: one of the permission modes (`manual` is Claude Code's alias of `default`); anything else is a usage error. */
function cliMode(m: string): string {
  if (m === "manual") return "default";
  if (!(PERMISSION_MODES as readonly string[]).includes(m)) throw new UsageError(`--mode must be one of ${PERMISSION_MODES.join(", ")} (or manual); got ${JSON.stringify(m)}`);
  return m;
}

/** The host, imported on first use: `--help` and usage errors load none of it. */
export async function createHost(options: HostOptions): Promise<Host> {
  return (await import("../index.ts")).createHost(options);
}
