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
import { definePlugin, type CallState, type PermissionRuleUpdate, type Tool, type PluginContext, type ProblemReport } from "../../core/index.ts";
import { analyzeBash } from "../../lib/rules/bash.ts";
import { PLUGIN_NAME } from "./decide.ts";
import { EDIT_TOOLS, READ_TOOLS } from "../../lib/rules/rule.ts";
import { makeEntry, type RuleEntry } from "./rules.ts";
import { tapBuild, type GrantsView } from "./build.ts";
import { PLUGIN_TRUST_SCHEMA, type HookAt } from "./grants.ts";
import { chooseMode } from "./modes.ts";
import { checkPermissionLists } from "./schema.ts";

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
    const grants: GrantsView = {};
    ctx.contributeConfig("pluginTrust", PLUGIN_TRUST_SCHEMA);
    // explain: which allow rules name a tool, where each came from, and whether it applies.
    // hookAllowRefused: command-hooks asks it for each PermissionRequest allow (a plugin's hook allows only its own tools).
    ctx.provide("permissions.grants", {
      forTool: (tool: Parameters<NonNullable<GrantsView["current"]>>[0]) => grants.current?.(tool) ?? [],
      hookAllowRefused: (call: CallState, plugin: string, at: HookAt, build?: object) => ((build && grants.hookAllow?.get(build)) || grants.latestHookAllow)?.(call, plugin, at),
      // lib/approval.ts (hiding tools that cannot run): may this plugin's allow rules and hooks approve this tool at all?
      mayGrant: (build: object | undefined, plugin: string, tool: Tool, rule?: string) => ((build && grants.mayGrant?.get(build)) || grants.latestMayGrant)?.(plugin, tool, rule) ?? true,
    });
    // `toolhost rules`: the effective rules in evaluation order, with where each one is written.
    ctx.provide("permissions.rules", { current: () => grants.rules?.() ?? { rules: [], additionalDirectories: [] } });
    ctx.hooks.validateManifest.tap(PLUGIN_NAME, checkPermissionLists);
    ctx.hooks.chooseMode.tap(PLUGIN_NAME, chooseMode);
    ctx.hooks.addPermissionRule.tap(PLUGIN_NAME, (update) => addPermissionRule(ctx, session, update));
    ctx.hooks.build.tap(PLUGIN_NAME, (build) => tapBuild(ctx, session, build, grants));
  },
});

/** host.addPermissionRule: session rules join `session`; settings rules are written to their file. */
function addPermissionRule(ctx: PluginContext, session: RuleEntry[], update: PermissionRuleUpdate): true {
  const texts = narrowRule(update, ctx.host.cwd);
  const problems: ProblemReport[] = [];
  const added: string[] = [];
  for (const text of texts) {
    if (update.destination !== "session") {
      const failed = persistRule(ctx.host.cwd, update, text);
      if (!failed) {
        added.push(text);
        continue;
      }
      // Not written (full disk, unreadable file): said once per file and reason; the approval still holds for this session.
      const key = `${failed.file}: ${failed.message}`;
      if (!persistFailures.has(key)) {
        persistFailures.add(key);
        ctx.report({ file: failed.file, path: `/permissions/${update.behavior}`, message: `could not save "${text}" to ${failed.file} (${failed.message}); it applies to this session only`, severity: "warning" });
        ctx.host.log.error(`[${PLUGIN_NAME}] could not save "${text}" to ${failed.file}: ${failed.message}; kept for this session only`);
      }
    }
    // A session approval belongs to the session that gave it ("allow always" on one serve client is not another's).
    if (session.some((e) => e.behavior === update.behavior && e.source === text && e.sessionId === update.sessionId)) continue;
    const e = makeEntry(text, update.behavior, { plugin: "session", jsonPath: `/session/${update.behavior}/${session.length}`, rulesRoot: ctx.host.cwd }, problems);
    if (e) {
      if (update.sessionId !== undefined) e.sessionId = update.sessionId;
      session.push(e);
      added.push(text);
    }
  }
  for (const p of problems) ctx.host.log.warn(`[${PLUGIN_NAME}] ${p.message}`);
  if (added.length) ctx.host.invalidate(`permission rule added (${update.destination}): ${update.behavior} ${added.join(", ")}`);
  return true;
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
const persistFailures = new Set<string>();

/**
 * Append the rule to the settings file as Claude Code does, atomically (temp file + rename: a full disk never
 * truncates the user's settings). Returns what went wrong instead of throwing.
 */
function persistRule(cwd: string, u: PermissionRuleUpdate, text: string): { file: string; message: string } | undefined {
  const file = path.join(cwd, ".claude", u.destination === "localSettings" ? "settings.local.json" : "settings.json");
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    let value: Record<string, any> = {};
    if (fs.existsSync(file)) value = JSON.parse(fs.readFileSync(file, "utf8"));
    value.permissions ??= {};
    const list: string[] = (value.permissions[u.behavior] ??= []);
    if (!list.includes(text)) list.push(text);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(tmp, JSON.stringify(value, null, 2) + "\n");
    fs.renameSync(tmp, file);
    return undefined;
  } catch (e) {
    try {
      fs.rmSync(tmp, { force: true });
    } catch {
      // the temp file could not even be made
    }
    return { file, message: (e as Error).message };
  }
}
