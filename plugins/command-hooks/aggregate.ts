/**
 * All composition rules: how the effects of several hooks of one event combine. Handlers of one event
 * run in parallel; their effects are applied here in declaration order, so the outcome never depends
 * on which process finished first. Decisions combine deny > defer > ask > allow (core ranks the
 * decisions passed to `decide`); input rewrites compose key-wise (composeInputs); PostToolUse output
 * replacements: the last declaration wins; block feedback, context and batch stops all apply.
 */
import { isDeepStrictEqual } from "node:util";
import { TRACE, type AskAnswer, type CallState, type PostToolBatchContext, type PostToolUseContext, type PreToolUseContext } from "../../core/index.ts";
import { label, type Handler } from "./handlers.ts";
import type { Effect } from "./interpret.ts";

export interface InputComposition {
  input: Record<string, unknown>;
  changed: boolean;
  /** key → handler that set it last. */
  setBy: Map<string, Handler>;
  conflicts: Array<{ key: string; earlier: Handler; later: Handler }>;
  /** Per effect: keys it changed. */
  changes: Map<Effect, string[]>;
}

export function where(h: Handler): string {
  return `${h.plugin} ${h.file}${h.jsonPath}`;
}

export function source(h: Handler): string {
  return `${h.plugin}: ${label(h)}`;
}

/**
 * Compose several `updatedInput`s without lost updates: each is diffed (top-level keys) against the
 * input that handler received; the changed keys (set or removed) are applied in declaration order.
 * Two handlers changing the same key to different values is a conflict: the later declaration wins
 * and the conflict is traced.
 */
export function composeInputs(base: Record<string, unknown>, effects: Effect[]): InputComposition {
  const input: Record<string, unknown> = { ...base };
  const setBy = new Map<string, Handler>();
  const conflicts: InputComposition["conflicts"] = [];
  const changes = new Map<Effect, string[]>();
  for (const e of effects) {
    if (!e.updatedInput || e.decision === "deny") continue;
    const keys = new Set([...Object.keys(base), ...Object.keys(e.updatedInput)]);
    const mine: string[] = [];
    for (const k of keys) {
      const had = Object.prototype.hasOwnProperty.call(e.updatedInput, k);
      const next = e.updatedInput[k];
      if (had ? isDeepStrictEqual(base[k], next) && k in base : !(k in base)) continue;
      const prev = setBy.get(k);
      if (prev) {
        const sameValue = had ? isDeepStrictEqual(input[k], next) && k in input : !(k in input);
        if (!sameValue) conflicts.push({ key: k, earlier: prev, later: e.handler });
      }
      if (had) input[k] = next;
      else delete input[k];
      setBy.set(k, e.handler);
      mine.push(k);
    }
    changes.set(e, mine);
  }
  return { input, changed: setBy.size > 0, setBy, conflicts, changes };
}

function traceConflict(call: CallState, event: string, key: string, earlier: Handler, later: Handler): void {
  call[TRACE].push({ stage: `hook.${event}.conflict`, plugin: later.plugin, ms: 0, outcome: "later-wins", detail: { key, earlier: where(earlier), later: where(later) } });
}

/**
 * PreToolUse: every decision, context and substitute (not under a deny); rewrites composed key-wise. Under a deny
 * the call's result is the refusal, which carries no notes: every hook's additionalContext then follows the first
 * deny's reason, so the model still reads it (Claude Code 2.1.328 keeps it beside the deny, recorded:
 * hook-out-pre-deny-context).
 */
export function applyPreToolUse(p: PreToolUseContext, effects: Effect[], details: WeakMap<Effect, Record<string, unknown>>, pluginName: string): void {
  const deny = effects.find((e) => e.decision === "deny");
  const contexts = effects.flatMap((e) => (e.additionalContext ? [e.additionalContext] : []));
  for (const e of effects) {
    if (e.decision) p.decide(e.decision, e === deny && contexts.length ? `${e.reason || "blocked by a PreToolUse hook"}\n${contexts.join("\n")}` : e.reason ?? "", source(e.handler));
    if (e.additionalContext && !deny) p.addContext(e.additionalContext, source(e.handler));
    if (e.substitute && e.decision !== "deny") p.substitute(e.substitute, source(e.handler));
    if (e.stop) p.stop(e.stop, source(e.handler));
  }
  const comp = composeInputs(p.input, effects);
  for (const [e, keys] of comp.changes) {
    const d = details.get(e);
    if (d) d.changed = keys;
  }
  for (const c of comp.conflicts) traceConflict(p.call, "PreToolUse", c.key, c.earlier, c.later);
  if (comp.changed) p.updateInput(comp.input, `${pluginName}: ${[...new Set([...comp.setBy.values()].map(source))].join(", ")}`);
}

/** PostToolUse(Failure): every block and context; of several output replacements the last wins (losers traced). */
export function applyPostToolUse(post: PostToolUseContext, event: string, effects: Effect[]): void {
  for (const e of effects) {
    if (e.feedback) post.block(e.feedback, source(e.handler));
    if (e.additionalContext) post.addContext(e.additionalContext, source(e.handler));
    if (e.stop) post.stop(e.stop, source(e.handler));
  }
  const outs = effects.filter((e) => e.updatedOutput);
  const winner = outs[outs.length - 1];
  if (!winner) return;
  post.updateOutput(winner.updatedOutput!, source(winner.handler));
  for (const loser of outs.slice(0, -1)) traceConflict(post.call, event, "updatedToolOutput", loser.handler, winner.handler);
}

/** PermissionRequest: any deny wins; else the allows' rewrites compose key-wise; no decision → undefined. */
export function permissionAnswer(call: CallState, effects: Effect[]): AskAnswer | undefined {
  const deny = effects.find((e) => e.decision === "deny");
  if (deny) return { behavior: "deny", message: deny.reason ?? `denied by PermissionRequest hook ${label(deny.handler)} (${deny.handler.plugin})`, ...(effects.some((e) => e.interrupt) ? { interrupt: true } : {}) };
  const allows = effects.filter((e) => e.decision === "allow");
  if (!allows.length) return undefined;
  const comp = composeInputs(call.input, allows);
  return comp.changed ? { behavior: "allow", updatedInput: comp.input } : { behavior: "allow" };
}

/** PostToolBatch: every context is appended; every stop asks the agent loop to stop. */
export function applyPostToolBatch(batch: PostToolBatchContext, e: Effect): void {
  if (e.additionalContext) batch.addContext(e.additionalContext, source(e.handler));
  if (e.stop) batch.stop(e.stop, source(e.handler));
}
