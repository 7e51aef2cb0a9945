/**
 * The hooks of a loaded manifest or settings source, checked where the knowledge lives (core reads the
 * maps as written): an event Claude Code does not know warns (with a did-you-mean) and is dropped; matcher
 * groups of the wrong shape are errors (the source fails to load, as a schema error does) and are dropped.
 * Tapped on host.validateManifest, which core calls for every manifest, config and settings source.
 */
import { ajvProblems, suggest, validatorFor, type LoadedPlugin, type ProblemReport } from "../../core/index.ts";
import { HOOK_EVENTS } from "./events-table.ts";

const KNOWN = Object.keys(HOOK_EVENTS);

/** Shape of one hook event's matcher groups (settings and hooks.json). */
export const hookGroupsSchema = {
  type: "array",
  items: {
    type: "object",
    required: ["hooks"],
    properties: {
      matcher: { type: "string" },
      hooks: {
        type: "array",
        items: {
          type: "object",
          required: ["type"],
          properties: {
            type: { type: "string" },
            command: { type: "string" },
            args: { type: "array", items: { type: "string" } },
            timeout: { type: "number" },
            if: { type: "string" },
            async: { type: "boolean" },
            onFailure: { enum: ["continue", "block"] },
            url: { type: "string" },
            shell: { type: "string" },
            statusMessage: { type: "string" },
          },
        },
      },
    },
  },
} as const;

export function checkHookMaps(lp: LoadedPlugin): ProblemReport[] {
  const problems: ProblemReport[] = [];
  const validate = validatorFor(hookGroupsSchema);
  for (const c of lp.components.hooks) {
    for (const [event, groups] of Object.entries(c.value)) {
      const jp = `${c.jsonPath === "/" ? "" : c.jsonPath}/${event}`;
      if (!HOOK_EVENTS[event]) {
        problems.push({ plugin: lp.id, file: c.file, path: jp, message: `unknown hook event "${event}" is ignored${suggest(event, KNOWN)}`, severity: "warning" });
        delete c.value[event];
      } else if (!validate(groups)) {
        problems.push(...ajvProblems(validate.errors, lp.id, c.file, jp));
        delete c.value[event];
      }
    }
  }
  return problems;
}
