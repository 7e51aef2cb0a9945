/**
 * toolhost's manifest schema: a superset of Claude Code's `.claude-plugin/plugin.json`
 * (../shared/formats.md §1.3). Unknown keys are not part of the schema (they warn, see load.ts);
 * a known key of the wrong type fails the plugin. Published as manifest.schema.json: this base with the sub-schemas
 * plugins own (the permissions plugin's `permissions`, plugins/permissions/schema.ts); a test keeps it in sync.
 */
const stringOrStrings = { anyOf: [{ type: "string" }, { type: "array", items: { type: "string" } }] };
const pathOrInline = {
  anyOf: [
    { type: "string" },
    { type: "object" },
    { type: "array", items: { anyOf: [{ type: "string" }, { type: "object" }] } },
  ],
};
export const manifestSchema = {
  $schema: "http://json-schema.org/draft-07/schema#",
  $id: "https://toolhost.dev/manifest.schema.json",
  title: "toolhost plugin manifest (superset of Claude Code plugin.json)",
  type: "object",
  required: ["name"],
  properties: {
    $schema: { type: "string" },
    name: { type: "string", minLength: 1 },
    displayName: { type: "string" },
    version: { type: "string" },
    description: { type: "string" },
    author: {
      type: "object",
      required: ["name"],
      properties: { name: { type: "string" }, email: { type: "string" }, url: { type: "string" } },
    },
    homepage: { type: "string" },
    repository: { type: "string" },
    license: { type: "string" },
    keywords: { type: "array", items: { type: "string" } },
    metadata: {},
    defaultEnabled: { type: "boolean" },
    skills: stringOrStrings,
    commands: { anyOf: [...stringOrStrings.anyOf, { type: "object" }] },
    agents: stringOrStrings,
    workflows: stringOrStrings,
    outputStyles: stringOrStrings,
    hooks: pathOrInline,
    mcpServers: pathOrInline,
    lspServers: pathOrInline,
    experimental: {},
    themes: stringOrStrings,
    monitors: { anyOf: [{ type: "string" }, { type: "array" }] },
    userConfig: { type: "object" },
    channels: { type: "array", items: { type: "object", required: ["server"], properties: { server: { type: "string" } } } },
    dependencies: { type: "array", items: { anyOf: [{ type: "string" }, { type: "object", required: ["name"] }] } },
    settings: { type: "object" },
    // ---- toolhost additions ----
    /** TS/JS modules whose default export or named exports are tools (defineTool). */
    tools: stringOrStrings,
    /** A TS/JS module exporting a plugin (definePlugin) that taps toolhost's hooks. */
    main: { type: "string" },
    /** Permission rules in Claude Code's syntax; their lists are the permissions plugin's to check (host.validateManifest). */
    permissions: { type: "object" },
    /** Load order among plugins that tap the same hook (lower first). Default 0. */
    order: { type: "number" },
    /**
     * `toolhost <name>` subcommands this plugin contributes. The metadata lives here so `toolhost --help`
     * and flag parsing need no import; `module` (relative to the plugin root) is imported only when the
     * command runs and exports `run(ctx)`.
     */
    cliCommands: {
      type: "array",
      items: {
        type: "object",
        required: ["name", "summary", "module"],
        additionalProperties: false,
        properties: {
          name: { type: "string", pattern: "^[a-z][a-z0-9-]*$" },
          summary: { type: "string" },
          usage: { type: "string" },
          /** Flags that take a value. */
          values: { type: "array", items: { type: "string" } },
          /** Flags that may repeat. */
          repeat: { type: "array", items: { type: "string" } },
          /** Every flag beyond the global ones, `"name [VALUE]": "what it does"`; with it, other flags are usage errors. */
          flags: { type: "object", additionalProperties: { type: "string" } },
          /** Exit codes and their meaning, for --help. */
          exits: { type: "object", additionalProperties: { type: "string" } },
          module: { type: "string" },
        },
      },
    },
  },
} as const;

export const KNOWN_MANIFEST_KEYS = new Set(Object.keys(manifestSchema.properties));

/**
 * The keys core reads from a toolhost config: plugin sources, the mode, and the components a config
 * holds like a manifest does (permissions, hooks, mcpServers). Plugins contribute the schemas of their
 * own keys (`ctx.contributeConfig`), checked after activation.
 */
export const configSchema = {
  type: "object",
  properties: {
    plugins: { type: "array", items: { type: "string" } },
    disabledPlugins: { type: "array", items: { type: "string" } },
    permissions: { type: "object" },
    hooks: { type: "object" },
    mcpServers: { type: "object" },
    mode: { type: "string" },
  },
} as const;
