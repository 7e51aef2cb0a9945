/**
 * Stage constants for taps that share one hook. Lower runs first; spaced by 100 so others fit
 * between. A stage is a preference, never an invariant: "deny always wins" is its own hook.
 */

/** build.exclude: drop tools named by blanket deny rules. Runs before every other exclusion. */
export const POOL_STAGE_DENY = -100;
/** build.exclude: drop tools the permission mode or the active tool set does not allow. */
export const POOL_STAGE_MODE = 0;
/** build.defer: explicit never-defer rules (alwaysLoad, ToolSearch itself, config override list). */
export const DEFER_STAGE_ALWAYS_LOAD = -100;
/** build.defer: the default deferral policy (MCP tools, shouldDefer, auto thresholds). */
export const DEFER_STAGE_POLICY = 0;
/** build.shape: tool-specific headers (trusted/untrusted file header, injection advisory). */
export const SHAPE_STAGE_ANNOTATE = 0;
/** build.shape: output budget; nothing grows after it. */
export const SHAPE_STAGE_TRUNCATE = 1000;
/** build.permission: mode-based decisions (bypassPermissions, plan, dontAsk). */
export const PERMISSION_STAGE_RULES = 0;
/** build.permission: tool `checkPermissions` and read-only-inside-cwd defaults, after explicit rules. */
export const PERMISSION_STAGE_TOOL = 100;
