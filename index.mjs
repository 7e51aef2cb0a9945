// Package entry: the start-up bundle (dist/, bin/dist.mjs) while it matches the sources, else the TypeScript sources through jiti.
// The names below must equal core/index.ts's value exports: test/contract/public-api.test.ts checks it.
import { importEntry } from "./bin/dist.mjs";
import { importTs } from "./bin/jiti-load.mjs";
// interopDefault off: its Proxy would sit on every cross-module binding read of the per-call path.
const api = await importEntry("core/index.ts", () => importTs(import.meta.url, "./core/index.ts", { interopDefault: false }));
export const {
  createHost, Host, PACKAGE_ROOT, defineTool, definePlugin, isToolDefinition, isPluginDefinition, textResult, resultText,
  ToolhostError, PluginError, UsageError, errorMessage, loadConfig, suggest, editDistance,
  SyncHook, SyncBailHook, SyncWaterfallHook, AsyncParallelHook, AsyncSeriesHook, AsyncSeriesBailHook, AsyncSeriesWaterfallHook,
  TRACE, Session, stableStringify, denialText, substitute, resolveInside, codeStamp, importCached, flag, resolveFlag, instrument,
  HOST_HOOKS, BUILD_HOOKS, STAGES, PERMISSION_MODES, loadPlugin, locateManifest, validatorFor, ajvProblems, readJsonFile, settingsPlugin,
  DISCOVER_STAGE_WATCH, POOL_STAGE_DENY, POOL_STAGE_MODE, DEFER_STAGE_ALWAYS_LOAD, DEFER_STAGE_POLICY, DENY_STAGE_SETTINGS,
  DENY_STAGE_AGENTS, PERMISSION_STAGE_AGENTS, PERMISSION_STAGE_RULES, PERMISSION_STAGE_TOOL, PERMISSION_STAGE_FALLBACK,
  TAINT_STAGE, COMMAND_HOOKS_STAGE, TRANSCRIPT_STAGE_BEFORE_HOOKS, TRANSCRIPT_STAGE_AFTER_HOOKS, SHAPE_STAGE_HOOK_CONTEXT, SHAPE_STAGE_ANNOTATE, SHAPE_STAGE_TAINT, SHAPE_STAGE_TRUNCATE,
} = api;
export default api;
