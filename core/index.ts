/** toolhost's public API: everything a plugin author or an embedding program imports. */
export { createHost, Host, PACKAGE_ROOT, codeStamp, type HostOptions, type RebuildResult } from "./host.ts";
export { defineTool, isToolDefinition, textResult, resultText, flag, type Tool, type ToolDefinition, type ToolResult, type ToolContent, type ToolCallContext, type ReadFilter, type ToolOrigin, type JsonSchema, type PermissionCheck } from "./tool.ts";
export { definePlugin, isPluginDefinition, type PluginDefinition, type PluginContext, type HostView, type Logger } from "./plugin.ts";
export { ToolhostError, PluginError, errorMessage, type ProblemReport } from "./errors.ts";
export {
  TRACE,
  instrument,
  SyncHook,
  SyncBailHook,
  SyncWaterfallHook,
  AsyncParallelHook,
  AsyncSeriesHook,
  AsyncSeriesBailHook,
  AsyncSeriesWaterfallHook,
  type HostHooks,
  type BuildHooks,
  type TraceEntry,
  type Exclusion,
  type DeferDecision,
  type ToolCollector,
  type PoolContext,
  type PluginSource,
  type PermissionRuleUpdate,
} from "./hooks.ts";
export type { BuildView } from "./build.ts";
export type { PoolSnapshot, PoolDiff } from "./pool.ts";
export { stableStringify } from "./pool.ts";
export type { Explanation } from "./explain.ts";
export type {
  CallState,
  Decision,
  AskAnswer,
  AskRequest,
  PreToolUseContext,
  PostToolUseContext,
  PostToolBatchContext,
  CallRecord,
  ExecuteOptions,
  ExecuteOutcome,
  OutcomeStatus,
  HookDecision,
} from "./executor.ts";
export { denialText } from "./executor.ts";
export type { LoadedPlugin, Component, PermissionLists, HookEventMap } from "./manifest.ts";
export { substitute, resolveInside, suggest, editDistance } from "./manifest.ts";
export type { HostConfig, ModeSource } from "./config.ts";
export { Session } from "./session.ts";
export * from "./stages.ts";

// CLI: what a plugin's `cliCommands` module gets (its `run(ctx)`), and the error for bad usage (exit 3).
export type { CommandContext, CliIO } from "./cli/context.ts";
export { UsageError } from "./cli/args.ts";
export { loadConfig } from "./config.ts";
