/**
 * AGENTS.md rules compiled into enforced hooks (compile.ts says what compiles). Per build the project's
 * AGENTS.md files are found and compiled (cached by mtime; the watch plugin already rebuilds when one
 * changes), then:
 *  - build.exclude (POOL_STAGE_DENY): a whole-tool deny ("Never use the `WebFetch` tool") removes the tool,
 *    and `toolhost explain` names the file and line;
 *  - build.deny: deny rules, checked with the permissions plugin's matcher (compound commands, wrappers,
 *    flag synonyms, symlinks and `../` detours all seen through), re-checked after a PreToolUse rewrite;
 *  - build.permission (before the permissions plugin's allow rules): ask rules, explicit — a hook's allow
 *    never skips them; dontAsk mode turns them into denials;
 *  - build.readFilter: Grep and Glob skip files a compiled Read deny covers;
 *  - build.postToolUse: "after changing X, run Y" reminders as context after edits of the files and kinds
 *    named, and "after running X, run Y" after that command;
 *  - build.preToolUse: "run Y before committing / before you finish" as context on a `git commit`.
 * Every decision cites `AGENTS.md:<line>` and the sentence.
 */
import path from "node:path";
import { definePlugin, DENY_STAGE_AGENTS, PERMISSION_STAGE_AGENTS, POOL_STAGE_DENY, type BuildView, type CallState, type Decision, type Exclusion, type PostToolUseContext, type PreToolUseContext, type Tool, type ToolCollector } from "../../core/index.ts";
import { callFacts, parseRule, readDenyFilter, ruleHit } from "../../lib/rules/match.ts";
import { reminderFires, reminderText, type Reminder } from "./remind.ts";
import { loadAgents } from "./load.ts";
import { isInside } from "../../lib/fs-path.ts";
import { cite, decide, inScope, PLUGIN_NAME, type Live } from "./decide.ts";

export { cite, PLUGIN_NAME };

/** This generation's compiled rules, replaced by every collect. */
interface Rules {
  deny: Live[];
  reads: Array<Live & { root: string }>;
  ask: Live[];
  reminders: Reminder[];
  /** The call taps are in place (at most once per build). */
  installed: boolean;
}

export default definePlugin({
  name: PLUGIN_NAME,
  apply(ctx) {
    // instruction file names to compile (default AGENTS.md, AGENTS.override.md, CLAUDE.md, CLAUDE.local.md): plain names, no paths
    ctx.contributeConfig("agentsMd", { type: "object", properties: { files: { type: "array", items: { type: "string", pattern: "^[^/\\\\]+\\.md$" } } }, additionalProperties: false });
    // `toolhost rules` lists these beside the permissions plugin's (the "<plugin>.rules" service convention)
    const latest: { rules?: Rules } = {};
    ctx.provide(`${PLUGIN_NAME}.rules`, { current: () => ({ rules: [...(latest.rules?.deny ?? []), ...(latest.rules?.ask ?? [])].map((r) => ({ behavior: r.behavior, rule: r.rule, file: r.file, line: r.line, text: r.text })) }) });
    ctx.hooks.build.tap(PLUGIN_NAME, (build) => onBuild(build, latest));
  },
});

function onBuild(build: BuildView, latest: { rules?: Rules }): void {
  const rules: Rules = { deny: [], reads: [], ask: [], reminders: [], installed: false };
  latest.rules = rules;
  build.hooks.collect.tapPromise(PLUGIN_NAME, async (collector) => {
    // Taps are added only when this generation has AGENTS.md rules: a project without any pays nothing per call.
    if (collectRules(build, collector, rules)) install(build, rules);
  });
}

/** Finds and compiles the AGENTS.md files (problems become warnings); true when there is any rule or reminder. */
function collectRules(build: BuildView, collector: ToolCollector, rules: Rules): boolean {
  const { files, errors } = loadAgents(build.cwd, build.config.agentsMd?.files);
  for (const e of errors) collector.problem({ plugin: PLUGIN_NAME, file: e.file, message: e.message, severity: "warning" });
  const live: Live[] = [];
  rules.reminders = [];
  for (const f of files) {
    for (const p of f.problems) collector.problem({ plugin: PLUGIN_NAME, file: f.file, path: `line ${p.line}`, message: `${p.why} (${JSON.stringify(p.text)})`, severity: "warning" });
    // what an author must look at (toolhost doctor and check list problems): a rule not enforced because it
    // contradicts the file, and a line the compiler could not classify
    for (const u of f.unenforced) {
      if (u.kind !== "conflict" && u.kind !== "unclassified") continue;
      collector.problem({ plugin: PLUGIN_NAME, file: f.file, path: `line ${u.line}`, message: `${u.kind === "conflict" ? "not enforced" : "could not classify"}: ${u.why} (${JSON.stringify(u.text)})`, severity: "warning" });
    }
    // the project's own files and those above it govern everything; nested ones their directory
    const everywhere = f.scope === build.cwd || isInside(build.cwd, f.scope);
    for (const r of f.rules) live.push({ ...r, parsed: parseRule(r.rule), everywhere });
    rules.reminders = rules.reminders.concat(f.reminders);
  }
  rules.deny = live.filter((r) => r.behavior === "deny");
  rules.reads = rules.deny.filter((r) => r.parsed.kind === "path" && r.parsed.family === "read").map((r) => ({ ...r, root: r.scope }));
  rules.ask = live.filter((r) => r.behavior === "ask");
  return !!(live.length || rules.reminders.length);
}

function install(build: BuildView, rules: Rules): void {
  if (rules.installed) return;
  rules.installed = true;
  build.hooks.exclude.tap({ name: PLUGIN_NAME, stage: POOL_STAGE_DENY }, (tool) => excludeTool(tool, rules.deny, build.cwd));
  // The deny scan runs once per call and input; an ask it found (a deny rule behind an unknown wrapper)
  // waits for the permission stage.
  const suspects = new WeakMap<CallState, { input: unknown; d: Decision }>();
  build.hooks.deny.tap({ name: PLUGIN_NAME, stage: DENY_STAGE_AGENTS }, (call) => denyCall(call, rules.deny, suspects));
  build.hooks.permission.tap({ name: PLUGIN_NAME, stage: PERMISSION_STAGE_AGENTS }, (call) => askCall(call, rules.ask, suspects));
  // (Read rules are split out once per build; the filter is built once per searching call)
  build.hooks.readFilter.tap(PLUGIN_NAME, (prev, call) =>
    readDenyFilter(prev, rules.reads, call.cwd, (r) => `denied by ${cite(r, call.cwd)} (${r.rule})`, (r, abs) => r.everywhere || inScope(abs, r.scope)),
  );
  build.hooks.postToolUse.tap(PLUGIN_NAME, (post) => remindAfter(post, rules.reminders));
  build.hooks.preToolUse.tap(PLUGIN_NAME, (pre) => remindBeforeCommit(pre, rules.reminders));
}

/** A whole-tool deny of the project's own AGENTS.md removes the tool from the pool. */
function excludeTool(tool: Tool, deny: Live[], cwd: string): Exclusion | undefined {
  for (const r of deny) {
    if (r.parsed.kind !== "tool" || !r.everywhere) continue;
    const hit = ruleHit(r.parsed, callFacts(tool.name, {}, cwd), "deny", r.scope);
    if (hit) return { name: tool.name, reason: `${cite(r, cwd)} says ${JSON.stringify(r.text)}`, rule: r.rule, plugin: PLUGIN_NAME, file: r.file };
  }
  return undefined;
}

type Suspects = WeakMap<CallState, { input: unknown; d: Decision }>;

function denyCall(call: CallState, deny: Live[], suspects: Suspects): Decision | undefined {
  const d = decide(call, deny, "deny");
  if (d?.behavior === "deny") return d;
  if (d) suspects.set(call, { input: call.input, d });
  return undefined;
}

function askCall(call: CallState, ask: Live[], suspects: Suspects): Decision | undefined {
  const s = suspects.get(call);
  if (s && s.input === call.input) return s.d;
  return decide(call, ask, "ask");
}

/** "After changing X, run Y" / "after running X, run Y": context after a successful matching call. */
function remindAfter(post: PostToolUseContext, reminders: Reminder[]): void {
  if (!reminders.length || post.result.isError) return;
  const call = post.call;
  const tool = call.tool?.name ?? call.requestedName;
  const input = (call.input ?? {}) as Record<string, unknown>;
  for (const r of reminders) if (r.on !== "commit" && reminderFires(r, tool, input, call.cwd)) post.addContext(reminderText(r, cite(r, call.cwd)), PLUGIN_NAME);
}

/** "Run Y before committing / before you finish": context on the `git commit` that ends the change. */
function remindBeforeCommit(pre: PreToolUseContext, reminders: Reminder[]): void {
  const call = pre.call;
  const tool = call.tool?.name ?? call.requestedName;
  if (tool !== "Bash") return;
  const input = (pre.input ?? {}) as Record<string, unknown>;
  for (const r of reminders) if (r.on === "commit" && reminderFires(r, tool, input, call.workingDirectory ?? call.cwd)) pre.addContext(reminderText(r, cite(r, call.cwd)), PLUGIN_NAME);
}
