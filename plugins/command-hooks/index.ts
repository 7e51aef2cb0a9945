/**
 * Claude Code–compatible command hooks (formats §3) from every loaded source: toolhost config,
 * .claude/settings.json, .claude/settings.local.json, plugin hooks/hooks.json and inline manifest
 * hooks. Events: PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest.
 *
 * Composition (docs/hooks.md): the matching handlers of one event run in parallel (one spawn each);
 * their effects are applied in declaration order (sources: config, settings:project, settings:local,
 * then plugins in load order). Decisions combine deny > defer > ask > allow (in core); rewrites
 * compose key-wise (compose.ts); every handler leaves one trace entry.
 */
import path from "node:path";
import { definePlugin, TRACE, COMMAND_HOOKS_STAGE, SHAPE_STAGE_HOOK_CONTEXT, type CallState, type PostToolUseContext, type PostToolBatchContext, type PreToolUseContext, type AskAnswer, type BuildView } from "../../core/index.ts";
import { collectHandlers, label, TOOL_EVENTS, type Handler } from "./handlers.ts";
import { runHandler, type McpCaller } from "./run.ts";
import { composeInputs, interpret, type Effect } from "./compose.ts";
import { matchesRule } from "../permissions/match.ts";

const PLUGIN_NAME = "command-hooks";

interface PendingAsync {
  texts: string[];
  hook: string;
  event: string;
  ms: number;
}

/**
 * Stage of the command-hooks taps on preToolUse / postToolUse / postToolUseFailure / permissionRequest.
 * In-process handlers tapped at a lower stage run before every command hook (and their rewrite is
 * what command hooks receive); at a higher stage, after them (they see the composed rewrite).
 */

export default definePlugin({
  name: PLUGIN_NAME,
  apply(ctx) {
    // Kills async hooks still running when the plugin is disposed (host closed or plugin reloaded).
    const shutdown = new AbortController();
    ctx.onDispose(() => shutdown.abort());
    ctx.hooks.build.tap(PLUGIN_NAME, (build) => {
      const problems: Parameters<typeof collectHandlers>[1] = [];
      const byEvent = collectHandlers(build.plugins, problems);
      if (problems.length) build.hooks.collect.tap(PLUGIN_NAME, (collector) => problems.forEach((p) => collector.problem(p)));
      const host = build.host;
      // mcp_tool hooks call a tool of the pool's MCP servers directly (not through the pipeline: a hook is
      // the host's own check, and a hook that re-entered the pipeline would fire hooks of its own).
      const callMcp: McpCaller = async (server, tool, input, signal) => {
        const pool = host.pool();
        const t = pool && [...pool.tools, ...pool.deferred].find((x) => x.origin === "mcp" && x.server === server && (x.sourceName === tool || x.name.endsWith(`__${tool}`)));
        if (!t) return { missing: `no MCP tool "${tool}" on server "${server}" in the pool (is the server configured and connected, and the tool not excluded?)` };
        const res = await t.call(input, { signal, cwd: host.cwd, sessionId: "hooks", toolUseId: `hook-${server}-${tool}`, progress() {}, state: new Map() });
        if (typeof res === "string") return { text: res, isError: false };
        return { text: res.content.map((c) => (c.type === "text" ? c.text ?? "" : "")).join("\n"), isError: !!res.isError };
      };
      const details = new WeakMap<Effect, Record<string, unknown>>();

      const pre = byEvent.get("PreToolUse");
      if (pre?.length) {
        build.hooks.preToolUse.tapPromise({ name: PLUGIN_NAME, stage: COMMAND_HOOKS_STAGE }, async (p: PreToolUseContext) => {
          const effects = await fire(build, "PreToolUse", pre, p.call, { tool_input: p.input, tool_use_id: p.call.toolUseId });
          if (!effects.length) return;
          for (const e of effects) {
            if (e.decision) p.decide(e.decision, e.reason ?? "", source(e.handler));
            if (e.additionalContext) p.addContext(e.additionalContext, source(e.handler));
            if (e.substitute && e.decision !== "deny") p.substitute(e.substitute, source(e.handler));
          }
          const comp = composeInputs(p.input, effects);
          for (const [e, keys] of comp.changes) {
            const d = details.get(e);
            if (d) d.changed = keys;
          }
          for (const c of comp.conflicts) {
            p.call[TRACE].push({
              stage: "hook.PreToolUse.conflict",
              plugin: c.later.plugin,
              ms: 0,
              outcome: "later-wins",
              detail: { key: c.key, earlier: where(c.earlier), later: where(c.later) },
            });
          }
          if (comp.changed) p.updateInput(comp.input, `${PLUGIN_NAME}: ${[...new Set([...comp.setBy.values()].map((h) => h.plugin))].join(", ")}`);
        });
      }

      for (const event of ["PostToolUse", "PostToolUseFailure"] as const) {
        const list = byEvent.get(event);
        if (!list?.length) continue;
        build.hooks[event === "PostToolUse" ? "postToolUse" : "postToolUseFailure"].tapPromise({ name: PLUGIN_NAME, stage: COMMAND_HOOKS_STAGE }, async (post: PostToolUseContext) => {
          const extra: Record<string, unknown> = { tool_input: post.call.input, tool_use_id: post.call.toolUseId };
          const callEntry = post.call[TRACE].findLast((t) => t.stage === "call");
          if (callEntry) extra.duration_ms = Math.round(callEntry.ms);
          if (event === "PostToolUse") extra.tool_response = post.result.meta?.tool_response ?? post.result.structuredContent ?? post.result.content;
          else {
            extra.error = post.error ?? "";
            extra.is_interrupt = post.call.signal.aborted;
          }
          const effects = await fire(build, event, list, post.call, extra);
          for (const e of effects) {
            if (e.feedback) post.block(e.feedback, source(e.handler));
            if (e.additionalContext) post.addContext(e.additionalContext, source(e.handler));
          }
          // Output replacements: the last declaration wins (each is traced).
          const outs = effects.filter((e) => e.updatedOutput);
          const winner = outs[outs.length - 1];
          if (winner) post.updateOutput(winner.updatedOutput!, source(winner.handler));
          for (const loser of outs.slice(0, -1)) {
            post.call[TRACE].push({
              stage: `hook.${event}.conflict`,
              plugin: winner!.handler.plugin,
              ms: 0,
              outcome: "later-wins",
              detail: { key: "updatedToolOutput", earlier: where(loser.handler), later: where(winner!.handler) },
            });
          }
        });
      }

      // PostToolBatch (after host.executeBatch): every handler runs (no matcher, and `if` never runs on a
      // non-tool event); context is appended after the batch, a block asks the agent loop to stop.
      const batchHandlers = byEvent.get("PostToolBatch")?.filter((h) => !h.if);
      if (batchHandlers?.length) {
        build.hooks.postToolBatch.tapPromise({ name: PLUGIN_NAME, stage: COMMAND_HOOKS_STAGE }, async (batch: PostToolBatchContext) => {
          const stdin = JSON.stringify({
            session_id: batch.sessionId,
            transcript_path: typeof build.config.transcript === "string" ? path.resolve(host.cwd, build.config.transcript) : "",
            cwd: batch.cwd,
            permission_mode: batch.mode,
            hook_event_name: "PostToolBatch",
            tool_calls: batch.calls.map((c) => ({
              tool_name: c.name,
              tool_input: c.input,
              tool_use_id: c.toolUseId,
              tool_response: c.outcome.result.meta?.tool_response ?? c.outcome.result.structuredContent ?? c.outcome.result.content,
            })),
          });
          const runs = await Promise.all(batchHandlers.map((h) => runHandler(h, stdin, { cwd: build.cwd, projectDir: host.cwd, signal: shutdown.signal, callMcp })));
          batchHandlers.forEach((h, i) => {
            const e = interpret("PostToolBatch", h, runs[i]!);
            batch[TRACE].push({ stage: "hook.PostToolBatch", plugin: h.plugin, ms: runs[i]!.ms, outcome: runs[i]!.status, detail: { file: h.file, jsonPath: h.jsonPath, command: label(h), ...(e.failure ? { failure: e.failure } : {}) } });
            if (e.additionalContext) batch.addContext(e.additionalContext, source(h));
            if (e.stop) batch.stop(e.stop, source(h));
          });
        });
      }

      const perm = byEvent.get("PermissionRequest");
      if (perm?.length) {
        build.hooks.permissionRequest.tapPromise({ name: PLUGIN_NAME, stage: COMMAND_HOOKS_STAGE }, async (call: CallState): Promise<AskAnswer | undefined> => {
          const effects = await fire(build, "PermissionRequest", perm, call, { tool_input: call.input });
          const deny = effects.find((e) => e.decision === "deny");
          if (deny) return { behavior: "deny", message: deny.reason ?? `denied by PermissionRequest hook ${label(deny.handler)} (${deny.handler.plugin})` };
          const allows = effects.filter((e) => e.decision === "allow");
          if (!allows.length) return undefined;
          const comp = composeInputs(call.input, allows);
          return comp.changed ? { behavior: "allow", updatedInput: comp.input } : { behavior: "allow" };
        });
      }

      /** Run every matching handler of `event` in parallel; return effects in declaration order. */
      async function fire(b: BuildView, event: string, list: Handler[], call: CallState, extra: Record<string, unknown>): Promise<Effect[]> {
        const toolName = call.tool?.name ?? call.requestedName;
        const matching = list.filter((h) => h.matches(toolName) && ifMatches(h, toolName, call));
        if (!matching.length) return [];
        const payload: Record<string, unknown> = {
          session_id: call.sessionId,
          transcript_path: typeof call.config.transcript === "string" ? path.resolve(host.cwd, call.config.transcript) : "",
          cwd: call.cwd,
          permission_mode: call.mode,
          hook_event_name: event,
          tool_name: toolName,
          ...extra,
        };
        if (call.tool?.origin === "mcp" && call.tool.server) payload.mcp_server = { name: call.tool.server, source: call.tool.plugin };
        const stdin = JSON.stringify(payload);
        const sync = matching.filter((h) => !h.async);
        for (const h of matching) if (h.async) startAsync(b, event, h, stdin, call);
        const runs = await Promise.all(sync.map((h) => runHandler(h, stdin, { cwd: b.cwd, projectDir: host.cwd, signal: call.signal, callMcp })));
        const effects = sync.map((h, i) => interpret(event, h, runs[i]!));
        for (const e of effects) traceEffect(call, event, e);
        return effects;
      }

      /**
       * Async hooks (formats §3.8) run in the background, detached from the call (its abort does not
       * kill them; host shutdown does). Decision fields are ignored; additionalContext and systemMessage
       * are delivered with the next call of the same session, after its result (Claude Code: next turn).
       */
      function startAsync(b: BuildView, event: string, h: Handler, stdin: string, call: CallState): void {
        const session = call.session;
        call[TRACE].push({ stage: `hook.${event}`, plugin: h.plugin, ms: 0, outcome: "async-started", detail: { file: h.file, jsonPath: h.jsonPath, command: label(h) } });
        void runHandler(h, stdin, { cwd: b.cwd, projectDir: host.cwd, signal: shutdown.signal, callMcp }).then((run) => {
          const e = interpret(event, h, run);
          const texts = [e.additionalContext, e.systemMessage && `[hook message] ${e.systemMessage}`].filter((x): x is string => !!x);
          if (e.failure) host.log.warn(`async ${event} hook "${label(h)}" (${h.plugin} ${h.file}${h.jsonPath}): ${e.failure}`);
          if (!texts.length) return;
          const pending = (session.stateFor(PLUGIN_NAME).get("pending") as PendingAsync[] | undefined) ?? [];
          pending.push({ texts, hook: `${h.plugin} ${h.file}${h.jsonPath}`, event, ms: run.ms });
          session.stateFor(PLUGIN_NAME).set("pending", pending);
        });
      }

      if ([...byEvent.values()].some((l) => l.some((h) => h.async))) {
        // Deliver finished async hooks' context with the session's next call, after its shaped result.
        build.hooks.shape.tap({ name: PLUGIN_NAME, stage: SHAPE_STAGE_HOOK_CONTEXT }, (result, call) => {
          const st = call.session.stateFor(PLUGIN_NAME);
          const pending = st.get("pending") as PendingAsync[] | undefined;
          if (!pending?.length) return result;
          st.set("pending", []);
          for (const p of pending) {
            call.notes.push(...p.texts);
            call[TRACE].push({ stage: `hook.${p.event}.async`, plugin: p.hook.split(" ")[0], ms: p.ms, outcome: "delivered", detail: { hook: p.hook } });
          }
          return result;
        });
      }

      function ifMatches(h: Handler, toolName: string, call: CallState): boolean {
        if (!h.if) return true;
        if (!TOOL_EVENTS.has(h.event)) return false;
        try {
          return matchesRule(h.if, { toolName, input: call.input }, { cwd: call.cwd, rulesRoot: h.rulesRoot });
        } catch {
          return true; // an `if` that cannot be evaluated fails open: the hook runs (formats §3.3)
        }
      }

      function traceEffect(call: CallState, event: string, e: Effect): void {
        const h = e.handler;
        const r = e.run;
        const outcome = r.status === "aborted" ? "aborted" : e.decision ?? (e.feedback ? "block" : e.failure ? (r.status === "ok" ? "bad-output" : r.status) : e.updatedOutput ? "output-updated" : "ok");
        const detail: Record<string, unknown> = {
          file: h.file,
          jsonPath: h.jsonPath,
          command: label(h),
          exitCode: r.exitCode,
          status: r.status,
        };
        if (e.reason) detail.reason = e.reason;
        if (e.failure) detail.error = e.failure;
        if (e.warnings.length) detail.warnings = e.warnings;
        if (e.systemMessage) detail.systemMessage = e.systemMessage;
        if (e.stop) detail.stop = e.stop;
        if (e.substitute) detail.substitute = true;
        if (h.duplicates.length) detail.dedupedFrom = h.duplicates;
        if (r.stderr.trim()) detail.stderr = r.stderr.trim().slice(0, 500);
        call[TRACE].push({ stage: `hook.${event}`, plugin: h.plugin, ms: r.ms, outcome, detail });
        details.set(e, detail);
        const where = `${h.plugin} ${h.file}${h.jsonPath}`;
        if (r.status === "missing") {
          // A missing script silently disables a gate in Claude Code; here it is loud.
          const msg = `[toolhost warning] ${event} hook "${label(h)}" (${where}) could not run: ${e.failure}. It did NOT check this call.`;
          call.notes.push(msg);
          host.log.warn(msg);
        } else if (e.failure) host.log.warn(`${event} hook "${label(h)}" (${where}): ${e.failure}${h.onFailure === "block" ? " (onFailure: block)" : " (non-blocking)"}`);
        for (const w of e.warnings) {
          const msg = `[toolhost warning] ${event} hook "${label(h)}" (${where}): ${w}`;
          call.notes.push(msg);
          host.log.warn(msg);
        }
        if (e.systemMessage) host.log.warn(`${event} hook "${label(h)}": ${e.systemMessage}`);
        if (e.stop) call.data.set("toolhost.stop", { reason: e.stop, hook: where });
      }
    });
  },
});

function where(h: Handler): string {
  return `${h.plugin} ${h.file}${h.jsonPath}`;
}

function source(h: Handler): string {
  return `${h.plugin}: ${label(h)}`;
}
