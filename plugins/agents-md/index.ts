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
 *  - build.postToolUse: "after changing X, run Y" reminders as context after matching edits.
 * Every decision cites `AGENTS.md:<line>` and the sentence.
 */
import path from "node:path";
import { definePlugin, DENY_STAGE_AGENTS, PERMISSION_STAGE_AGENTS, POOL_STAGE_DENY, type CallState, type Decision } from "../../core/index.ts";
import { callFacts, matchesRule, parseRule, readDenyFilter, ruleHit, suspectHit, type CallFacts, type ParsedRule } from "../../lib/rules/match.ts";
import type { CompiledRule, Reminder } from "./compile.ts";
import { loadAgents } from "./load.ts";
import { factsFor } from "../../lib/rules/facts.ts";
import { isInside, realpathLoose } from "../../lib/fs-path.ts";
import { EDIT_TOOLS } from "../../lib/tool-names.ts";

export const PLUGIN_NAME = "agents-md";

interface Live extends CompiledRule {
  parsed: ParsedRule;
  /** The project's own AGENTS.md governs everything; a nested one only calls below its directory. */
  everywhere: boolean;
}

/** Inside a nested AGENTS.md's directory by the path as written or by where it really leads (a symlink into it counts). */
function inScope(p: string, scope: string): boolean {
  return isInside(p, scope) || isInside(realpathLoose(p), scope);
}

export function cite(r: { file: string; line: number; text: string }, cwd: string): string {
  const rel = path.relative(cwd, r.file) || r.file;
  return `${rel.startsWith("..") ? r.file : rel}:${r.line}`;
}

export default definePlugin({
  name: PLUGIN_NAME,
  apply(ctx) {
    // instruction file names to compile (default ["AGENTS.md"]; e.g. add "CLAUDE.md"): plain names, no paths
    ctx.contributeConfig("agentsMd", { type: "object", properties: { files: { type: "array", items: { type: "string", pattern: "^[^/\\\\]+\\.md$" } } }, additionalProperties: false });
    ctx.hooks.build.tap(PLUGIN_NAME, (build) => {
      let deny: Live[] = [];
      let reads: Array<Live & { root: string }> = [];
      let ask: Live[] = [];
      let reminders: Reminder[] = [];

      build.hooks.collect.tapPromise(PLUGIN_NAME, async (collector) => {
        const { files, errors } = loadAgents(build.cwd, build.config.agentsMd?.files);
        for (const e of errors) collector.problem({ plugin: PLUGIN_NAME, file: e.file, message: e.message, severity: "warning" });
        const live: Live[] = [];
        reminders = [];
        for (const f of files) {
          for (const p of f.problems) collector.problem({ plugin: PLUGIN_NAME, file: f.file, path: `line ${p.line}`, message: `${p.why} (${JSON.stringify(p.text)})`, severity: "warning" });
          for (const r of f.rules) live.push({ ...r, parsed: parseRule(r.rule), everywhere: f.scope === build.cwd });
          reminders = reminders.concat(f.reminders);
        }
        deny = live.filter((r) => r.behavior === "deny");
        reads = deny.filter((r) => r.parsed.kind === "path" && r.parsed.family === "read").map((r) => ({ ...r, root: r.scope }));
        ask = live.filter((r) => r.behavior === "ask");
        if (live.length || reminders.length) install();
      });

      // Taps are added only when this generation has AGENTS.md rules: a project without any pays nothing per call.
      let installed = false;
      function install(): void {
        if (installed) return;
        installed = true;
        build.hooks.exclude.tap({ name: PLUGIN_NAME, stage: POOL_STAGE_DENY }, (tool) => {
          for (const r of deny) {
            if (r.parsed.kind !== "tool" || !r.everywhere) continue;
            const hit = ruleHit(r.parsed, callFacts(tool.name, {}, build.cwd), "deny", r.scope);
            if (hit) return { name: tool.name, reason: `${cite(r, build.cwd)} says ${JSON.stringify(r.text)}`, rule: r.rule, plugin: PLUGIN_NAME, file: r.file };
          }
          return undefined;
        });

        /** Rules that can hit this call at all: tool rules always, command rules for shell calls, path rules when paths are involved. */
        const applicable = (rules: Live[], f: CallFacts) => rules.filter((r) => (r.parsed.kind === "bash" ? !!f.bash : r.parsed.kind === "path" ? !!(f.paths || f.bash) : true));
        const decide = (call: CallState, rules: Live[], behavior: "deny" | "ask"): Decision | undefined => {
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
            // a nested AGENTS.md: its command rules bind the parts of a command that run below its directory
            // (after any `cd`), so `cd infra && terraform apply` is caught and `terraform apply` at the root is not
            let f = all;
            if (!r.everywhere && r.parsed.kind === "bash" && all.bash) {
              f = scoped.get(r.scope) ?? { ...all, bash: { ...all.bash, segments: all.bash.segments.filter((s) => inScope(s.dir, r.scope)) } };
              scoped.set(r.scope, f);
              if (!f.bash!.segments.length) continue;
            }
            const hit = ruleHit(r.parsed, f, behavior, r.scope);
            if (!hit) {
              // behind an unknown wrapper (`docker run … git push --force`): ask, as the permissions plugin does
              // for deny and ask rules alike
              if (f.bash && !suspect)
                for (const s of f.bash.segments) {
                  const t = suspectHit(r.parsed, s);
                  if (t) {
                    suspect = { r, what: t };
                    break;
                  }
                }
              continue;
            }
            // a nested AGENTS.md: its path rules bind paths below its directory (bare patterns match at any depth)
            if (!r.everywhere && r.parsed.kind === "path" && hit.what && path.isAbsolute(hit.what) && !inScope(hit.what, r.scope)) continue;
            return decision(call, r, behavior, hit.what);
          }
          return suspect ? decision(call, suspect.r, "ask", suspect.what) : undefined;
        };
        const decision = (call: CallState, r: Live, how: "deny" | "ask", what: string | undefined): Decision => {
          const hint = r.hint ? ` — ${r.hint}` : "";
          const verb = how === "deny" ? "denied" : "needs approval";
          // (the executor appends the rule, plugin and file to the reason shown)
          const reason = `${verb} by ${cite(r, call.cwd)}: ${JSON.stringify(r.text)}${what ? ` (matched ${JSON.stringify(what)})` : ""}${hint}`;
          if (how === "ask" && call.mode === "dontAsk") return { behavior: "deny", reason: `${reason}; dontAsk mode denies instead of asking`, rule: r.rule, plugin: PLUGIN_NAME, file: r.file, explicit: true };
          return { behavior: how, reason, rule: r.rule, plugin: PLUGIN_NAME, file: r.file, explicit: true };
        };
        // The deny scan runs once per call and input; an ask it found (a deny rule behind an unknown wrapper)
        // waits in call.data for the permission stage.
        const suspects = new WeakMap<CallState, { input: unknown; d: Decision }>();
        build.hooks.deny.tap({ name: PLUGIN_NAME, stage: DENY_STAGE_AGENTS }, (call) => {
          const d = decide(call, deny, "deny");
          if (d?.behavior === "deny") return d;
          if (d) suspects.set(call, { input: call.input, d });
          return undefined;
        });
        build.hooks.permission.tap({ name: PLUGIN_NAME, stage: PERMISSION_STAGE_AGENTS }, (call) => {
          const s = suspects.get(call);
          if (s && s.input === call.input) return s.d;
          return decide(call, ask, "ask");
        });

        // (Read rules are split out once per build; the filter is built once per searching call)
        build.hooks.readFilter.tap(PLUGIN_NAME, (prev, call) =>
          readDenyFilter(prev, reads, call.cwd, (r) => `denied by ${cite(r, call.cwd)} (${r.rule})`, (r, abs) => r.everywhere || inScope(abs, r.scope)),
        );

        build.hooks.postToolUse.tap(PLUGIN_NAME, (post) => {
          if (!reminders.length || post.result.isError) return;
          const call = post.call;
          const tool = call.tool?.name ?? call.requestedName;
          if (!EDIT_TOOLS.has(tool)) return;
          const input = call.input as Record<string, unknown>;
          const file = [input.file_path, input.notebook_path].find((x): x is string => typeof x === "string");
          if (!file) return;
          const abs = path.resolve(call.cwd, file);
          for (const r of reminders) {
            if (!isInside(abs, r.scope)) continue;
            if (r.paths.length && !r.paths.some((p) => matchesRule(`Edit(${p})`, { toolName: "Edit", input: { file_path: abs } }, { cwd: call.cwd, rulesRoot: r.scope }))) continue;
            post.addContext(`${cite(r, call.cwd)} asks: run ${r.run.map((c) => `\`${c}\``).join(" and ")} after this change (${JSON.stringify(r.text)})`, PLUGIN_NAME);
          }
        });
      }
    });
  },
});
