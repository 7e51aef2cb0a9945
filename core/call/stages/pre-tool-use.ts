/**
 * Stage preToolUse: in-process and command PreToolUse handlers decide, rewrite the input, add context
 * or substitute a result. Their decisions combine as deny > defer > ask > allow; a changed input runs
 * every check again. A hook's allow skips the default prompt but never an explicit ask rule.
 */
import { isPromise, series, tapped, type MaybePromise } from "../../hooks/dispatch.ts";
import { textResult } from "../../tool.ts";
import { TRACE, type Decision, type ExecuteOutcome, type HookDecision, type PreToolUseContext, type TraceEntry } from "../../types.ts";
import type { Call } from "../call.ts";
import { denialText, failClosed, refuse } from "../outcome.ts";
import { recheck } from "./decide.ts";

type Verdict = { decision: HookDecision; reason: string; source: string; rule?: string; file?: string };
const RANK: Record<HookDecision, number> = { allow: 1, ask: 2, defer: 3, deny: 4 };

export function preToolUse(call: Call): MaybePromise<ExecuteOutcome | undefined> {
  const hook = call.build.hooks.preToolUse;
  if (!tapped(hook)) return undefined;
  const decisions: Verdict[] = [];
  let ran: MaybePromise<void>;
  try {
    ran = series(hook, contextFor(call, decisions));
  } catch (e) {
    return failed(call, e);
  }
  return isPromise(ran) ? ran.then(() => decide(call, decisions), (e: unknown) => failed(call, e)) : decide(call, decisions);
}

function failed(call: Call, e: unknown): ExecuteOutcome {
  const d = failClosed(e, "preToolUse");
  return refuse(call, "blocked", denialText(call.tool!.name, d), d);
}

function decide(call: Call, decisions: Verdict[]): MaybePromise<ExecuteOutcome | undefined> {
  const top = decisions.reduce<Verdict | undefined>((a, b) => (!a || RANK[b.decision] > RANK[a.decision] ? b : a), undefined);
  if (top?.decision === "deny") {
    const d: Decision = { behavior: "deny", reason: top.reason || "blocked by a PreToolUse hook", rule: top.rule ?? "PreToolUse hook", plugin: top.source, ...(top.file && { file: top.file }) };
    return refuse(call, "blocked", `PreToolUse hook (${top.source}) blocked ${call.tool!.name}: ${d.reason}`, d);
  }
  const settle = (again: ExecuteOutcome | undefined) => {
    if (again) return again;
    call.verdict = top;
    call.decision = applyVerdict(call.decision!, top);
    return undefined;
  };
  if (!call.inputChanged) return settle(undefined);
  const again = recheck(call);
  return isPromise(again) ? again.then(settle) : settle(again);
}

function applyVerdict(d: Decision, top: Verdict | undefined): Decision {
  if (top && (top.decision === "ask" || top.decision === "defer")) {
    return { behavior: "ask", reason: top.reason || "a PreToolUse hook asks for approval", rule: top.rule ?? "PreToolUse hook", plugin: top.source, ...(top.file && { file: top.file }), explicit: true };
  }
  if (top?.decision === "allow" && d.behavior === "ask" && !d.explicit) return { behavior: "allow", reason: top.reason || "allowed by a PreToolUse hook", rule: "PreToolUse hook", plugin: top.source };
  return d;
}

/**
 * What a PreToolUse handler gets. A class, not an object literal: a literal with a getter makes V8 give
 * every call's object a map of its own (the getter closure is part of the map), and those maps keep each
 * call's garbage alive through young-generation GCs — one in-process PreToolUse hook cost +8 µs per call
 * that way (bench/pipeline.ts). The methods stay own arrow properties, so a handler may destructure them.
 */
class PreToolUseCall implements PreToolUseContext {
  readonly [TRACE]: TraceEntry[];
  constructor(
    readonly call: Call,
    readonly decisions: Verdict[],
  ) {
    this[TRACE] = call[TRACE];
  }
  get input(): unknown {
    return this.call.input;
  }
  decide: PreToolUseContext["decide"] = (decision, reason, source, cite) => void this.decisions.push({ decision, reason, source, ...(cite?.rule && { rule: cite.rule }), ...(cite?.file && { file: cite.file }) });
  updateInput: PreToolUseContext["updateInput"] = (input, source) => {
    const call = this.call;
    call.input = input;
    call.inputChanged = true;
    call.rewrittenBy = `PreToolUse hook (${source})`;
    call[TRACE].push({ stage: "preToolUse.updateInput", plugin: source, ms: 0, outcome: "input-updated" });
  };
  substitute: PreToolUseContext["substitute"] = (r, source) => {
    this.call.substitute = typeof r === "string" ? textResult(r) : r;
    this.call[TRACE].push({ stage: "preToolUse.substitute", plugin: source, ms: 0, outcome: "substituted" });
  };
  addContext: PreToolUseContext["addContext"] = (text) => void this.call.notes.push(text);
  stop: PreToolUseContext["stop"] = (reason, source) => this.call.requestStop({ event: "PreToolUse", reason, source, kind: "continue" });
}

function contextFor(call: Call, decisions: Verdict[]): PreToolUseContext {
  return new PreToolUseCall(call, decisions);
}
