/**
 * The per-call decision of agents-md: which compiled deny or ask rule a call hits (scoped to the
 * AGENTS.md that made it), or the ask for a rule seen behind an unknown wrapper; every decision cites
 * `AGENTS.md:<line>` and the sentence.
 */
import path from "node:path";
import type { CallState, Decision } from "../../core/index.ts";
import { ruleHit, suspectHit, type CallFacts, type ParsedRule } from "../../lib/rules/match.ts";
import { factsFor } from "../../lib/rules/facts.ts";
import { isInside, realpathLoose } from "../../lib/fs-path.ts";
import type { CompiledRule } from "./compile.ts";

export const PLUGIN_NAME = "agents-md";

export interface Live extends CompiledRule {
  parsed: ParsedRule;
  /** The project's own AGENTS.md governs everything; a nested one only calls below its directory. */
  everywhere: boolean;
}

/** Inside a nested AGENTS.md's directory by the path as written or by where it really leads (a symlink into it counts). */
export function inScope(p: string, scope: string): boolean {
  return isInside(p, scope) || isInside(realpathLoose(p), scope);
}

export function cite(r: { file: string; line: number; text: string }, cwd: string): string {
  const rel = path.relative(cwd, r.file) || r.file;
  return `${rel.startsWith("..") ? r.file : rel}:${r.line}`;
}

/** Rules that can hit this call at all: tool rules always, command rules for shell calls, path rules when paths are involved. */
function applicable(rules: Live[], f: CallFacts): Live[] {
  return rules.filter((r) => (r.parsed.kind === "bash" ? !!f.bash : r.parsed.kind === "path" ? !!(f.paths || f.bash) : true));
}

/**
 * A nested AGENTS.md: its command rules bind the parts of a command that run below its directory
 * (after any `cd`), so `cd infra && terraform apply` is caught and `terraform apply` at the root is not.
 * Undefined when no part of the command runs there.
 */
function scopedFacts(r: Live, all: CallFacts, scoped: Map<string, CallFacts>): CallFacts | undefined {
  if (r.everywhere || r.parsed.kind !== "bash" || !all.bash) return all;
  const f = scoped.get(r.scope) ?? { ...all, bash: { ...all.bash, segments: all.bash.segments.filter((s) => inScope(s.dir, r.scope)) } };
  scoped.set(r.scope, f);
  return f.bash!.segments.length ? f : undefined;
}

/** Behind an unknown wrapper (`docker run … git push --force`): what the rule would hit, to ask about as the permissions plugin does. */
function suspectOf(r: Live, f: CallFacts): { r: Live; what: string } | undefined {
  if (!f.bash) return undefined;
  for (const s of f.bash.segments) {
    const t = suspectHit(r.parsed, s);
    if (t) return { r, what: t };
  }
  return undefined;
}

export function decide(call: CallState, rules: Live[], behavior: "deny" | "ask"): Decision | undefined {
  if (!rules.length) return undefined;
  const tool = call.tool?.name ?? call.requestedName;
  // One set of facts per call and input, shared with the permissions plugin (same cache, same key);
  // a PreToolUse rewrite gets fresh ones.
  const all = factsFor({ key: call, toolName: tool, input: call.input, cwd: call.cwd, shellCwd: tool === "Bash" ? call.workingDirectory : undefined });
  const scoped = new Map<string, CallFacts>();
  let suspect: { r: Live; what: string } | undefined;
  for (const r of applicable(rules, all)) {
    // a whole-tool rule has no place to be scoped to: only the project's own AGENTS.md makes them
    if (!r.everywhere && r.parsed.kind === "tool") continue;
    const f = scopedFacts(r, all, scoped);
    if (!f) continue;
    const hit = ruleHit(r.parsed, f, behavior, r.scope);
    if (!hit) {
      // for deny and ask rules alike
      suspect ??= suspectOf(r, f);
      continue;
    }
    // a nested AGENTS.md: its path rules bind paths below its directory (bare patterns match at any depth)
    if (!r.everywhere && r.parsed.kind === "path" && hit.what && path.isAbsolute(hit.what) && !inScope(hit.what, r.scope)) continue;
    return decision(call, r, behavior, hit.what);
  }
  return suspect ? decision(call, suspect.r, "ask", suspect.what) : undefined;
}

function decision(call: CallState, r: Live, how: "deny" | "ask", what: string | undefined): Decision {
  const hint = r.hint ? ` — ${r.hint}` : "";
  const verb = how === "deny" ? "denied" : "needs approval";
  // (the executor appends the rule, plugin and file to the reason shown)
  const reason = `${verb} by ${cite(r, call.cwd)}: ${JSON.stringify(r.text)}${what ? ` (matched ${JSON.stringify(what)})` : ""}${hint}`;
  if (how === "ask" && call.mode === "dontAsk") return { behavior: "deny", reason: `${reason}; dontAsk mode denies instead of asking`, rule: r.rule, plugin: PLUGIN_NAME, file: r.file, explicit: true };
  return { behavior: how, reason, rule: r.rule, plugin: PLUGIN_NAME, file: r.file, explicit: true };
}
