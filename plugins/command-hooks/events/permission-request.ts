import path from "node:path";
import type { AskAnswer, CallState } from "../../../core/index.ts";
import { isInside } from "../../../lib/fs-path.ts";
import { permissionAnswer } from "../aggregate.ts";
import { fire, type Runtime } from "../dispatch.ts";
import type { Effect } from "../interpret.ts";
import { nullProto } from "../../../lib/null-proto.ts";

/** The permissions plugin's check: may this plugin's hook allow this call's tool? (A refusal is traced there.) */
interface Grants {
  hookAllowRefused?(call: CallState, plugin: string, at: { event: string; file?: string; path?: string }, build?: object): string | undefined;
}

/** PermissionRequest: answers the prompt (deny, or allow with a composed rewrite) or leaves it to the user. */
export async function permissionRequest(rt: Runtime, call: CallState): Promise<AskAnswer | undefined> {
  const effects = await fire(rt, "PermissionRequest", call, { tool_input: call.input, permission_suggestions: permissionSuggestions(call) });
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

const EDIT_TOOLS = new Set(["Write", "Edit", "MultiEdit", "NotebookEdit"]);
const PATH_FIELD: Record<string, string> = nullProto({ Read: "file_path", Write: "file_path", Edit: "file_path", MultiEdit: "file_path", NotebookEdit: "notebook_path", Glob: "path", Grep: "path" });

/**
 * PermissionRequest's `permission_suggestions`: the "always allow" answers a person could pick, in Claude Code
 * 2.1.328's shapes (recorded: permission-request-suggestions) — a file tool's path outside the workspace: an
 * allow rule for its directory (`/<dir>/**`) for the session; an edit tool inside it: acceptEdits for the session;
 * Bash: an allow rule for the exact command in settings.local.json; any other tool: an allow rule for the tool.
 * (Claude Code also reads a shell command for the files it writes; toolhost does not.)
 */
export function permissionSuggestions(call: CallState): unknown[] {
  const name = call.tool?.name ?? call.requestedName;
  const input = (call.input ?? {}) as Record<string, unknown>;
  const field = PATH_FIELD[name];
  const p = field && typeof input[field] === "string" && input[field] ? path.resolve(call.cwd, input[field] as string) : undefined;
  if (p && !isInside(p, call.cwd)) return [{ type: "addRules", rules: [{ toolName: name, ruleContent: `/${name === "Glob" || name === "Grep" ? p : path.dirname(p)}/**` }], behavior: "allow", destination: "session" }];
  if (EDIT_TOOLS.has(name)) return [{ type: "setMode", mode: "acceptEdits", destination: "session" }];
  if (name === "Bash" && typeof input.command === "string") return [{ type: "addRules", rules: [{ toolName: "Bash", ruleContent: input.command }], behavior: "allow", destination: "localSettings" }];
  return [{ type: "addRules", rules: [{ toolName: name }], behavior: "allow", destination: "localSettings" }];
}
