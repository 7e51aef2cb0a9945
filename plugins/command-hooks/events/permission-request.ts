import type { AskAnswer, CallState } from "../../../core/index.ts";
import { permissionAnswer } from "../aggregate.ts";
import { fire, type Runtime } from "../dispatch.ts";
import type { Effect } from "../interpret.ts";

/** The permissions plugin's check: may this plugin's hook allow this call's tool? (A refusal is traced there.) */
interface Grants {
  hookAllowRefused?(call: CallState, plugin: string, at: { event: string; file?: string; path?: string }, build?: object): string | undefined;
}

/** PermissionRequest: answers the prompt (deny, or allow with a composed rewrite) or leaves it to the user. */
export async function permissionRequest(rt: Runtime, call: CallState): Promise<AskAnswer | undefined> {
  const effects = await fire(rt, "PermissionRequest", call, { tool_input: call.input });
  return permissionAnswer(call, effects.some((e) => e.decision === "allow") ? grantedOnly(rt, call, effects) : effects);
}

/**
 * A plugin's hook allows only that plugin's own tools unless the user granted it more (pluginTrust): a
 * refused allow is dropped, so the ask goes on to the person (onAsk, --yes, or not approved headless).
 */
function grantedOnly(rt: Runtime, call: CallState, effects: Effect[]): Effect[] {
  const svc = rt.host.service<Grants>("permissions.grants");
  if (!svc?.hookAllowRefused) return effects;
  return effects.filter((e) => e.decision !== "allow" || !svc.hookAllowRefused!(call, e.handler.plugin, { event: "PermissionRequest", file: e.handler.file, path: e.handler.jsonPath }, rt.build));
}
