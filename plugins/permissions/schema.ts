/**
 * The JSON Schema of permission lists (`permissions` in a manifest, a toolhost config or a Claude Code settings
 * file): the rule lists, the default mode, extra directories and rule examples. The permissions plugin owns it
 * (VS Code's contributed schemas): core reads `permissions` as a component that must be an object, as it reads
 * `hooks` and `mcpServers`, and this plugin checks every such component in host.validateManifest. The published
 * manifest.schema.json is core's base schema with this one as its `permissions` (test/core/manifest.test.ts).
 */
import type { LoadedPlugin, ProblemReport } from "../../core/index.ts";
import { validatorFor } from "../../lib/validators.ts";
import { ajvProblems } from "../../lib/schema-errors.ts";

export const PERMISSIONS_SCHEMA = {
  type: "object",
  properties: {
    allow: { type: "array", items: { type: "string" } },
    ask: { type: "array", items: { type: "string" } },
    deny: { type: "array", items: { type: "string" } },
    defaultMode: { type: "string" },
    additionalDirectories: { type: "array", items: { type: "string" } },
    /** toolhost: rules with examples that must (not) match, checked at load time. */
    tests: {
      type: "array",
      items: {
        type: "object",
        required: ["rule"],
        properties: {
          rule: { type: "string" },
          match: { type: "array" },
          not_match: { type: "array" },
        },
      },
    },
  },
} as const;

/** host.validateManifest: a manifest's, config's or settings file's permission lists against the schema; an error fails the source. */
export function checkPermissionLists(problems: ProblemReport[], lp: LoadedPlugin): ProblemReport[] {
  const c = lp.components.permissions;
  if (!c) return problems;
  const validate = validatorFor(PERMISSIONS_SCHEMA);
  return validate(c.value) ? problems : [...problems, ...ajvProblems(validate.errors, lp.id, c.file, c.jsonPath)];
}
