/**
 * Claude Code–compatible command hooks (formats §3) from every loaded source: toolhost config,
 * .claude/settings.json, .claude/settings.local.json, plugin hooks/hooks.json and inline manifest
 * hooks. Events: PreToolUse, PostToolUse, PostToolUseFailure, PostToolBatch, PermissionRequest on calls and
 * turns; SessionStart, UserPromptSubmit, Stop, SubagentStart/Stop, Pre/PostCompact, Notification and
 * SessionEnd when the embedder reports them (host.event); events-table.ts says which run and why not.
 *
 * This file only taps. Handlers: registry.ts; firing: dispatch.ts + run.ts; what one run means:
 * interpret.ts; how several combine (deny > defer > ask > allow, key-wise rewrites …): aggregate.ts.
 * In-process handlers tapped below COMMAND_HOOKS_STAGE run before every command hook (their rewrite is
 * what command hooks receive); above it, after them (they see the composed rewrite).
 */
import { definePlugin, COMMAND_HOOKS_STAGE, SHAPE_STAGE_HOOK_CONTEXT } from "../../core/index.ts";
import { createRuntime, deliverPending, PLUGIN_NAME } from "./dispatch.ts";
import { buildRegistry } from "./registry.ts";
import { matchesHookIf } from "../../lib/rules/match.ts";
import { preToolUse } from "./events/pre-tool-use.ts";
import { postToolUse } from "./events/post-tool-use.ts";
import { batchHandlers, postToolBatch } from "./events/post-tool-batch.ts";
import { permissionRequest } from "./events/permission-request.ts";
import { sessionEvent } from "./events/session.ts";
import { checkHookMaps } from "./validate.ts";
import { sessionEnvFiles } from "./payload.ts";
import { SUPPORTED_EVENTS } from "./handlers.ts";

export default definePlugin({
  name: PLUGIN_NAME,
  apply(ctx) {
    const shutdown = new AbortController();
    ctx.onDispose(() => shutdown.abort());
    // The env files a session's SessionStart hooks wrote (CLAUDE_ENV_FILE), for what runs its shell commands.
    ctx.provide("command-hooks.session-env", { filesFor: (sessionId: string) => sessionEnvFiles(sessionId) });
    ctx.hooks.validateManifest.tap(PLUGIN_NAME, (problems, lp) => [...problems, ...checkHookMaps(lp)]);
    ctx.hooks.build.tap(PLUGIN_NAME, (build) => {
      const registry = buildRegistry(build, matchesHookIf);
      if (registry.problems.length) build.hooks.collect.tap(PLUGIN_NAME, (collector) => registry.problems.forEach((p) => collector.problem(p)));
      const rt = createRuntime(build, registry, shutdown.signal);
      const tap = { name: PLUGIN_NAME, stage: COMMAND_HOOKS_STAGE };
      if (registry.list("PreToolUse").length) build.hooks.preToolUse.tapPromise(tap, (p) => preToolUse(rt, p));
      if (registry.list("PostToolUse").length) build.hooks.postToolUse.tapPromise(tap, (post) => postToolUse(rt, "PostToolUse", post));
      if (registry.list("PostToolUseFailure").length) build.hooks.postToolUseFailure.tapPromise(tap, (post) => postToolUse(rt, "PostToolUseFailure", post));
      if (batchHandlers(rt).length) build.hooks.postToolBatch.tapPromise(tap, (batch) => postToolBatch(rt, batch));
      if (registry.list("PermissionRequest").length) build.hooks.permissionRequest.tapPromise(tap, (call) => permissionRequest(rt, call));
      // With any hook loaded: a UserPromptSubmit starts the prompt whose id later hook inputs carry, hooks on it or not.
      if (SUPPORTED_EVENTS.some((e) => registry.list(e).length)) build.hooks.sessionEvent.tapPromise(tap, (ev) => sessionEvent(rt, ev));
      if (registry.hasAsync) build.hooks.shape.tap({ name: PLUGIN_NAME, stage: SHAPE_STAGE_HOOK_CONTEXT }, deliverPending);
    });
  },
});
