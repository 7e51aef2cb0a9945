/**
 * Stages askIfNeeded and dryRun. An ask goes to PermissionRequest hooks, then the caller's onAsk, then
 * `--yes`; nobody answering means not approved. An answer's updatedInput runs every check again.
 */
import { first } from "../../hooks/dispatch.ts";
import { textResult } from "../../tool.ts";
import type { AskAnswer, ExecuteOutcome } from "../../types.ts";
import type { Call } from "../call.ts";
import { finish } from "../outcome.ts";
import { recheck } from "./decide.ts";

export function askIfNeeded(call: Call): Promise<ExecuteOutcome | undefined> | undefined {
  return call.decision!.behavior === "ask" ? ask(call) : undefined;
}

async function ask(call: Call): Promise<ExecuteOutcome | undefined> {
  const decision = call.decision!;
  const tool = call.tool!;
  let answer: AskAnswer | undefined = await first<AskAnswer>(call.build.hooks.permissionRequest, call, decision);
  const fromHook = answer !== undefined ? "a permissionRequest hook" : undefined;
  if (answer === undefined && call.opts.onAsk) answer = await call.opts.onAsk({ tool: tool.name, input: call.input, decision, sessionId: call.sessionId });
  if (typeof answer === "object" && answer.interrupt && answer.behavior === "deny") call.requestStop({ event: "PermissionRequest", reason: answer.message ?? `${tool.name} was denied and the run interrupted`, source: fromHook ? "PermissionRequest hook" : "onAsk", kind: "interrupt" });
  if (answer === undefined && call.opts.yes) answer = "allow";
  // Why it was asked stays with the answer (trace and refusal): a hook's or a rule's reason is not lost when nobody says yes.
  call.mark("ask", typeof answer === "object" ? answer.behavior : answer ?? "unanswered", { reason: decision.reason, rule: decision.rule, plugin: decision.plugin, ...(decision.file ? { file: decision.file } : {}), ...(typeof answer === "object" && answer.message ? { message: answer.message } : {}) });
  const behavior = typeof answer === "object" ? answer.behavior : answer;
  if (typeof answer === "object" && answer.updatedInput) {
    call.input = answer.updatedInput;
    call.rewrittenBy = fromHook ? `PermissionRequest hook (${fromHook})` : "the approval (onAsk)";
    const again = await recheck(call);
    if (again) return again;
    call.decision = decision;
  }
  if (behavior === "allowAlways") call.build.allowAlways(tool, call.input, call.sessionId);
  if (behavior === "allow" || behavior === "allowAlways") return undefined;
  const why =
    behavior === "deny"
      ? `${tool.name} was not approved${typeof answer === "object" && answer.message ? `: ${answer.message}` : ""} (approval was needed: ${decision.reason}).`
      : `${tool.name} needs approval (${decision.reason}) and there is no one to ask; re-run with --yes or pass onAsk.`;
  return finish(call, { status: "not-approved", decision: "ask", reason: why, rule: decision.rule, plugin: decision.plugin, file: decision.file, result: textResult(why, true) });
}

export function dryRun(call: Call): ExecuteOutcome | undefined {
  if (!call.dryRun) return undefined;
  const d = call.decision!;
  return finish(call, { status: "dry-run", decision: d.behavior === "ask" ? "ask" : "allow", reason: d.reason, rule: d.rule, plugin: d.plugin, file: d.file, result: textResult(`[dry run] ${call.tool!.name} would run`) });
}
