/**
 * The JSON Schema of permission lists (`permissions` in a manifest, a toolhost config or a Claude Code settings
 * file): the rule lists, the default mode, extra directories and rule examples. One copy for core's manifest and
 * config schemas and settings sources.
 */
export const permissionsSchema = {
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
