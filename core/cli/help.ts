/** The CLI's help texts and shell completion scripts, rendered from command metadata alone (no host loaded). */
import type { Command } from "./context.ts";

/** Global flags: name (with its value placeholder) → what it does. */
export const GLOBAL_FLAGS: Record<string, string> = {
  "cwd DIR": "working directory (default: current directory)",
  "config FILE": "config file (default: searched with cosmiconfig)",
  "plugin-dir DIR": "load a plugin directory (repeatable)",
  "mode MODE": "permission mode: default, acceptEdits, plan, dontAsk, bypassPermissions",
  "settings FILE": "Claude Code settings (a file or JSON text) for this run, like claude --settings",
  json: "machine-readable output",
  help: "help for a command",
};

/** Exit codes every command shares unless it lists its own. */
const COMMON_EXITS: Record<string, string> = { "0": "success", "1": "an error (reported on stderr)", "3": "bad usage (unknown command or flag, missing argument)" };

export const flagName = (key: string) => key.split(" ")[0]!;

function table(rows: Record<string, string>, prefix: string): string[] {
  const keys = Object.keys(rows);
  const w = Math.max(...keys.map((k) => prefix.length + k.length));
  return keys.map((k) => `  ${(prefix + k).padEnd(w)}   ${rows[k]}`);
}

export const GLOBAL_HELP = ["Global flags:", ...table(GLOBAL_FLAGS, "--")].join("\n");

export function usage(commands: readonly Command[]): string {
  const w = Math.max(...commands.map((c) => c.name.length));
  return `toolhost — the tool runtime of a coding agent, as a plugin host

Usage: toolhost <command> [flags]

Commands:
${commands.map((c) => `  ${c.name.padEnd(w)}  ${c.summary}`).join("\n")}

${GLOBAL_HELP}

Run "toolhost help <command>" (or "toolhost <command> --help") for a command's flags and exit codes;
"toolhost --version" prints the version; "toolhost completion bash|zsh" prints a shell completion script.`;
}

export function commandHelp(cmd: Command): string {
  const parts = [`Usage: ${cmd.usage}`, cmd.summary];
  if (cmd.flags && Object.keys(cmd.flags).length) parts.push(["Flags:", ...table(cmd.flags, "--")].join("\n"));
  parts.push(GLOBAL_HELP);
  if (cmd.flags || cmd.exits) parts.push(["Exit codes:", ...table({ ...COMMON_EXITS, ...cmd.exits }, "")].join("\n"));
  return parts.join("\n\n");
}

const globalFlagNames = () => Object.keys(GLOBAL_FLAGS).map(flagName);

/** `toolhost completion bash|zsh`: commands and each command's flags, from the same metadata as --help. */
export function completion(shell: string, commands: readonly Command[]): string | undefined {
  const names = commands.map((c) => c.name).join(" ");
  const cases = commands
    .map((c) => `    ${c.name}) flags="${[...Object.keys(c.flags ?? {}).map(flagName), ...globalFlagNames()].map((f) => `--${f}`).join(" ")}" ;;`)
    .join("\n");
  const body = `  local cmd="" w
  for w in "\${words[@]:1:$((COMP_CWORD-1))}"; do case "$w" in -*) ;; *) cmd="$w"; break ;; esac; done
  case "$cmd" in
${cases}
    *) flags="${globalFlagNames().map((f) => `--${f}`).join(" ")} --version" ;;
  esac`;
  if (shell === "bash")
    return `# toolhost bash completion: eval "$(toolhost completion bash)"
_toolhost() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" words=("\${COMP_WORDS[@]}") flags
${body}
  if [[ "$cur" == -* || -n "$cmd" ]]; then COMPREPLY=($(compgen -W "$flags" -- "$cur")); else COMPREPLY=($(compgen -W "${names} help completion" -- "$cur")); fi
}
complete -o default -F _toolhost toolhost`;
  if (shell === "zsh")
    return `#compdef toolhost
# toolhost zsh completion: eval "$(toolhost completion zsh)"
_toolhost() {
  local -a flags
  local cmd="" w
  for w in "\${words[@]:1:$((CURRENT-2))}"; do case "$w" in -*) ;; *) cmd="$w"; break ;; esac; done
  case "$cmd" in
${cases.replace(/flags="([^"]*)"/g, "flags=($1)")}
    *) flags=(${globalFlagNames().map((f) => `--${f}`).join(" ")} --version) ;;
  esac
  if [[ -n "$cmd" || "$PREFIX" == -* ]]; then compadd -- $flags; else compadd -- ${names} help completion; fi
}
compdef _toolhost toolhost 2>/dev/null || true`;
  return undefined;
}
