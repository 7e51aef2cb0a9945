/**
 * Stages checkDeny and decidePermission. Deny runs first and any deny ends the call; then the first
 * permission answer (by stage) decides, and no answer means ask. A throw in either denies (fail closed).
 */
import { first, isPromise, type MaybePromise } from "../../hooks/dispatch.ts";
import type { Decision, ExecuteOutcome } from "../../types.ts";
import type { Call } from "../call.ts";
import { denialText, failClosed, refuse } from "../outcome.ts";
import { runStages, type Stage } from "../run.ts";
import { validate } from "./input.ts";
import { checkRewrite } from "./rewrite.ts";

function ask(hook: object, call: Call, stage: string): MaybePromise<Decision | undefined> {
  let d: MaybePromise<Decision | undefined>;
  try {
    d = first<Decision>(hook, call);
  } catch (e) {
    return failClosed(e, stage);
  }
  return isPromise(d) ? d.catch((e: unknown) => failClosed(e, stage)) : d;
}

export function checkDeny(call: Call): MaybePromise<ExecuteOutcome | undefined> {
  const d = ask(call.build.hooks.deny, call, "deny");
  return isPromise(d) ? d.then((x) => denied(call, x)) : denied(call, d);
}
function denied(call: Call, d: Decision | undefined): ExecuteOutcome | undefined {
  if (d?.behavior !== "deny") return undefined;
  call.decision = d;
  return refuse(call, "denied", denialText(call.tool!.name, d), d);
}

export function decidePermission(call: Call): MaybePromise<ExecuteOutcome | undefined> {
  const d = ask(call.build.hooks.permission, call, "permission");
  return isPromise(d) ? d.then((x) => decided(call, x)) : decided(call, d);
}
function decided(call: Call, d: Decision | undefined): ExecuteOutcome | undefined {
  call.decision = d ?? { behavior: "ask", reason: "no rule allows this call" };
  return call.decision.behavior === "deny" ? refuse(call, "denied", denialText(call.tool!.name, call.decision), call.decision) : undefined;
}

/** After the input changed (a PreToolUse rewrite, an approval's updatedInput): every check again. */
const RECHECK: readonly Stage[] = [checkRewrite, validate, checkDeny, decidePermission];
export function recheck(call: Call): MaybePromise<ExecuteOutcome | undefined> {
  return runStages(call, RECHECK);
}
