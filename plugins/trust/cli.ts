/**
 * `toolhost trust [dir] [--revoke] [--status] [--json]`: record in toolhost's trust store
 * (TOOLHOST_HOME/trust.json) that a folder is trusted — its project allow rules, hooks and the `.mcp.json`
 * servers it has now then apply — or revoke that (`--revoke`), or only show where it stands (`--status`).
 * Claude Code's own record (~/.claude.json) is read, never written.
 */
import fs from "node:fs";
import path from "node:path";
import { UsageError, type CommandContext } from "../../core/index.ts";
import { mcpApproved, setTrust, trustFile, trustState } from "./store.ts";

function mcpServerNames(dir: string): string[] {
  try {
    const v = JSON.parse(fs.readFileSync(path.join(dir, ".mcp.json"), "utf8")) as Record<string, unknown>;
    const servers = v && typeof v.mcpServers === "object" && v.mcpServers ? (v.mcpServers as object) : v;
    return servers && typeof servers === "object" ? Object.keys(servers) : [];
  } catch {
    return [];
  }
}

export async function run(ctx: CommandContext): Promise<number> {
  const f = ctx.args.flags;
  if (ctx.args.positionals.length > 1) throw new UsageError("toolhost trust takes at most one directory");
  const base = typeof f.cwd === "string" ? f.cwd : process.cwd();
  const dir = path.resolve(base, ctx.args.positionals[0] ?? ".");
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new UsageError(`not a directory: ${dir}`);
  const servers = mcpServerNames(dir);
  if (f.revoke === true) setTrust(dir, false);
  else if (f.status !== true) setTrust(dir, true, servers);
  const s = trustState(dir);
  const approved = servers.filter((n) => s.trusted && mcpApproved(s.mcp, n));
  const withheld = servers.filter((n) => !approved.includes(n));
  if (ctx.json) {
    ctx.io.out(JSON.stringify({ dir, trusted: s.trusted, by: s.by, store: trustFile(), mcpServers: { approved, withheld }, problems: s.problems }, null, 2));
    return 0;
  }
  ctx.io.out(`${dir}: ${s.trusted ? "trusted" : "not trusted"} (${s.by})`);
  if (servers.length) ctx.io.out(`.mcp.json servers: ${approved.length ? `approved ${approved.join(", ")}` : "none approved"}${withheld.length ? `; not applied: ${withheld.join(", ")}` : ""}`);
  for (const p of s.problems) ctx.io.err(`toolhost trust: ${p}`);
  return 0;
}
