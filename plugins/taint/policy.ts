/**
 * Which calls the taint policy raises: "write" — a call that is not read-only (a file write, a Bash command
 * that is not a recognised read-only one, an MCP tool without readOnlyHint); "network" — WebFetch, WebSearch,
 * an MCP tool that declares openWorldHint, and Bash commands that reach the network (curl, wget, ssh, scp,
 * nc, git push/fetch/pull/clone, a package install or publish …), also inside `bash -c`, xargs, sudo and
 * other wrappers. A command the shell analysis cannot read counts as both.
 */
import { resolveFlag, type CallState } from "../../core/index.ts";
import { analyzeBash } from "../../lib/rules/index.ts";
import { nullProto } from "../../lib/null-proto.ts";

export type Raise = "write" | "network";
export const RAISES: readonly Raise[] = ["write", "network"];

const NETWORK_TOOLS = new Set(["WebFetch", "WebSearch"]);
const BASH_TOOLS = new Set(["Bash", "exec_command"]);
/** Programs whose every use reaches another machine. */
const NETWORK_PROGRAMS = new Set([
  "curl", "wget", "nc", "ncat", "netcat", "socat", "ssh", "scp", "sftp", "rsync", "telnet", "ftp", "tftp", "http", "https", "xh",
  "aria2c", "lftp", "nmap", "dig", "nslookup", "host", "ping", "mosh", "gh", "glab", "aws", "gcloud", "az", "kubectl", "docker", "podman",
]);
/** Subcommands that reach the network, per program. */
const NETWORK_SUBCOMMANDS: Record<string, ReadonlySet<string>> = nullProto({
  git: new Set(["push", "fetch", "pull", "clone", "ls-remote", "remote", "submodule", "send-email", "request-pull"]),
  npm: new Set(["install", "i", "ci", "add", "publish", "update", "exec", "x", "view", "info", "login", "adduser", "unpublish", "dist-tag", "deprecate", "access", "owner", "token"]),
  pnpm: new Set(["install", "i", "add", "publish", "update", "up", "dlx", "exec", "view", "info", "login"]),
  yarn: new Set(["install", "add", "publish", "upgrade", "dlx", "info", "npm", "login"]),
  npx: new Set(["*"]),
  bunx: new Set(["*"]),
  pip: new Set(["install", "download", "upload"]),
  pip3: new Set(["install", "download", "upload"]),
  cargo: new Set(["install", "publish", "fetch", "update", "search", "login"]),
  go: new Set(["get", "install", "mod"]),
  gem: new Set(["install", "push", "fetch", "update"]),
  twine: new Set(["upload"]),
});

const base = (w: string) => w.slice(w.lastIndexOf("/") + 1);

/** The first word after the program that is not an option (git -C . push → push). */
function subcommand(words: string[]): string | undefined {
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (!w.startsWith("-")) return w;
    if (w === "-C" || w === "-c" || w === "--git-dir" || w === "--work-tree" || w === "--prefix") i++;
  }
  return undefined;
}

function bashNetwork(command: string, cwd: string): boolean {
  const facts = analyzeBash(command, cwd);
  if (!facts.ok) return true;
  return facts.segments.some((s) => {
    const words = s.words;
    const prog = words[0] === undefined ? "" : base(words[0]);
    if (NETWORK_PROGRAMS.has(prog)) return true;
    const subs = NETWORK_SUBCOMMANDS[prog];
    if (!subs) return s.suspects.some((t) => NETWORK_PROGRAMS.has(base(t.split(" ")[0] ?? "")));
    if (subs.has("*")) return true;
    const sub = subcommand(words);
    return sub !== undefined && subs.has(sub);
  });
}

/** What of `raise` this call is (the categories it falls in), in RAISES order. */
export function raisedBy(call: CallState, cwd: string): Raise[] {
  const tool = call.tool;
  if (!tool) return [];
  const out: Raise[] = [];
  const input = call.input ?? {};
  if (!resolveFlag(tool.isReadOnly, input as never, false)) out.push("write");
  const command = tool.name === "exec_command" ? input.cmd : input.command;
  const network =
    NETWORK_TOOLS.has(tool.name) ||
    (tool.origin === "mcp" && (tool.extra?.annotations as { openWorldHint?: unknown } | undefined)?.openWorldHint === true) ||
    (BASH_TOOLS.has(tool.name) && typeof command === "string" && bashNetwork(command, call.workingDirectory ?? cwd));
  if (network) out.push("network");
  return out;
}
