import type { PreToolUseContext } from "../../../core/index.ts";
import { applyPreToolUse } from "../aggregate.ts";
import { fire, PLUGIN_NAME, type Runtime } from "../dispatch.ts";

/** PreToolUse: decisions, context, substitutes and the composed input rewrite. */
export async function preToolUse(rt: Runtime, p: PreToolUseContext): Promise<void> {
  const effects = await fire(rt, "PreToolUse", p.call, { tool_input: p.input, tool_use_id: p.call.toolUseId });
  if (effects.length) applyPreToolUse(p, effects, rt.details, PLUGIN_NAME);
}
