/**
 * The conformance cases. Each is recorded against Claude Code (scripts/conformance/record.mjs → recordings/<id>.json)
 * and replayed through toolhost (replay.test.ts); differences must be listed in differences.json.
 *
 * A case: {id, about, files?, homeFiles?, settings?: {project|local|user: {...}}, hooks?: [{event, matcher?, label,
 * respond?: {stdout?, stderr?, exit?}, where?: "project"|"local"|"user"}], mcp?: {name: serverConfig},
 * plugins?: [fixture dir names under test/fixtures/cc-plugins], mode?, env?, steps: [{name, input}], tools?: true | [names]} (tools: record the tools array, or only the named tools).
 * A hook may give its own `command` ({{cwd}} etc. filled in; it should end by running the recording hook). `noPromptTool`:
 * record without --permission-prompt-tool (nobody to ask); `maxTurns`: the recording's --max-turns.
 * Every step is one model turn with one tool_use (ids toolu_01, toolu_02 …); a step with `oracleOnly: true` runs in the
 * recording only and is neither recorded nor replayed (e.g. a wait Claude Code needs).
 */

const A = "alpha\nbeta hello\ngamma\n";
/** A recording hook on every tool event, answering nothing. */
const TOOL_EVENTS = (prefix = "") => [
  { event: "PreToolUse", matcher: "*", label: `${prefix}pre` },
  { event: "PostToolUse", matcher: "*", label: `${prefix}post` },
  { event: "PostToolUseFailure", matcher: "*", label: `${prefix}fail` },
];
const ALLOW_EDITS = { project: { permissions: { allow: ["Write", "Edit", "Bash(echo:*)", "Bash(printf:*)", "Bash(exit:*)", "Bash(ls:*)"] } } };
const bash = (command, extra = {}) => ({ name: "Bash", input: { command, ...extra } });
const respond = (stdout, exit = 0, stderr) => ({ stdout, exit, ...(stderr ? { stderr } : {}) });

export const CASES = [
  {
    id: "tools-schema",
    about: "the tools array: every built-in's input schema",
    tools: true,
    env: { ENABLE_TOOL_SEARCH: "false" },
    steps: [{ name: "Read", input: { file_path: "{{cwd}}/a.txt" } }],
    files: { "a.txt": A },
  },
  {
    id: "read-results",
    about: "Read: a file, a line range, an empty file, a missing file, a directory",
    files: { "a.txt": A, "empty.txt": "" },
    hooks: TOOL_EVENTS(),
    steps: [
      { name: "Read", input: { file_path: "{{cwd}}/a.txt" } },
      { name: "Read", input: { file_path: "{{cwd}}/a.txt", offset: 2, limit: 1 } },
      { name: "Read", input: { file_path: "{{cwd}}/empty.txt" } },
      { name: "Read", input: { file_path: "{{cwd}}/missing.txt" } },
      { name: "Read", input: { file_path: "{{cwd}}" } },
    ],
  },
  {
    id: "write-edit-results",
    about: "Write and Edit: create, trailing whitespace, overwrite after Read, edit, missing old_string, replace_all, ambiguous",
    files: { "a.txt": A, "b.txt": "one\ntwo\nthree\ntwo\n" },
    settings: ALLOW_EDITS,
    hooks: TOOL_EVENTS(),
    steps: [
      { name: "Write", input: { file_path: "{{cwd}}/new.txt", content: "fresh\n" } },
      { name: "Write", input: { file_path: "{{cwd}}/ws.txt", content: "trailing  \ntab\t\n" } },
      { name: "Read", input: { file_path: "{{cwd}}/a.txt" } },
      { name: "Write", input: { file_path: "{{cwd}}/a.txt", content: "replaced\n" } },
      { name: "Read", input: { file_path: "{{cwd}}/b.txt" } },
      { name: "Edit", input: { file_path: "{{cwd}}/b.txt", old_string: "two", new_string: "TWO" } },
      { name: "Edit", input: { file_path: "{{cwd}}/b.txt", old_string: "one", new_string: "ONE" } },
      { name: "Edit", input: { file_path: "{{cwd}}/b.txt", old_string: "absent", new_string: "x" } },
      { name: "Edit", input: { file_path: "{{cwd}}/b.txt", old_string: "e", new_string: "E", replace_all: true } },
    ],
  },
  {
    id: "bash-results",
    about: "Bash: stdout, stderr interleaved, a failing exit code, no output",
    settings: ALLOW_EDITS,
    hooks: TOOL_EVENTS(),
    steps: [bash("echo hi"), bash("echo out; echo err >&2; echo out2"), bash("exit 3"), bash("printf ''")],
  },
  {
    id: "bash-inputs",
    about: "Bash inputs Claude Code accepts: a timeout above 600000, a fractional timeout, dangerouslyDisableSandbox",
    settings: ALLOW_EDITS,
    hooks: TOOL_EVENTS(),
    steps: [bash("echo slow", { timeout: 700000 }), bash("echo frac", { timeout: 1500.5 }), bash("echo nosandbox", { dangerouslyDisableSandbox: true })],
  },
  {
    id: "write-unread",
    about: "Write over an existing file that was never read",
    files: { "a.txt": A },
    settings: ALLOW_EDITS,
    hooks: TOOL_EVENTS(),
    steps: [{ name: "Write", input: { file_path: "{{cwd}}/a.txt", content: "replaced\n" } }],
  },
  {
    id: "tools-deferred",
    about: "the tools array with tool search on (Claude Code's default): ToolSearch and what is deferred",
    tools: true,
    steps: [{ name: "Read", input: { file_path: "{{cwd}}/a.txt" } }],
    files: { "a.txt": A },
  },
  {
    id: "glob-grep-results",
    about: "Glob and Grep (Claude Code 2.1.328 has neither: it searches through Bash)",
    files: { "a.txt": A, "sub/c.txt": "hello there\n" },
    hooks: TOOL_EVENTS(),
    steps: [
      { name: "Glob", input: { pattern: "**/*.txt" } },
      { name: "Grep", input: { pattern: "hello" } },
      { name: "Grep", input: { pattern: "hello", output_mode: "content", "-o": true } },
    ],
  },
  {
    id: "hook-input-events",
    about: "the stdin and environment of a hook on every event Claude Code fires in a -p session",
    files: { "a.txt": A },
    settings: ALLOW_EDITS,
    hooks: [
      ...TOOL_EVENTS(),
      ...["PostToolBatch", "SessionStart", "UserPromptSubmit", "Stop", "SessionEnd", "PermissionRequest", "Notification", "PreCompact", "SubagentStop"].map((event) => ({ event, matcher: "*", label: event })),
    ],
    steps: [{ name: "Read", input: { file_path: "{{cwd}}/a.txt" } }, bash("echo hi"), bash("touch asked.txt")],
  },
];

/** PreToolUse / PostToolUse output fields and exit codes: one case per answer, a Bash call and a Read after it. */
const OUTPUTS = [
  ["pre-exit0-text", "PreToolUse", respond("plain stdout from a hook")],
  ["pre-exit2", "PreToolUse", respond("", 2, "blocked by the test hook")],
  ["pre-exit1", "PreToolUse", respond("", 1, "hook failed, not blocking")],
  ["pre-deny", "PreToolUse", respond({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "denied by the test hook" } })],
  ["pre-deny-context", "PreToolUse", respond({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "denied by the test hook", additionalContext: "context beside a deny" } })],
  ["pre-ask", "PreToolUse", respond({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "the test hook asks" } })],
  ["pre-allow", "PreToolUse", respond({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", permissionDecisionReason: "allowed by the test hook" } })],
  ["pre-updated-input", "PreToolUse", respond({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", updatedInput: { command: "echo rewritten" } } })],
  ["pre-updated-input-illtyped", "PreToolUse", respond({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", updatedInput: { command: 42 } } })],
  ["pre-context", "PreToolUse", respond({ hookSpecificOutput: { hookEventName: "PreToolUse", additionalContext: "context from the pre hook" } })],
  ["pre-continue-false", "PreToolUse", respond({ continue: false, stopReason: "the test hook stops the run" })],
  ["pre-system-message", "PreToolUse", respond({ systemMessage: "a system message from the hook", suppressOutput: true })],
  ["pre-legacy-block", "PreToolUse", respond({ decision: "block", reason: "legacy block" })],
  ["post-block", "PostToolUse", respond({ decision: "block", reason: "blocked after the call" })],
  ["post-context", "PostToolUse", respond({ hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "context from the post hook" } })],
  ["post-exit2", "PostToolUse", respond("", 2, "post hook exit 2")],
  ["post-exit1", "PostToolUse", respond("", 1, "post hook exit 1")],
  ["post-continue-false", "PostToolUse", respond({ continue: false, stopReason: "the post hook stops the run" })],
  ["post-updated-output-object", "PostToolUse", respond({ hookSpecificOutput: { hookEventName: "PostToolUse", updatedToolOutput: { stdout: "replaced output", stderr: "", interrupted: false, isImage: false } } })],
  ["post-updated-output-string", "PostToolUse", respond({ hookSpecificOutput: { hookEventName: "PostToolUse", updatedToolOutput: "replaced as a string" } })],
  ["post-updated-mcp-output", "PostToolUse", respond({ hookSpecificOutput: { hookEventName: "PostToolUse", updatedMCPToolOutput: [{ type: "text", text: "legacy mcp replacement" }] } })],
  ["post-suppress-output", "PostToolUse", respond({ suppressOutput: true, systemMessage: "post system message" })],
];
for (const [id, event, r] of OUTPUTS) {
  CASES.push({
    id: `hook-out-${id}`,
    about: `${event} hook answers ${JSON.stringify(r)}`,
    files: { "a.txt": A },
    settings: { project: { permissions: { allow: ["Bash(echo:*)", "Bash(touch:*)"] } } },
    hooks: [{ event, matcher: "Bash", label: "answer", respond: r }, { event: "PostToolUse", matcher: "*", label: "post" }],
    steps: [bash("echo original"), { name: "Read", input: { file_path: "{{cwd}}/a.txt" } }],
  });
}

const ECHO_MCP = { echo: { command: "{{node}}", args: ["{{repo}}/scripts/conformance/oracle.mjs", "--mcp", "echo", "/dev/null"] } };

CASES.push(
  {
    id: "matchers",
    about: "matcher forms: exact, A|B, regex, *, empty, none, lower case, mcp__server__.*, mcp__server__tool, bare server",
    files: { "a.txt": A },
    mcp: ECHO_MCP,
    env: { ENABLE_TOOL_SEARCH: "false" },
    settings: { project: { enableAllProjectMcpServers: true, permissions: { allow: ["Write", "Edit", "Bash(echo:*)", "mcp__echo"] } } },
    hooks: [
      ["exact", "Bash"], ["alt", "Read|Write"], ["regex", "^Ed.*"], ["star", "*"], ["empty", ""], ["none", undefined], ["lower", "bash"],
      ["mcp-all", "mcp__echo__.*"], ["mcp-one", "mcp__echo__ping"], ["mcp-server", "mcp__echo"], ["partial", "Rea"],
    ].map(([label, matcher]) => ({ event: "PreToolUse", matcher, label: `m-${label}` })),
    steps: [
      bash("echo hi"),
      { name: "Read", input: { file_path: "{{cwd}}/a.txt" } },
      { name: "Write", input: { file_path: "{{cwd}}/b.txt", content: "b\n" } },
      { name: "Edit", input: { file_path: "{{cwd}}/b.txt", old_string: "b", new_string: "c" } },
      { name: "mcp__echo__ping", input: { q: "x" } },
      { name: "mcp__echo__shout", input: { q: "y" } },
    ],
  },
  {
    id: "settings-layers",
    about: "settings layers: a user deny, a project allow, a local ask; hooks in user, project and local settings",
    settings: {
      user: { permissions: { deny: ["Bash(rm:*)"] } },
      project: { permissions: { allow: ["Bash(echo:*)", "Bash(touch:*)", "Bash(rm:*)"] } },
      local: { permissions: { ask: ["Bash(touch:*)"] } },
    },
    hooks: [
      { event: "PreToolUse", matcher: "Bash", label: "user-pre", where: "user" },
      { event: "PreToolUse", matcher: "Bash", label: "project-pre", where: "project" },
      { event: "PreToolUse", matcher: "Bash", label: "local-pre", where: "local" },
    ],
    steps: [bash("echo hi"), bash("touch made.txt"), bash("rm -f nothing.txt")],
  },
  {
    id: "plugin-hookify",
    about: "a real plugin (anthropics/claude-plugins-official hookify): its rule files block rm -rf and warn on .env writes",
    plugins: ["hookify"],
    files: {
      ".claude/hookify.dangerous-rm.local.md": "---\nname: block-dangerous-rm\nenabled: true\nevent: bash\npattern: rm\\s+-rf\naction: block\n---\n\nDangerous rm command detected!\n",
      ".claude/hookify.sensitive.local.md": "---\nname: warn-sensitive-files\nenabled: true\nevent: file\naction: warn\nconditions:\n  - field: file_path\n    operator: regex_match\n    pattern: \\.env$\n---\n\nSensitive file detected\n",
    },
    settings: { project: { permissions: { allow: ["Write", "Bash(echo:*)", "Bash(rm:*)"] } } },
    hooks: [{ event: "PreToolUse", matcher: "*", label: "pre" }],
    steps: [bash("rm -rf build"), { name: "Write", input: { file_path: "{{cwd}}/.env", content: "A=1\n" } }, bash("echo fine")],
  },
  {
    id: "plugin-explanatory",
    about: "a real plugin (anthropics/claude-plugins-official explanatory-output-style): a SessionStart hook that adds context",
    plugins: ["explanatory-output-style"],
    hooks: [{ event: "SessionStart", label: "session-start" }],
    steps: [bash("echo hi")],
    settings: { project: { permissions: { allow: ["Bash(echo:*)"] } } },
  },
  {
    id: "scenario",
    about: "issue 15 'done when': a plugin with a PostToolUse content scanner, a formatter hook and a SessionStart hook, plus a user-level hook",
    plugins: ["scenario-guard"],
    files: { "config.txt": "aws_key = AKIAIOSFODNN7EXAMPLE\n", "notes.txt": "keep\n" },
    settings: { project: { permissions: { allow: ["Write", "Edit"] } } },
    hooks: [{ event: "PreToolUse", matcher: "*", label: "user-logger", where: "user" }],
    steps: [
      { name: "Write", input: { file_path: "{{cwd}}/src.js", content: "const a = 'one';\nconst b = 'two';\n" } },
      { name: "Edit", input: { file_path: "{{cwd}}/src.js", old_string: 'const b = "two";', new_string: 'const b = "TWO";' } },
      { name: "Read", input: { file_path: "{{cwd}}/config.txt" } },
      { name: "Read", input: { file_path: "{{cwd}}/notes.txt" } },
    ],
  },
);

CASES.push(
  {
    id: "plugin-mcp",
    about: "a plugin with its own MCP server (the official server-memory, offline): tool names, hook input and tool_response of MCP calls",
    plugins: ["memkit"],
    env: { ENABLE_TOOL_SEARCH: "false" },
    settings: { project: { permissions: { allow: ["mcp__plugin_memkit_memory"] } } },
    hooks: [
      { event: "PreToolUse", matcher: "mcp__plugin_memkit_memory__.*", label: "pre" },
      { event: "PostToolUse", matcher: "mcp__.*", label: "post" },
      { event: "PostToolUseFailure", matcher: "*", label: "fail" },
    ],
    steps: [
      { name: "mcp__plugin_memkit_memory__create_entities", input: { entities: [{ name: "toolhost", entityType: "project", observations: ["a plugin host"] }] } },
      { name: "mcp__plugin_memkit_memory__read_graph", input: {} },
      { name: "mcp__plugin_memkit_memory__open_nodes", input: { names: 42 } },
    ],
  },
  {
    id: "plugin-lsp",
    about: "a real LSP plugin (anthropics/claude-plugins-official typescript-lsp, typescript-language-server): the LSP tool (ENABLE_LSP_TOOL) and what the model sees after writing a TypeScript file with a type error",
    plugins: ["typescript-lsp"],
    env: { ENABLE_LSP_TOOL: "1", ENABLE_TOOL_SEARCH: "false" },
    tools: ["LSP"],
    files: { "tsconfig.json": '{ "compilerOptions": { "strict": true } }\n' },
    settings: { project: { permissions: { allow: ["Write", "Edit", "Bash(sleep:*)"] } } },
    hooks: [{ event: "PostToolUse", matcher: "*", label: "post" }],
    steps: [
      { name: "Write", input: { file_path: "{{cwd}}/bad.ts", content: "export const n: number = 'not a number';\n" } },
      // Claude Code answers "server is starting" to an LSP call in the server's first seconds (toolhost waits for it):
      // give it time, in the recording only.
      { ...bash("sleep 4"), oracleOnly: true },
      { name: "LSP", input: { operation: "hover", filePath: "{{cwd}}/bad.ts", line: 1, character: 14 } },
      { name: "LSP", input: { operation: "documentSymbol", filePath: "{{cwd}}/bad.ts", line: 1, character: 1 } },
      { name: "Edit", input: { file_path: "{{cwd}}/bad.ts", old_string: "export const n", new_string: "export const m" } },
      { name: "Read", input: { file_path: "{{cwd}}/bad.ts" } },
    ],
  },
);

/** PermissionRequest hooks: an asked call (no rule allows `touch`), answered by the hook instead of the user. */
for (const [id, r] of [
  ["allow", respond({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow" } } })],
  ["deny", respond({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "deny", message: "the permission hook says no" } } })],
  ["deny-interrupt", respond({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "deny", message: "stop everything", interrupt: true } } })],
  ["allow-updated-input", respond({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow", updatedInput: { command: "touch rewritten.txt" } } } })],
]) {
  CASES.push({
    id: `permission-request-${id}`,
    about: `PermissionRequest hook answers ${JSON.stringify(r.stdout.hookSpecificOutput.decision)}`,
    hooks: [{ event: "PermissionRequest", matcher: "Bash", label: "answer", respond: r }, { event: "PostToolUse", matcher: "*", label: "post" }],
    steps: [bash("touch asked.txt"), { name: "Read", input: { file_path: "{{cwd}}/a.txt" } }],
    files: { "a.txt": A },
  });
}

CASES.push({
  id: "settings-cli-layer",
  about: "the --settings layer (a file): its deny beats a project allow, its hook runs beside the project's",
  cliSettings: { permissions: { deny: ["Bash(rm:*)"] }, hooks: "cli-pre" },
  settings: { project: { permissions: { allow: ["Bash(echo:*)", "Bash(rm:*)"] } } },
  hooks: [{ event: "PreToolUse", matcher: "Bash", label: "project-pre" }],
  steps: [bash("echo hi"), bash("rm -f nothing.txt")],
});

/** A PreToolUse hook's "ask" where nobody can be asked: dontAsk, bypassPermissions, and -p with no permission prompt tool. */
const HOOK_ASK = respond({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "the test hook asks" } });
for (const [id, extra, what] of [
  ["dontask", { mode: "dontAsk" }, "in dontAsk mode"],
  ["bypass", { mode: "bypassPermissions" }, "in bypassPermissions mode"],
  ["noprompt", { noPromptTool: true }, "in -p with no permission prompt tool (no one to ask)"],
]) {
  CASES.push({
    id: `hook-out-pre-ask-${id}`,
    about: `PreToolUse hook answers ask ${what}`,
    files: { "a.txt": A },
    settings: { project: { permissions: { allow: ["Bash(echo:*)"] } } },
    hooks: [{ event: "PreToolUse", matcher: "Bash", label: "answer", respond: HOOK_ASK }, { event: "PostToolUse", matcher: "*", label: "post" }],
    steps: [bash("echo original"), { name: "Read", input: { file_path: "{{cwd}}/a.txt" } }],
    ...extra,
  });
}

CASES.push(
  {
    id: "hook-input-effort",
    about: "CLAUDE_CODE_EFFORT_LEVEL=low (and effortLevel high in user settings): hook input `effort` and env CLAUDE_EFFORT on every event",
    env: { CLAUDE_CODE_EFFORT_LEVEL: "low" },
    settings: { user: { effortLevel: "high" }, project: { permissions: { allow: ["Bash(echo:*)"] } } },
    hooks: [
      ...TOOL_EVENTS(),
      ...["SessionStart", "UserPromptSubmit", "PostToolBatch", "Stop", "SessionEnd"].map((event) => ({ event, matcher: "*", label: event })),
    ],
    steps: [bash("echo hi")],
  },
  {
    id: "session-env-file",
    about: "SessionStart hooks get CLAUDE_ENV_FILE (one per hook); what a hook writes there reaches later Bash commands",
    files: { "env-hook.sh": "echo 'export FROM_ENV_FILE=yes' >> \"$CLAUDE_ENV_FILE\"\nexec sh {{root}}/bin/hook-recorder.sh {{root}}/hooks env-writer\n" },
    settings: { project: { permissions: { allow: ["Bash"] } } },
    hooks: [
      { event: "SessionStart", label: "env-writer", command: "sh {{cwd}}/env-hook.sh" },
      { event: "SessionStart", label: "second" },
      { event: "PreToolUse", matcher: "Bash", label: "pre" },
    ],
    steps: [bash('echo "env=$FROM_ENV_FILE"')],
  },
  {
    id: "plugin-data-config-dir",
    about: "CLAUDE_PLUGIN_DATA of a --plugin-dir plugin's hooks when CLAUDE_CONFIG_DIR is set",
    plugins: ["scenario-guard"],
    env: { CLAUDE_CONFIG_DIR: "{{home}}/cfg" },
    homeFiles: { "cfg/.claude.json": JSON.stringify({ hasCompletedOnboarding: true, projects: { "{{cwd}}": { hasTrustDialogAccepted: true, allowedTools: [] } } }) },
    files: { "notes.txt": "keep\n" },
    steps: [{ name: "Read", input: { file_path: "{{cwd}}/notes.txt" } }],
  },
  {
    id: "settings-disable-all-hooks",
    about: "disableAllHooks: true in project settings: no hook of any layer or plugin runs",
    plugins: ["scenario-guard"],
    files: { "notes.txt": "keep\n" },
    settings: { project: { disableAllHooks: true, permissions: { allow: ["Bash(echo:*)"] } } },
    hooks: [
      { event: "PreToolUse", matcher: "*", label: "user-pre", where: "user" },
      { event: "PreToolUse", matcher: "*", label: "project-pre" },
      { event: "PreToolUse", matcher: "*", label: "local-pre", where: "local" },
      { event: "SessionStart", label: "session-start" },
    ],
    steps: [bash("echo hi"), { name: "Read", input: { file_path: "{{cwd}}/notes.txt" } }],
  },
  {
    id: "settings-disable-all-hooks-false",
    about: "disableAllHooks: true in user settings, false in local settings: which wins",
    settings: { user: { disableAllHooks: true }, local: { disableAllHooks: false }, project: { permissions: { allow: ["Bash(echo:*)"] } } },
    hooks: [
      { event: "PreToolUse", matcher: "*", label: "user-pre", where: "user" },
      { event: "PreToolUse", matcher: "*", label: "project-pre" },
    ],
    steps: [bash("echo hi")],
  },
  {
    id: "settings-managed-hooks-only-unmanaged",
    about: "allowManagedHooksOnly: true in project settings (not managed): hooks still run",
    settings: { project: { allowManagedHooksOnly: true, permissions: { allow: ["Bash(echo:*)"] } } },
    hooks: [
      { event: "PreToolUse", matcher: "*", label: "user-pre", where: "user" },
      { event: "PreToolUse", matcher: "*", label: "project-pre" },
    ],
    steps: [bash("echo hi")],
  },
  {
    id: "stop-block-repeat",
    about: "a Stop hook that always blocks: how often Claude Code goes on, and stop_hook_active",
    settings: { project: { permissions: { allow: ["Bash(echo:*)"] } } },
    hooks: [{ event: "Stop", label: "stop", respond: respond({ decision: "block", reason: "keep going" }) }],
    maxTurns: 40,
    steps: [bash("echo hi")],
  },
  {
    id: "permission-request-suggestions",
    about: "PermissionRequest `permission_suggestions` for asked calls: a file-writing and another Bash command, Write, Read outside the workspace",
    homeFiles: { "outside.txt": "out\n" },
    hooks: [{ event: "PermissionRequest", matcher: "*", label: "pr" }],
    steps: [bash("touch asked.txt"), bash("node -e 1"), { name: "Write", input: { file_path: "{{cwd}}/w.txt", content: "w\n" } }, { name: "Read", input: { file_path: "{{home}}/outside.txt" } }],
  },
);

/** Write/Edit of lines ending in spaces or tabs, per file type: which ones Claude Code strips, and markdown's two-space line breaks. */
const WS = "one  \ntwo\t\n  three  \nfour\n";
const WS_FILES = ["ws.txt", "ws.md", "ws.mdx", "ws.markdown", "ws.js", "ws.py", "ws.json", "Makefile", "ws.TXT", "ws.MD", "ws.Mdx"];
CASES.push({
  id: "write-edit-whitespace",
  about: `Write and Edit with trailing whitespace (${WS_FILES.join(", ")}): what Claude Code strips, before hooks see it`,
  files: { "e.txt": "keep\n", "e.md": "keep\n", "e.js": "keep\n" },
  settings: ALLOW_EDITS,
  hooks: [{ event: "PreToolUse", matcher: "*", label: "pre" }, { event: "PostToolUse", matcher: "*", label: "post" }],
  steps: [
    ...WS_FILES.map((f) => ({ name: "Write", input: { file_path: `{{cwd}}/${f}`, content: WS } })),
    ...["e.txt", "e.md", "e.js"].flatMap((f) => [
      { name: "Read", input: { file_path: `{{cwd}}/${f}` } },
      { name: "Edit", input: { file_path: `{{cwd}}/${f}`, old_string: "keep", new_string: "kept  \nmore\t" } },
    ]),
  ],
});

/** A hook's `shell` field: "powershell" on Linux with no pwsh installed, beside a hook without the field. */
CASES.push({
  id: "hook-shell-powershell",
  about: 'a hook with "shell": "powershell" where no pwsh is installed (Linux), beside a plain hook',
  settings: { project: { permissions: { allow: ["Bash(echo:*)"] } } },
  hooks: [
    { event: "PreToolUse", matcher: "Bash", label: "pwsh-pre", shell: "powershell" },
    { event: "PreToolUse", matcher: "Bash", label: "plain-pre" },
    { event: "PostToolUse", matcher: "Bash", label: "pwsh-post", shell: "powershell" },
    { event: "SessionStart", label: "pwsh-session", shell: "powershell" },
  ],
  steps: [bash("echo hi")],
});

/**
 * Managed settings (/etc/claude-code/managed-settings.json, written by the recorder for the run; `managedSettingsDir`
 * in the replay): managed rules beside project ones, allowManagedHooksOnly with hooks in every layer and a plugin,
 * allowManagedPermissionRulesOnly.
 */
CASES.push(
  {
    id: "settings-managed-rules",
    about: "managed settings: a managed deny and ask beat a project allow; a managed allow; hooks of managed and project settings both run",
    settings: {
      managed: { permissions: { deny: ["Bash(rm:*)"], ask: ["Bash(touch:*)"], allow: ["Bash(mkdir:*)"] } },
      project: { permissions: { allow: ["Bash(echo:*)", "Bash(rm:*)", "Bash(touch:*)"] } },
    },
    hooks: [
      { event: "PreToolUse", matcher: "Bash", label: "managed-pre", where: "managed" },
      { event: "PreToolUse", matcher: "Bash", label: "project-pre" },
    ],
    steps: [bash("echo hi"), bash("rm -f nothing.txt"), bash("touch made.txt"), bash("mkdir -p made")],
  },
  {
    id: "settings-managed-hooks-only",
    about: "allowManagedHooksOnly: true in managed settings: only managed hooks run (not user, project, local or plugin hooks)",
    plugins: ["scenario-guard"],
    files: { "notes.txt": "keep\n" },
    settings: { managed: { allowManagedHooksOnly: true }, project: { permissions: { allow: ["Bash(echo:*)"] } } },
    hooks: [
      { event: "PreToolUse", matcher: "*", label: "managed-pre", where: "managed" },
      { event: "PreToolUse", matcher: "*", label: "user-pre", where: "user" },
      { event: "PreToolUse", matcher: "*", label: "project-pre" },
      { event: "PreToolUse", matcher: "*", label: "local-pre", where: "local" },
    ],
    steps: [bash("echo hi"), { name: "Read", input: { file_path: "{{cwd}}/notes.txt" } }],
  },
  {
    id: "settings-managed-rules-only",
    about: "allowManagedPermissionRulesOnly: true in managed settings: project, local and user rules no longer apply",
    settings: {
      managed: { allowManagedPermissionRulesOnly: true, permissions: { allow: ["Bash(touch:*)"] } },
      project: { permissions: { allow: ["Bash(mkdir:*)"] } },
      local: { permissions: { deny: ["Bash(touch:*)"] } },
      user: { permissions: { allow: ["Bash(cp:*)"] } },
    },
    files: { "a.txt": A },
    steps: [bash("touch made.txt"), bash("mkdir -p made"), bash("cp a.txt b.txt")],
  },
);

/**
 * Edit and Write on a file not read this session, and Edit after the file changed on disk since its Read (Bash
 * copies another file over it): whether Claude Code refuses before the hooks (no PreToolUse / PostToolUseFailure) or in the call.
 */
CASES.push({
  id: "edit-unread-stale",
  about: "Edit of a file never read, Write over a file never read, Edit of a file changed on disk since its Read",
  files: { "a.txt": A, "b.txt": A, "c.txt": A, "d.txt": "alpha\nchanged on disk\n" },
  settings: { project: { permissions: { allow: [...ALLOW_EDITS.project.permissions.allow, "Bash(cp:*)"] } } },
  hooks: [{ event: "PreToolUse", matcher: "Edit|Write", label: "pre" }, { event: "PostToolUseFailure", matcher: "Edit|Write", label: "fail" }, { event: "PostToolUse", matcher: "Edit|Write", label: "post" }],
  steps: [
    { name: "Edit", input: { file_path: "{{cwd}}/a.txt", old_string: "alpha", new_string: "ALPHA" } },
    { name: "Write", input: { file_path: "{{cwd}}/b.txt", content: "replaced\n" } },
    { name: "Read", input: { file_path: "{{cwd}}/c.txt" } },
    bash("cp d.txt c.txt"),
    { name: "Edit", input: { file_path: "{{cwd}}/c.txt", old_string: "alpha", new_string: "ALPHA" } },
  ],
});
