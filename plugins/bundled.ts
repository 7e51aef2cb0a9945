/**
 * The bundled plugins, in load order — and so the order their taps run among equal stages (stage
 * numbers: core/stages.ts). The only file of plugins/ that core reads. All plugins sort by manifest
 * `order` (default 0; plugin-tools has -50 so plugin modules collect first), then bundled ones in this
 * list's order, then the rest by id.
 */
export const BUNDLED_MANIFESTS: readonly string[] = [
  "host-cli.json", //       `toolhost tools`, `explain`, `call`: the host's own views (first, so `--help` lists them first)
  "agents-md.json", //      AGENTS.md rules compiled into deny/ask rules, read filters and post-edit reminders
  "builtin-tools.json", //  Read, Write, Edit, Glob, Grep, Bash, TaskOutput, TaskStop, exec sessions
  "check.json", //           `toolhost check`: problems, what loads but never works, tool-design scores
  "claude-settings.json", // .claude/settings*.json and .mcp.json as sources (host.settings), gated by workspace trust
  "command-hooks.json", //  Claude Code command hooks (PreToolUse, PostToolUse, PostToolBatch, PermissionRequest)
  "doctor.json", //         `toolhost doctor`: the state of this setup
  "input-repair.json", //   repair tool input before validation
  "lsp.json", //            language servers behind the LSP tool, post-edit diagnostics
  "mcp.json", //            MCP servers as a tool source (provides the "mcp.connections" service)
  "mcp-serve.json", //      `toolhost serve`: the pool as an MCP server, over stdio or Streamable HTTP
  "modes.json", //          permission-mode and tool-set filtering of the pool
  "permissions.json", //    allow/ask/deny rules, modes, read-only defaults
  "plugin-manager.json", //  `toolhost plugin add|remove|list|update`, Claude Code marketplaces
  "plugin-tools.json", //   tools from plugin manifests' `tools` modules
  "scaffold.json", //       `toolhost init`: a new plugin package
  "sessions.json", //      sessions kept in a store (SQLite on disk by default for the CLI), `toolhost sessions`
  "shaping.json", //        output budgets, trust headers, injection advisory
  "taint.json", //          taint: a session that read untrusted content asks before writes and network calls (config `taint`, off by default)
  "telemetry.json", //      OpenTelemetry spans of every call, per-instance metrics (off by default)
  "tool-search.json", //    ToolSearch and deferral
  "transcript.json", //     the call transcript
  "trust.json", //          workspace trust: the trust store, Claude Code's record, `toolhost trust`
  "watch.json", //          rebuild on file changes
];
