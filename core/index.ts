/** toolhost's public API: everything a plugin author or an embedding program imports. Re-exports only. */
export type * from "./types.ts";
export { TRACE } from "./types.ts";
export { createHost, Host, type HostOptions, type RebuildResult } from "./host/host.ts";
export { Session } from "./host/session.ts";
export { codeStamp } from "../lib/code-stamp.ts";
export { importCached, PACKAGE_ROOT } from "../lib/module-import.ts";
export { defineTool, isToolDefinition, textResult, resultText, resolveFlag, flag } from "./tool.ts";
export { definePlugin, isPluginDefinition } from "./plugin.ts";
export { ToolhostError, PluginError, errorMessage, type ProblemReport } from "./errors.ts";
export { instrument } from "./hooks/attribute.ts";
export { SyncHook, SyncBailHook, SyncWaterfallHook, AsyncParallelHook, AsyncSeriesHook, AsyncSeriesBailHook, AsyncSeriesWaterfallHook } from "./hooks/create.ts";
export { HOST_HOOKS, BUILD_HOOKS, type HookRow, type HookKind, type FailurePolicy } from "./hooks/table.ts";
export { stableStringify } from "../lib/json.ts";
export type { Explanation } from "../lib/explain.ts";
export { denialText } from "./call/outcome.ts";
export { STAGES } from "./call/pipeline.ts";
export { substitute } from "../lib/text.ts";
export { resolveInside } from "../lib/fs-path.ts";
export { readJson as readJsonFile } from "../lib/json.ts";
export { settingsPlugin, type SettingsOptions } from "../lib/settings-source.ts";
export { suggest, editDistance } from "../lib/text.ts";
export { loadConfig, type ConfigResult } from "./manifest/config.ts";
export { PERMISSION_MODES } from "../lib/modes.ts";
export { loadPlugin, locateManifest, type LoadOptions } from "./manifest/load.ts";
export { validatorFor } from "../lib/validators.ts";
export { ajvProblems } from "../lib/schema-errors.ts";
export * from "./stages.ts";

// CLI: what a plugin's `cliCommands` module gets (its `run(ctx)`), and the error for bad usage (exit 3).
export type { CommandContext, CliIO } from "./cli/context.ts";
export { UsageError } from "./cli/args.ts";
