/**
 * The permissions plugin's taps on one Build: this generation's rules (plus the session rules, which
 * may grow while the Build lives), their problems, the pool-phase blanket deny, the Read-deny filter
 * for searching tools, and the deny → rules → tool → fallback decisions of each call.
 */
import { POOL_STAGE_DENY, DENY_STAGE_SETTINGS, PERMISSION_STAGE_FALLBACK, PERMISSION_STAGE_RULES, PERMISSION_STAGE_TOOL, type BuildView, type CallState, type Exclusion, type PluginContext, type PoolSnapshot, type ProblemReport, type ReadFilter, type Tool } from "../../core/index.ts";
import { coversFamily, readDenyFilter } from "../../lib/rules/match.ts";
import { denyDecision, factsFor, fallbackDecision, PLUGIN_NAME, rulesDecision, toolDecision, type CallView } from "./decide.ts";
import { runExamples } from "./examples.ts";
import { collectRules, unknownToolWarnings, where, type RuleEntry, type RuleSet } from "./rules.ts";
import { grantsFor, hookGrantsFor, mayGrant, projectConfigGate, refusedGrants, refuseForeignHookAllows, refuseHookAllow, rulesForCalls, userGrants, type HookAt } from "./grants.ts";

/** build.preToolUse: after every command hook (COMMAND_HOOKS_STAGE), so their allows are all in. */
const PRE_TOOL_USE_STAGE_GRANTS = 1000;
/** What explain reads of the last build (the "permissions.grants" service). */
export interface GrantsView {
  current?: (tool: Tool) => ReturnType<typeof grantsFor>;
  /** Every rule of the last build plus the session rules, in evaluation order (the "permissions.rules" service). */
  rules?: () => { rules: RuleEntry[]; additionalDirectories: string[] };
  /** Per generation: is a hook's allow of plugin `id` for this call refused? (traced on the call; the "permissions.grants" service's hookAllowRefused). */
  hookAllow?: WeakMap<object, (call: CallState, id: string, at: HookAt) => string | undefined>;
  latestHookAllow?: (call: CallState, id: string, at: HookAt) => string | undefined;
  /** Per generation: may plugin `id` grant for `tool` (lib/approval.ts's mayGrant; the service's mayGrant). */
  mayGrant?: WeakMap<object, (id: string, tool: Tool, rule?: string) => boolean>;
  latestMayGrant?: (id: string, tool: Tool, rule?: string) => boolean;
}

type Prepared = { call: CallState; tool: CallState["tool"]; input: unknown; view: CallView; facts: ReturnType<typeof factsFor> };

export function tapBuild(ctx: PluginContext, session: RuleEntry[], build: BuildView, view?: GrantsView): void {
  const grantProblems: ProblemReport[] = [];
  const grants = userGrants(ctx, build, grantProblems);
  const withhold = projectConfigGate(ctx, build.plugins, grantProblems);
  const rs = collectRules(build.plugins, [], { grants, withhold });
  rs.problems.push(...grantProblems);
  rs.problems.push(...runExamples(build.plugins, build.cwd));
  const out = { report: (p: ProblemReport) => ctx.report(p) };
  for (const p of rs.problems) if (p.severity === "error") ctx.host.log.error(`[${p.plugin}] ${p.file ?? ""} ${p.path ?? ""}: ${p.message}`);
  const rules = rulesForCalls(rs, session);
  const prepared = callPreparer();
  if (view) {
    view.current = (tool) => [...grantsFor(rs, session, tool), ...hookGrantsFor(build.plugins, grants, tool)];
    const refuse = (call: CallState, id: string, at: HookAt) => refuseHookAllow(build.plugins, grants, call, id, at);
    (view.hookAllow ??= new WeakMap()).set(build, refuse);
    view.latestHookAllow = refuse;
    const may = (id: string, tool: Tool, rule?: string) => mayGrant(build.plugins, grants, id, tool, rule);
    (view.mayGrant ??= new WeakMap()).set(build, may);
    view.latestMayGrant = may;
    const of = (b: RuleEntry["behavior"]) => [...rs[b], ...session.filter((e) => e.behavior === b)];
    view.rules = () => ({ rules: [...of("deny"), ...of("ask"), ...of("allow")], additionalDirectories: rs.additionalDirectories });
  }

  build.hooks.collect.tapPromise(PLUGIN_NAME, async (collector) => {
    // Problems belong to this generation: they disappear when the rule is fixed.
    out.report = (p) => collector.problem(p);
    for (const p of rs.problems) collector.problem(p);
  });
  build.hooks.exclude.tap({ name: PLUGIN_NAME, stage: POOL_STAGE_DENY }, (tool) => blanketDeny(rules(), tool));
  build.hooks.seal.tap(PLUGIN_NAME, (pool) => {
    reportUnknownTools(rs, pool, out.report);
    for (const p of refusedGrants(rs, pool)) out.report(p);
  });
  build.hooks.readFilter.tap(PLUGIN_NAME, (prev, call) => readDenies(rules(call), prev, call));
  build.hooks.deny.tap({ name: PLUGIN_NAME, stage: DENY_STAGE_SETTINGS }, (call) => {
    const p = prepared(call);
    return denyDecision(rules(call), p.view, p.facts);
  });
  build.hooks.permission.tap({ name: PLUGIN_NAME, stage: PERMISSION_STAGE_RULES }, (call) => {
    const p = prepared(call);
    return rulesDecision(rules(call), p.view, p.facts, () => call.readFilter() !== undefined);
  });
  build.hooks.permission.tap({ name: PLUGIN_NAME, stage: PERMISSION_STAGE_TOOL }, (call) => {
    const p = prepared(call);
    return toolDecision(rules(call), p.view, p.facts);
  });
  build.hooks.permission.tap({ name: PLUGIN_NAME, stage: PERMISSION_STAGE_FALLBACK }, (call) => {
    const p = prepared(call);
    return fallbackDecision(rules(call), p.view, p.facts);
  });
  // Only an outside plugin's hook allow is ever refused: with none loaded, no preToolUse tap (a tapped
  // preToolUse costs every call its PreToolUse context).
  if (build.plugins.some((p) => p.kind === "plugin" && p.source.kind !== "bundled")) {
    build.hooks.preToolUse.tap({ name: PLUGIN_NAME, stage: PRE_TOOL_USE_STAGE_GRANTS }, (pre) => refuseForeignHookAllows(pre, build.plugins, grants));
  }
}

/** build.exclude: a deny rule naming the whole tool removes it from the pool. */
function blanketDeny(rs: RuleSet, tool: Tool): Exclusion | undefined {
  for (const e of rs.deny) {
    if (e.rule.kind !== "tool") continue;
    const r = e.rule;
    const hit = r.mcpServer !== undefined ? tool.name.startsWith(`mcp__${r.mcpServer}__`) : r.toolRe ? r.toolRe.test(tool.name) : r.tool === tool.name || !!tool.aliases?.includes(r.tool);
    // A bare `Read` covers the read family (Grep, Glob, LSP …), a bare `Edit` the edit family (Write, NotebookEdit …).
    const family = !hit && coversFamily(r, tool.name);
    if (hit || family) return { name: tool.name, reason: `denied by rule "${e.source}"${family ? ` (which covers the ${r.tool} family)` : ""} (${where(e)})`, rule: e.source, plugin: e.plugin, file: e.file };
  }
  return undefined;
}

function reportUnknownTools(rs: RuleSet, pool: PoolSnapshot, report: (p: ProblemReport) => void): void {
  const names = new Set([...pool.byName.keys(), ...pool.excluded.map((x) => x.name)]);
  for (const p of unknownToolWarnings(rs, names)) report(p);
}

/**
 * Searching tools (Grep, Glob) skip files a Read deny rule covers, as Claude Code hands those rules to
 * ripgrep as exclusions: a deny on .env must not leak through `Grep pattern=KEY path=.`.
 */
function readDenies(rs: RuleSet, prev: ReadFilter | undefined, call: CallState): ReadFilter | undefined {
  const tool = call.tool?.name ?? call.requestedName;
  const denies = rs.deny
    .filter((e) => e.rule.kind === "path" && e.rule.family === "read" && (!e.rule.onlyTool || e.rule.onlyTool === tool))
    .map((e) => ({ e, parsed: e.rule, root: e.rulesRoot }));
  return readDenyFilter(prev, denies, call.cwd, ({ e }) => `denied by rule "${e.source}" (${where(e)})`, undefined, rs.caseInsensitivePaths);
}

/**
 * The deny and permission taps of one call share one view and one set of facts: the last call's
 * are kept (same call, tool and input → same facts; a PreToolUse rewrite gets fresh ones).
 */
function callPreparer(): (call: CallState) => Prepared {
  let last: Prepared | undefined;
  return (call) => {
    if (last && last.call === call && last.tool === call.tool && last.input === call.input) return last;
    const view: CallView & { key: object } = { key: call, toolName: call.tool?.name ?? call.requestedName, tool: call.tool, input: call.input, cwd: call.cwd, mode: call.mode, shellCwd: shellCwdOf(call) };
    return (last = { call, tool: call.tool, input: call.input, view, facts: factsFor(view) });
  };
}

/** A shell command's relative paths resolve where it runs (Bash after a `cd`); exec_command's `workdir` is resolved by callFacts. */
function shellCwdOf(call: CallState): string | undefined {
  return (call.tool?.name ?? call.requestedName) === "Bash" ? call.workingDirectory : undefined;
}
