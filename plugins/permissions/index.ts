/**
 * Permission rules in Claude Code's syntax and semantics (../shared/formats.md §4).
 *
 * Per build: rules are collected from every loaded plugin's `permissions` (config, settings files,
 * plugin manifests) and parsed once; their examples run; problems are reported for this generation.
 * Pool phase: a blanket deny removes the tool (build.exclude at POOL_STAGE_DENY).
 * Execution: build.deny (deny rules) → build.permission at RULES (ask rules, plan, bypass, protected
 * paths, allow rules, acceptEdits) → at TOOL (checkPermissions, read-only defaults) → at FALLBACK
 * (dontAsk denies; otherwise an ask that says what was missing).
 * "Allow always" (host.addPermissionRule) adds narrowed session rules that survive rebuilds.
 */
import fs from "node:fs";
import path from "node:path";
import { definePlugin, POOL_STAGE_DENY, DENY_STAGE_SETTINGS, PERMISSION_STAGE_FALLBACK, PERMISSION_STAGE_RULES, PERMISSION_STAGE_TOOL, type CallState, type PermissionRuleUpdate, type ProblemReport } from "../../core/index.ts";
import { analyzeBash } from "../../lib/rules/bash.ts";
import { denyDecision, factsFor, fallbackDecision, PLUGIN_NAME, rulesDecision, toolDecision, type CallView } from "./decide.ts";
import { runExamples } from "./examples.ts";
import { EDIT_TOOLS, READ_TOOLS } from "../../lib/rules/rule.ts";
import { readDenyFilter } from "../../lib/rules/match.ts";
import { collectRules, makeEntry, unknownToolWarnings, where, type RuleEntry, type RuleSet } from "./rules.ts";

/**
 * build.permission: the last word, after every other plugin's taps — dontAsk denies, otherwise an ask
 * (not explicit, so a PreToolUse allow may still skip it) that says what no rule covered, instead of
 * the core's generic "no rule allows this call".
 */

export default definePlugin({
  name: PLUGIN_NAME,
  apply(ctx) {
    // Session rules live in the plugin instance, so they survive rebuilds.
    const session: RuleEntry[] = [];

    ctx.hooks.addPermissionRule.tap(PLUGIN_NAME, (update) => {
      const texts = narrowRule(update, ctx.host.cwd);
      const problems: ProblemReport[] = [];
      const added: string[] = [];
      for (const text of texts) {
        if (update.destination !== "session") {
          persistRule(ctx.host.cwd, update, text);
          added.push(text);
          continue;
        }
        if (session.some((e) => e.behavior === update.behavior && e.source === text)) continue;
        const e = makeEntry(text, update.behavior, { plugin: "session", jsonPath: `/session/${update.behavior}/${session.length}`, rulesRoot: ctx.host.cwd }, problems);
        if (e) {
          session.push(e);
          added.push(text);
        }
      }
      for (const p of problems) ctx.host.log.warn(`[${PLUGIN_NAME}] ${p.message}`);
      if (added.length) ctx.host.invalidate(`permission rule added (${update.destination}): ${update.behavior} ${added.join(", ")}`);
      return true;
    });

    ctx.hooks.build.tap(PLUGIN_NAME, (build) => {
      const rs = collectRules(build.plugins, []);
      rs.problems.push(...runExamples(build.plugins, build.cwd));
      let report: (p: ProblemReport) => void = (p) => ctx.report(p);
      for (const p of rs.problems) if (p.severity === "error") ctx.host.log.error(`[${p.plugin}] ${p.file ?? ""} ${p.path ?? ""}: ${p.message}`);

      // Session rules added after this build started still apply at once.
      let withSession: RuleSet = rs;
      let seen = -1;
      const rules = (): RuleSet => {
        if (seen !== session.length) {
          seen = session.length;
          withSession = session.length ? { ...rs, deny: [...rs.deny, ...pick(session, "deny")], ask: [...rs.ask, ...pick(session, "ask")], allow: [...rs.allow, ...pick(session, "allow")] } : rs;
        }
        return withSession;
      };

      build.hooks.collect.tapPromise(PLUGIN_NAME, async (collector) => {
        // Problems belong to this generation: they disappear when the rule is fixed.
        report = (p) => collector.problem(p);
        for (const p of rs.problems) collector.problem(p);
      });

      build.hooks.exclude.tap({ name: PLUGIN_NAME, stage: POOL_STAGE_DENY }, (tool) => {
        for (const e of rules().deny) {
          if (e.rule.kind !== "tool") continue;
          const r = e.rule;
          const hit = r.mcpServer !== undefined ? tool.name.startsWith(`mcp__${r.mcpServer}__`) : r.toolRe ? r.toolRe.test(tool.name) : r.tool === tool.name || !!tool.aliases?.includes(r.tool);
          if (hit) return { name: tool.name, reason: `denied by rule "${e.source}" (${where(e)})`, rule: e.source, plugin: e.plugin, file: e.file };
        }
        return undefined;
      });

      build.hooks.seal.tap(PLUGIN_NAME, (pool) => {
        const names = new Set([...pool.byName.keys(), ...pool.excluded.map((x) => x.name)]);
        for (const p of unknownToolWarnings(rs, names)) report(p);
      });

      // The deny and permission taps of one call share one view and one set of facts: the last call's
      // are kept (same call, tool and input → same facts; a PreToolUse rewrite gets fresh ones).
      let last: { call: CallState; tool: CallState["tool"]; input: unknown; view: CallView; facts: ReturnType<typeof factsFor> } | undefined;
      const prepared = (call: CallState) => {
        if (last && last.call === call && last.tool === call.tool && last.input === call.input) return last;
        const view: CallView & { key: object } = { key: call, toolName: call.tool?.name ?? call.requestedName, tool: call.tool, input: call.input, cwd: call.cwd, mode: call.mode, shellCwd: shellCwdOf(call) };
        return (last = { call, tool: call.tool, input: call.input, view, facts: factsFor(view) });
      };
      // Searching tools (Grep, Glob) skip files a Read deny rule covers, as Claude Code hands those rules to
      // ripgrep as exclusions: a deny on .env must not leak through `Grep pattern=KEY path=.`.
      build.hooks.readFilter.tap(PLUGIN_NAME, (prev, call) => {
        const tool = call.tool?.name ?? call.requestedName;
        const denies = rules()
          .deny.filter((e) => e.rule.kind === "path" && e.rule.family === "read" && (!e.rule.onlyTool || e.rule.onlyTool === tool))
          .map((e) => ({ e, parsed: e.rule, root: e.rulesRoot }));
        return readDenyFilter(prev, denies, call.cwd, ({ e }) => `denied by rule "${e.source}" (${where(e)})`);
      });
      build.hooks.deny.tap({ name: PLUGIN_NAME, stage: DENY_STAGE_SETTINGS }, (call) => {
        const p = prepared(call);
        return denyDecision(rules(), p.view, p.facts);
      });
      build.hooks.permission.tap({ name: PLUGIN_NAME, stage: PERMISSION_STAGE_RULES }, (call) => {
        const p = prepared(call);
        return rulesDecision(rules(), p.view, p.facts, () => call.readFilter() !== undefined);
      });
      build.hooks.permission.tap({ name: PLUGIN_NAME, stage: PERMISSION_STAGE_TOOL }, (call) => {
        const p = prepared(call);
        return toolDecision(rules(), p.view, p.facts);
      });
      build.hooks.permission.tap({ name: PLUGIN_NAME, stage: PERMISSION_STAGE_FALLBACK }, (call) => {
        const p = prepared(call);
        return fallbackDecision(rules(), p.view, p.facts);
      });
    });
  },
});

function pick(session: RuleEntry[], b: RuleEntry["behavior"]): RuleEntry[] {
  return session.filter((e) => e.behavior === b);
}

/**
 * "Allow always" on one call should not allow every call of the tool: Bash gets one exact rule per
 * part of the command (≤ 5, like Claude Code), file tools the exact path, WebFetch the domain.
 */
export function narrowRule(u: PermissionRuleUpdate, cwd: string): string[] {
  if (!u.input || !u.tool || u.rule !== u.tool) return [u.rule];
  const input = u.input as Record<string, unknown>;
  if ((u.tool === "Bash" || u.tool === "Monitor") && typeof input.command === "string") {
    const b = analyzeBash(input.command, cwd);
    const parts = b.ok ? [...new Set(b.segments.filter((s) => !s.inner && s.words.length).map((s) => s.text))] : [];
    if (b.ok && parts.length && parts.length <= 5 && !parts.some((p) => p.includes("*") || p.includes(")"))) return parts.map((p) => `Bash(${p})`);
    const whole = input.command.trim().replace(/\s+/g, " ");
    return whole.includes("*") ? [] : [`Bash(${whole})`];
  }
  const file = [input.file_path, input.notebook_path, input.filePath, input.path].find((x): x is string => typeof x === "string" && !!x);
  if (file && (EDIT_TOOLS.has(u.tool) || READ_TOOLS.has(u.tool))) {
    const abs = path.resolve(cwd, file).replace(/[[\]*?{}()!]/g, "\\$&");
    return [`${EDIT_TOOLS.has(u.tool) ? "Edit" : "Read"}(/${abs})`];
  }
  if (u.tool === "WebFetch" && typeof input.url === "string") {
    try {
      return [`WebFetch(domain:${new URL(input.url).hostname})`];
    } catch {
      return [u.rule];
    }
  }
  return [u.rule];
}

/** localSettings / projectSettings: append the rule to .claude/settings(.local).json. */
function persistRule(cwd: string, u: PermissionRuleUpdate, text: string): void {
  const file = path.join(cwd, ".claude", u.destination === "localSettings" ? "settings.local.json" : "settings.json");
  let value: Record<string, any> = {};
  if (fs.existsSync(file)) value = JSON.parse(fs.readFileSync(file, "utf8"));
  value.permissions ??= {};
  const list: string[] = (value.permissions[u.behavior] ??= []);
  if (!list.includes(text)) list.push(text);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(value, null, 2) + "\n");
}

/** A shell command's relative paths resolve where it runs (Bash after a `cd`); exec_command's `workdir` is resolved by callFacts. */
function shellCwdOf(call: CallState): string | undefined {
  return (call.tool?.name ?? call.requestedName) === "Bash" ? call.workingDirectory : undefined;
}
