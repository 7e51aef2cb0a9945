/** Stages repairInput and validate: raw input repaired, then checked by the schema, the tool and plugins. */
import { errorMessage } from "../../errors.ts";
import { first, isPromise, reduce, tapped, type MaybePromise } from "../../hooks/dispatch.ts";
import type { ExecuteOutcome } from "../../types.ts";
import type { Call } from "../call.ts";
import { refuse } from "../outcome.ts";
import { cloneInput } from "../../../lib/clone-input.ts";
import { describeValue, schemaErrors } from "../../../lib/schema-errors.ts";

export function repairInput(call: Call): undefined {
  const h = call.build.hooks.repairInput;
  // A sync waterfall (tapable refuses promise taps on it), so reduce answers synchronously.
  call.input = tapped(h) ? reduce<unknown>(h, call.rawInput, call) : call.rawInput;
  call.mark("repairInput");
  return undefined;
}

/** ajv (compiled at seal) → tool.normalizeInput → tool.validateInput → build.validateInput (bail). */
export function validate(call: Call): MaybePromise<ExecuteOutcome | undefined> {
  const tool = call.tool!;
  const bad = checkSchema(call);
  if (bad) return refuse(call, "invalid-input", bad);
  if (tool.normalizeInput) call.input = tool.normalizeInput(call.input, { cwd: call.cwd });
  let own: string | undefined | Promise<string | undefined>;
  try {
    own = tool.validateInput?.(call.input, { cwd: call.cwd, sessionState: call.session.shared });
  } catch (e) {
    own = errorMessage(e);
  }
  const hook = call.build.hooks.validateInput;
  if (!isPromise(own) && (own != null || !tapped(hook))) return validated(call, own);
  const pending = own;
  return (async () => {
    let msg: string | undefined;
    try {
      msg = (await pending) ?? (tapped(hook) ? await first<string>(hook, call) : undefined);
    } catch (e) {
      msg = errorMessage(e);
    }
    return validated(call, msg);
  })();
}

function validated(call: Call, msg: string | undefined): ExecuteOutcome | undefined {
  call.mark("validateInput", msg ? "rejected" : "ok");
  return msg ? refuse(call, "invalid-input", `Invalid input for ${call.tool!.name}: ${msg}`) : undefined;
}

/** The schema check, with messages a model can act on; undefined when the input passes. */
function checkSchema(call: Call): string | undefined {
  const tool = call.tool!;
  const v = call.build.validator(tool);
  if (!v) return undefined;
  if (call.input === undefined || call.input === null) call.input = {};
  if (typeof call.input !== "object" || Array.isArray(call.input)) {
    call.mark("validate", "invalid");
    return `Invalid input for ${tool.name}: expected a JSON object, got ${describeValue(call.input)}.`;
  }
  const copy = cloneInput(call.input);
  if ("error" in copy) {
    call.mark("validate", "invalid");
    return `Invalid input for ${tool.name}: ${copy.error}.`;
  }
  call.input = copy.value;
  const ok = v(call.input);
  call.mark("validate", ok ? "ok" : "invalid");
  return ok ? undefined : `Invalid input for ${tool.name}: ${schemaErrors(tool, call.input, v.errors ?? [])}.`;
}
