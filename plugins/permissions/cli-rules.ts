/**
 * `toolhost rules [<tool> ['<json>']] [--json]` (manifests/permissions.json `cliCommands`): the effective
 * allow / ask / deny rules in the order they are evaluated (every deny, then every ask, then every allow;
 * within one behavior, by source precedence), each with its source — plugin, file and line, JSON path — and
 * its scope (a plugin's own tools, one session). Given a call, also what the pipeline decides for it and
 * why (a dry run: every stage before the tool, nothing runs), as `toolhost call --dry-run` and `explain` say.
 */
import fs from "node:fs";
import { UsageError, type CommandContext } from "../../core/index.ts";
import type { RuleEntry } from "./rules.ts";

interface RulesService {
  current(): { rules: RuleEntry[]; additionalDirectories: string[] };
}
/** What another plugin that enforces rules of its own (agents-md) provides as the service "<plugin>.rules". */
interface OtherRules {
  current(): { rules: Array<{ behavior: string; rule: string; file?: string; line?: number; text?: string }> };
}

export interface RuleRow {
  behavior: string;
  rule: string;
  plugin: string;
  /** The sentence a rule was compiled from (AGENTS.md). */
  text?: string;
  file: string | null;
  line: number | null;
  path: string;
  scope: string | null;
  session: string | null;
}

const lineCache = new Map<string, string | null>();

/** The 1-based line of `rule` as written in `file` (a JSON or Markdown source), or null. */
export function lineOf(file: string | undefined, rule: string, nth = 0): number | null {
  if (!file) return null;
  if (!lineCache.has(file)) {
    try {
      lineCache.set(file, fs.readFileSync(file, "utf8"));
    } catch {
      lineCache.set(file, null);
    }
  }
  const text = lineCache.get(file);
  if (!text) return null;
  let at = -1;
  for (const needle of [JSON.stringify(rule), rule]) {
    at = -1;
    for (let k = 0; k <= nth; k++) {
      at = text.indexOf(needle, at + 1);
      if (at < 0) break;
    }
    if (at >= 0) break;
  }
  return at < 0 ? null : text.slice(0, at).split("\n").length;
}

export function rows(rules: RuleEntry[]): RuleRow[] {
  const seen = new Map<string, number>();
  return rules.map((e) => {
    const k = `${e.file}\0${e.source}`;
    const nth = seen.get(k) ?? 0;
    seen.set(k, nth + 1);
    return { behavior: e.behavior, rule: e.source, plugin: e.plugin, file: e.file ?? null, line: lineOf(e.file, e.source, nth), path: e.jsonPath, scope: e.scope ?? null, session: e.sessionId ?? null };
  });
}

export async function run(ctx: CommandContext): Promise<number> {
  const [tool, json] = ctx.args.positionals;
  let input: unknown = {};
  if (json !== undefined) {
    try {
      input = JSON.parse(json);
    } catch (e) {
      throw new UsageError(`the call's input is not JSON: ${(e as Error).message}`);
    }
  }
  const host = await ctx.host();
  try {
    const svc = host.service<RulesService>("permissions.rules");
    const { rules, additionalDirectories } = svc?.current() ?? { rules: [], additionalDirectories: [] };
    const list = ordered(rows(rules), otherRows(host));
    const decision = tool ? await decide(host, tool, input) : undefined;
    if (ctx.json) {
      ctx.io.out(JSON.stringify({ mode: host.mode, rules: list, additionalDirectories, ...(decision ? { call: decision } : {}) }, null, 2));
      return 0;
    }
    ctx.io.out(`mode ${host.mode}; rules in evaluation order (deny, then ask, then allow):`);
    if (!list.length) ctx.io.out("  (no rules)");
    for (const r of list) {
      const where = r.file ? `${r.file}${r.line ? `:${r.line}` : ""}` : r.path;
      const scope = r.scope ? ` (only ${r.scope}'s own tools)` : r.session ? ` (session ${r.session})` : "";
      ctx.io.out(`  ${r.behavior.padEnd(5)} ${r.rule}${scope}  [${r.plugin}] ${where}${r.text ? `  "${r.text}"` : ""}`);
    }
    for (const d of additionalDirectories) ctx.io.out(`  additional directory ${d}`);
    if (decision) {
      ctx.io.out(`\n${tool}: ${decision.decision} (${decision.status})${decision.reason ? ` — ${decision.reason}` : ""}`);
      if (decision.rule) ctx.io.out(`  rule ${decision.rule}${decision.plugin ? ` [${decision.plugin}]` : ""}${decision.file ? ` ${decision.file}` : ""}`);
    }
    return 0;
  } finally {
    await host.close();
  }
}

/** Rules other plugins enforce themselves, from their "<plugin>.rules" service. */
function otherRows(host: Awaited<ReturnType<CommandContext["host"]>>): RuleRow[] {
  const out: RuleRow[] = [];
  for (const lp of host.plugins) {
    if (lp.id === "permissions") continue;
    const svc = host.service<OtherRules>(`${lp.id}.rules`);
    if (!svc || typeof svc.current !== "function") continue;
    for (const r of svc.current().rules) out.push({ behavior: r.behavior, rule: r.rule, plugin: lp.id, file: r.file ?? null, line: r.line ?? null, path: r.line ? `line ${r.line}` : "", scope: null, session: null, ...(r.text ? { text: r.text } : {}) });
  }
  return out;
}

/**
 * Evaluation order (core/stages.ts): settings and config denies, then other plugins' denies (an AGENTS.md
 * deny is cited after a settings deny), other plugins' asks (an AGENTS.md ask comes before every allow rule),
 * then the settings' asks, then allows. Any deny wins whatever its place; the order says which one is cited.
 */
export function ordered(own: RuleRow[], other: RuleRow[]): RuleRow[] {
  const of = (rs: RuleRow[], b: string) => rs.filter((r) => r.behavior === b);
  return [...of(own, "deny"), ...of(other, "deny"), ...of(other, "ask"), ...of(own, "ask"), ...of(other, "allow"), ...of(own, "allow")];
}

async function decide(host: Awaited<ReturnType<CommandContext["host"]>>, tool: string, input: unknown) {
  const o = await host.execute(tool, input, { dryRun: true, source: "cli" });
  return { tool, decision: o.decision, status: o.status, reason: o.reason ?? null, rule: o.rule ?? null, plugin: o.plugin ?? null, file: o.file ?? null };
}
