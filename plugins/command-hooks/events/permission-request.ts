import type { AskAnswer, CallState } from "../../../core/index.ts";
import { permissionAnswer } from "../aggregate.ts";
import { fire, type Runtime } from "../dispatch.ts";

/** PermissionRequest: answers the prompt (deny, or allow with a composed rewrite) or leaves it to the user. */
export async function permissionRequest(rt: Runtime, call: CallState): Promise<AskAnswer | undefined> {
  return permissionAnswer(call, await fire(rt, "PermissionRequest", call, { tool_input: call.input }));
}
