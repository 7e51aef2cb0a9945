import type { CommandContext } from "../../core/index.ts";
import { UsageError } from "../../core/index.ts";
import type { AskAnswer, AskRequest, ExecuteOutcome, Host } from "../../core/index.ts";
import { sessionIdProblem } from "../../lib/session-store/limits.ts";

/**
 * `toolhost call <tool> '<json>'`. Exit codes: 0 ran and succeeded, 1 the tool reported an error,
 * 2 denied / blocked / not approved, 3 bad usage (unknown tool, invalid input). A hook's stop request
 * (`continue: false`, `interrupt: true`) keeps the exit code and adds `stop` to --json and a line on stderr.
 */
export async function run(ctx: CommandContext): Promise<number> {
  const [name, rawJson] = ctx.args.positionals;
  if (!name) throw new UsageError("call needs a tool name");
  const f = ctx.args.flags;
  const sessionId = typeof f.session === "string" ? checkSession(f.session) : undefined;
  const host = await ctx.host();
  try {
    const o = await host.execute(name, parseInput(rawJson), {
      source: "cli",
      dryRun: f["dry-run"] === true,
      yes: f.yes === true,
      onAsk: f.yes === true || !ctx.io.isTTY ? undefined : prompt(ctx, host),
      autoLoadDeferred: true,
      sessionId,
    });
    const code = exitCode(o);
    if (ctx.json) ctx.io.out(JSON.stringify(outcomeJson(o), null, 2));
    else printOutcome(ctx, o, code);
    // A stop request changes no exit code (the call's own status decides); the caller reads it here or in --json `stop`.
    if (o.stop) ctx.io.err(`toolhost: a ${o.stop.event} hook asked the agent to stop (${o.stop.source}): ${o.stop.reason}`);
    return code;
  } finally {
    await host.close();
  }
}

/** JSON input, or the raw text for the repair stage to try (trailing commas, unquoted keys …). */
function parseInput(rawJson: string | undefined): unknown {
  if (rawJson === undefined) return {};
  try {
    return JSON.parse(rawJson);
  } catch {
    return rawJson;
  }
}

/** `--session ID`: the ids a session store accepts (lib/session-store); "default" is each process's unnamed session. */
function checkSession(id: string): string {
  const bad = sessionIdProblem(id);
  if (bad) throw new UsageError(`--session: ${bad}`);
  if (id === "default") throw new UsageError(`--session: "default" is the unnamed session every call without --session gets (never stored); name the session, e.g. --session s1`);
  return id;
}

/**
 * The terminal prompt. "Always" is what Claude Code does with it: the narrowed rule goes to this project's
 * .claude/settings.local.json (the permissions plugin writes it atomically, and it holds for this session
 * even when the file cannot be written), so later processes are not asked again.
 */
function prompt(ctx: CommandContext, host: Host) {
  return async (req: AskRequest): Promise<AskAnswer> => {
    const a = (await ctx.io.readLine(`Allow ${req.tool}? ${req.decision.reason} [y]es / [n]o / [a]lways: `)).trim().toLowerCase();
    if (!a.startsWith("a")) return a.startsWith("y") ? "allow" : "deny";
    const taken = host.hooks.addPermissionRule.call({ behavior: "allow", rule: req.tool, destination: "localSettings", tool: req.tool, input: req.input, sessionId: req.sessionId });
    return taken ? "allow" : "allowAlways";
  };
}

function exitCode(o: ExecuteOutcome): number {
  if (o.status === "ok" || o.status === "dry-run") return 0;
  if (o.status === "tool-error") return 1;
  return o.status === "unknown-tool" || o.status === "invalid-input" ? 3 : 2;
}

/** The `--json` shape (a contract: README, test/cli). */
function outcomeJson(o: ExecuteOutcome) {
  return {
    decision: o.decision,
    executed: o.executed,
    reason: o.reason ?? null,
    result: { content: o.result.content, isError: !!o.result.isError },
    trace: o.trace,
    status: o.status,
    tool: o.tool,
    rule: o.rule ?? null,
    plugin: o.plugin ?? null,
    file: o.file ?? null,
    ...(o.stop ? { stop: o.stop } : {}),
  };
}

function printOutcome(ctx: CommandContext, o: ExecuteOutcome, code: number): void {
  for (const c of o.result.content) (o.result.isError ? ctx.io.err : ctx.io.out)(c.type === "text" ? c.text ?? "" : `[${c.type}]`);
  if (ctx.args.flags.trace === true) {
    ctx.io.err("\ntrace:");
    for (const t of o.trace) ctx.io.err(`  ${t.stage.padEnd(24)} ${(t.plugin ?? "").padEnd(22)} ${t.ms.toFixed(2).padStart(8)} ms  ${t.outcome ?? ""}`);
  }
  if (code === 2) ctx.io.err(`toolhost: ${o.decision === "ask" ? "not approved" : "denied"}: ${o.reason}`);
}
