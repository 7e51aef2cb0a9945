// Package entry: toolhost runs from its TypeScript sources through jiti (no build step).
import { createJiti } from "jiti";
const jiti = createJiti(import.meta.url, { interopDefault: true });
const api = await jiti.import("./core/index.ts");
export const {
  createHost, Host, defineTool, definePlugin, isToolDefinition, isPluginDefinition, textResult, resultText,
  ToolhostError, PluginError, SyncHook, SyncBailHook, SyncWaterfallHook, AsyncParallelHook, AsyncSeriesHook,
  AsyncSeriesBailHook, AsyncSeriesWaterfallHook, TRACE, Session, stableStringify, denialText, substitute, resolveInside,
  POOL_STAGE_DENY, POOL_STAGE_MODE, DEFER_STAGE_ALWAYS_LOAD, DEFER_STAGE_POLICY, SHAPE_STAGE_ANNOTATE,
  SHAPE_STAGE_TRUNCATE, PERMISSION_STAGE_RULES, PERMISSION_STAGE_TOOL, PACKAGE_ROOT,
} = api;
export default api;
