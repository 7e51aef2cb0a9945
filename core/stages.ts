/**
 * Every stage number in the tree, in one table. A tap's `stage` orders it among the taps of one hook
 * (lower first; equal stages keep the bundled order of plugins/bundled.ts, then `order`, then the id).
 * A stage is a preference, never an invariant: "deny always wins" is its own hook, called first.
 *
 *   hook               stage  constant                    who
 *   host.discover       1000  DISCOVER_STAGE_WATCH        watch (sees the final source list)
 *   build.exclude       -100  POOL_STAGE_DENY             permissions, agents-md (blanket deny rules)
 *   build.exclude          0  POOL_STAGE_MODE             modes (permission mode, tool sets)
 *   build.defer         -100  DEFER_STAGE_ALWAYS_LOAD     tool-search (alwaysLoad, ToolSearch itself)
 *   build.defer            0  DEFER_STAGE_POLICY          tool-search (MCP tools, shouldDefer, auto)
 *   build.deny             0  DENY_STAGE_SETTINGS         permissions (settings, config, manifest deny rules)
 *   build.deny           100  DENY_STAGE_AGENTS           agents-md (AGENTS.md rules: cited after a settings rule)
 *   build.permission     -10  PERMISSION_STAGE_AGENTS     agents-md (an AGENTS.md ask before any allow rule)
 *   build.permission       0  PERMISSION_STAGE_RULES      permissions (ask/allow rules, modes)
 *   build.permission     100  PERMISSION_STAGE_TOOL       permissions, tool-search (checkPermissions, read-only defaults)
 *   build.permission   10000  PERMISSION_STAGE_FALLBACK   permissions (last word: the mode's default answer)
 *   build.preToolUse    -100  TRANSCRIPT_STAGE_BEFORE_HOOKS transcript (the call's tool_use line, before hooks read the file; also sessionEvent)
 *   build.preToolUse     -50  TAINT_STAGE                 taint (a tainted session's writes / network calls ask; a hook's allow cannot skip it)
 *   build.preToolUse       0  COMMAND_HOOKS_STAGE         command-hooks (also postToolUse, postToolBatch, permissionRequest, sessionEvent)
 *   build.sessionEvent   100  TRANSCRIPT_STAGE_AFTER_HOOKS  transcript (a UserPromptSubmit prompt is written after its hooks, as Claude Code does)
 *   build.shape         -100  SHAPE_STAGE_HOOK_CONTEXT    command-hooks (async hook output delivered into the result)
 *   build.shape            0  SHAPE_STAGE_ANNOTATE        shaping (trust header, injection advisory)
 *   build.shape          500  SHAPE_STAGE_TAINT           taint (untrusted content entered the session: mark it)
 *   build.shape         1000  SHAPE_STAGE_TRUNCATE        shaping (output budget; nothing grows after it)
 */

/** host.discover: the watch plugin reads the final list of plugin sources, after every other tap. */
export const DISCOVER_STAGE_WATCH = 1000;
/** build.exclude: drop tools named by blanket deny rules. Runs before every other exclusion. */
export const POOL_STAGE_DENY = -100;
/** build.exclude: drop tools the permission mode or the active tool set does not allow. */
export const POOL_STAGE_MODE = 0;
/** build.defer: explicit never-defer rules (alwaysLoad, ToolSearch itself, config override list). */
export const DEFER_STAGE_ALWAYS_LOAD = -100;
/** build.defer: the default deferral policy (MCP tools, shouldDefer, auto thresholds). */
export const DEFER_STAGE_POLICY = 0;
/** build.deny: deny rules from settings, config and plugin manifests. */
export const DENY_STAGE_SETTINGS = 0;
/** build.deny: deny rules compiled from AGENTS.md (when both deny, the settings rule is the one cited). */
export const DENY_STAGE_AGENTS = 100;
/** build.permission: AGENTS.md asks, before the permissions plugin's rules, so an allow rule cannot pre-empt them. */
export const PERMISSION_STAGE_AGENTS = -10;
/** build.permission: explicit ask/allow rules and mode-based decisions (bypassPermissions, plan, dontAsk). */
export const PERMISSION_STAGE_RULES = 0;
/** build.permission: tool `checkPermissions` and read-only-inside-cwd defaults, after explicit rules. */
export const PERMISSION_STAGE_TOOL = 100;
/** build.permission: the last word (the mode's default answer when nothing else decided). */
export const PERMISSION_STAGE_FALLBACK = 10_000;
/**
 * build.preToolUse: the taint policy — once untrusted content entered the session, a write or network call
 * that the rules allowed is asked again (a verdict, so it only ever raises: a denied call never gets here).
 */
export const TAINT_STAGE = -50;
/** build.preToolUse / postToolUse / postToolUseFailure / postToolBatch / permissionRequest / sessionEvent: command hooks. */
export const COMMAND_HOOKS_STAGE = 0;
/** build.preToolUse, build.sessionEvent: the Claude Code–format transcript line a hook may read, written before the hooks run. */
export const TRANSCRIPT_STAGE_BEFORE_HOOKS = -100;
/** build.sessionEvent: transcript lines Claude Code writes after the event's hooks (the UserPromptSubmit prompt). */
export const TRANSCRIPT_STAGE_AFTER_HOOKS = 100;
/** build.shape: output of async command hooks delivered into the result, before headers and the budget. */
export const SHAPE_STAGE_HOOK_CONTEXT = -100;
/** build.shape: tool-specific headers (trusted/untrusted file header, injection advisory). */
export const SHAPE_STAGE_ANNOTATE = 0;
/** build.shape: the taint plugin reads what shaping found (untrusted files, injection advisories) and marks the session. */
export const SHAPE_STAGE_TAINT = 500;
/** build.shape: output budget; nothing grows after it. */
export const SHAPE_STAGE_TRUNCATE = 1000;
