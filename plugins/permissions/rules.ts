/**
 * Collecting rules with provenance: every loaded plugin's `components.permissions` (config,
 * settings:project, settings:local, plugin manifests) plus session rules ("allow always").
 * Each rule is parsed once per build; problems name the plugin, the file and the JSON path.
 */
import os from "node:os";
import path from "node:path";
import type { LoadedPlugin, ProblemReport } from "../../core/index.ts";
import { KNOWN_TOOLS, lintRule, parseRule, type Behavior, type ParsedRule } from "../../lib/rules/match.ts";

export interface RuleEntry {
  rule: ParsedRule;
  /** The rule as written. */
  source: string;
  behavior: Behavior;
  /** Plugin id that owns the rule ("config", "settings:project", a plugin, "session"). */
  plugin: string;
  file?: string;
  /** JSON path inside `file` ("/permissions/deny/2"). */
  jsonPath: string;
  /** Anchor of `/path` patterns. */
  rulesRoot: string;
  /** An allow rule of a plugin the user did not grant more: it reaches only this plugin's own tools. */
  scope?: string;
  /** A session rule ("allow always"): it applies only to calls of this host session. */
  sessionId?: string;
}

/** What the user's own configuration grants a plugin beyond its own tools. */
export type PluginGrant = "grant" | { allow: string[] };

export interface RuleSet {
  deny: RuleEntry[];
  ask: RuleEntry[];
  allow: RuleEntry[];
  /** Working directories beyond cwd (permissions.additionalDirectories, resolved). */
  additionalDirectories: string[];
  /** `permissions.caseInsensitivePaths: true` in any source: rule paths match case-insensitively everywhere. */
  caseInsensitivePaths?: boolean;
  problems: ProblemReport[];
}

const BEHAVIORS: Behavior[] = ["deny", "ask", "allow"];

/**
 * A plugin from outside toolhost (npm, --plugin-dir, config `plugins`) may restrict anything, but its
 * allow rules reach only its own tools unless `grants(id)` says the user gave it more. Bundled plugins,
 * in-process plugins and the settings sources (config, settings files, session) are not scoped.
 */
export function scopeOf(lp: LoadedPlugin, text: unknown, grants: (id: string) => PluginGrant | undefined): string | undefined {
  if (lp.kind !== "plugin" || lp.source.kind === "bundled") return undefined;
  const g = grants(lp.id);
  if (g === "grant" || (g && g.allow.includes(String(text).trim()))) return undefined;
  return lp.id;
}

/** Grant-side filters of one build: what the user granted plugins, and allow rules an untrusted workspace withholds. */
export interface GrantPolicy {
  grants?: (id: string) => PluginGrant | undefined;
  /** True for an allow rule (or additionalDirectories, text "") the workspace's trust withholds. */
  withhold?: (lp: LoadedPlugin, text: unknown) => boolean;
}

export function collectRules(plugins: readonly LoadedPlugin[], session: readonly RuleEntry[], policy: GrantPolicy = {}): RuleSet {
  const grants = policy.grants ?? (() => undefined);
  const withhold = policy.withhold ?? (() => false);
  const rs: RuleSet = { deny: [], ask: [], allow: [], additionalDirectories: [], problems: [] };
  for (const lp of plugins) {
    const comp = lp.components.permissions;
    if (!comp) continue;
    const v = comp.value;
    for (const behavior of BEHAVIORS) {
      const list = v[behavior];
      if (list === undefined) continue;
      if (!Array.isArray(list)) {
        rs.problems.push({ plugin: lp.id, file: comp.file, path: `${comp.jsonPath}/${behavior}`, message: `permissions.${behavior} must be an array of rule strings`, severity: "error" });
        continue;
      }
      list.forEach((text, i) => {
        if (behavior === "allow" && withhold(lp, text)) return;
        const jsonPath = `${comp.jsonPath}/${behavior}/${i}`;
        const e = makeEntry(text, behavior, { plugin: lp.id, file: comp.file, jsonPath, rulesRoot: lp.rulesRoot }, rs.problems);
        if (e && behavior === "allow") e.scope = scopeOf(lp, text, grants);
        if (e) rs[behavior].push(e);
      });
    }
    if ((v as { caseInsensitivePaths?: unknown }).caseInsensitivePaths === true) rs.caseInsensitivePaths = true;
    const dirsScoped = v.additionalDirectories !== undefined && scopeOf(lp, "", grants) !== undefined && grants(lp.id) !== "grant";
    if (dirsScoped) rs.problems.push({ plugin: lp.id, file: comp.file, path: `${comp.jsonPath}/additionalDirectories`, message: `plugin "${lp.id}" may not widen the working directories (additionalDirectories is refused); grant it with pluginTrust: {"${lp.id}": "grant"} in your own toolhost config`, severity: "warning" });
    for (const d of dirsScoped || withhold(lp, "") ? [] : (v.additionalDirectories ?? [])) {
      if (typeof d !== "string" || !d) continue;
      const abs = d === "~" || d.startsWith("~/") ? path.join(os.homedir(), d.slice(1)) : path.resolve(lp.rulesRoot, d);
      if (!rs.additionalDirectories.includes(abs)) rs.additionalDirectories.push(abs);
    }
  }
  for (const e of session) rs[e.behavior].push(e);
  return rs;
}

export function makeEntry(
  text: unknown,
  behavior: Behavior,
  where: { plugin: string; file?: string; jsonPath: string; rulesRoot: string },
  problems: ProblemReport[],
): RuleEntry | undefined {
  let rule: ParsedRule;
  try {
    rule = parseRule(text as string);
  } catch (e) {
    problems.push({ plugin: where.plugin, file: where.file, path: where.jsonPath, message: `invalid ${behavior} rule ${JSON.stringify(text)}: ${(e as Error).message}`, severity: "error" });
    return undefined;
  }
  const lint = lintRule(rule, behavior);
  if (lint.message) problems.push({ plugin: where.plugin, file: where.file, path: where.jsonPath, message: lint.message, severity: lint.severity ?? "warning" });
  if (lint.skip) return undefined;
  return { rule, source: String(text).trim(), behavior, ...where };
}

/** Warnings for deny/ask rules naming tools that neither Claude Code nor this pool knows (names with `_` or `*` exempt). */
export function unknownToolWarnings(rs: RuleSet, poolNames: ReadonlySet<string>): ProblemReport[] {
  const out: ProblemReport[] = [];
  for (const e of [...rs.deny, ...rs.ask]) {
    const t = e.rule.tool;
    if (t.includes("_") || t.includes("*") || KNOWN_TOOLS.has(t) || poolNames.has(t)) continue;
    out.push({
      plugin: e.plugin,
      file: e.file,
      path: e.jsonPath,
      message: `${e.behavior} rule "${e.source}" names an unknown tool "${t}" (not a Claude Code tool and not in the pool); check the spelling — tool names are case-sensitive`,
      severity: "warning",
    });
  }
  return out;
}

/** "settings:project .claude/settings.json /permissions/deny/0" — for reasons and explanations. */
export function where(e: RuleEntry): string {
  return [e.plugin, e.file && `${e.file}`, e.jsonPath].filter(Boolean).join(" ");
}
