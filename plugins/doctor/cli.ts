/**
 * `toolhost doctor [--json] [--wait SECONDS]` (declared in manifests/doctor.json `cliCommands`): the state of this
 * toolhost setup — runtime, config and settings files, plugins, MCP servers (live: waits up to --wait seconds for
 * servers still starting), LSP servers, hook scripts that do not resolve, and every problem. Exit 1 on an error.
 */
import { UsageError, type CommandContext, type Host } from "../../core/index.ts";
import { files, hooks, lsp, mcp, plugins, problems, runtime, type Finding } from "./checks.ts";

async function settle(host: Host, ms: number): Promise<void> {
  const svc = host.service<{ connections(): Array<{ status: string; error?: string }> }>("mcp.connections");
  const end = Date.now() + ms;
  const starting = (c: { status: string; error?: string }) => (c.status === "pending" || c.status === "reconnecting") && !c.error;
  while (svc && Date.now() < end && svc.connections().some(starting)) await new Promise((r) => setTimeout(r, 100));
}

const MARK = { ok: "✓", warn: "!", error: "✗" } as const;

export async function run(ctx: CommandContext): Promise<number> {
  const wait = ctx.args.flags.wait === undefined ? 15 : Number(ctx.args.flags.wait);
  if (!Number.isFinite(wait) || wait < 0) throw new UsageError(`--wait needs a number of seconds; got ${JSON.stringify(ctx.args.flags.wait)}`);
  const host = await ctx.host();
  try {
    await settle(host, wait * 1000);
    const findings: Finding[] = [...runtime(), ...files(host), ...plugins(host), ...mcp(host), ...lsp(host), ...hooks(host), ...problems(host)];
    const errors = findings.filter((f) => f.level === "error").length;
    const warnings = findings.filter((f) => f.level === "warn").length;
    if (ctx.json) ctx.io.out(JSON.stringify({ ok: errors === 0, errors, warnings, findings }, null, 2));
    else {
      let section = "";
      for (const f of findings) {
        if (f.section !== section) ctx.io.out(`${section ? "\n" : ""}${(section = f.section)}:`);
        ctx.io.out(`  ${MARK[f.level]} ${f.what}${f.detail ? `: ${f.detail}` : ""}${f.file && f.section === "hooks" ? `\n      at ${f.file}${f.path ? ` ${f.path}` : ""}` : ""}`);
      }
      ctx.io.out(`\n${errors ? "✗" : "✓"} ${errors} errors, ${warnings} warnings`);
    }
    return errors ? 1 : 0;
  } finally {
    await host.close();
  }
}
