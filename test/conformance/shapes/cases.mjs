// The recorded cases: files in the project, the scripted model's tool calls ($P = the project directory), and what
// the recording hook prints per event/tool (`when`: a substring of the tool input).
const A = "alpha\nbeta hello\ngamma\n";
export const CASES = [
  {
    name: "tools",
    keepTools: true,
    files: { "a.txt": A },
    script: [{ name: "Read", input: { file_path: "$P/a.txt" } }],
  },
  {
    name: "read",
    files: { "a.txt": A, "empty.txt": "", "img.png": Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64").toString("latin1") },
    script: [
      { name: "Read", input: { file_path: "$P/a.txt" } },
      { name: "Read", input: { file_path: "$P/a.txt", offset: 2, limit: 1 } },
      { name: "Read", input: { file_path: "$P/empty.txt" } },
      { name: "Read", input: { file_path: "$P/missing.txt" } },
      { name: "Read", input: { file_path: "$P" } },
      { name: "Read", input: { file_path: "$P/img.png" } },
      [{ name: "Read", input: { file_path: "$P/a.txt", limit: 1 } }, { name: "Glob", input: { pattern: "*.png" } }],
    ],
  },
  {
    name: "write-edit",
    files: { "a.txt": A, "b.txt": "one\ntwo\nthree\n" },
    readBack: ["a.txt", "b.txt", "new.txt"],
    script: [
      { name: "Write", input: { file_path: "$P/new.txt", content: "fresh\n" } },
      { name: "Read", input: { file_path: "$P/a.txt" } },
      { name: "Write", input: { file_path: "$P/a.txt", content: "replaced\n" } },
      { name: "Read", input: { file_path: "$P/b.txt" } },
      { name: "Edit", input: { file_path: "$P/b.txt", old_string: "two", new_string: "TWO" } },
      { name: "Edit", input: { file_path: "$P/b.txt", old_string: "absent", new_string: "x" } },
      { name: "Edit", input: { file_path: "$P/b.txt", old_string: "e", new_string: "E", replace_all: true } },
    ],
  },
  {
    name: "search",
    files: { "a.txt": A, "sub/c.txt": "hello there\nno\nhello again\n", "d.md": "nothing\n" },
    script: [
      { name: "Glob", input: { pattern: "**/*.txt" } },
      { name: "Glob", input: { pattern: "*.none" } },
      { name: "Grep", input: { pattern: "hello" } },
      { name: "Grep", input: { pattern: "hello", output_mode: "content", "-n": true } },
      { name: "Grep", input: { pattern: "hello", output_mode: "count" } },
      { name: "Grep", input: { pattern: "zzz", output_mode: "content" } },
    ],
  },
  {
    name: "bash",
    script: [
      { name: "Bash", input: { command: "echo out1; echo err1 >&2; echo out2", description: "mixed" } },
      { name: "Bash", input: { command: "echo bad; exit 3" } },
      { name: "Bash", input: { command: "echo o1; echo e1 >&2; echo o2; echo e2 >&2" } },
      { name: "Bash", input: { command: "sleep 30", run_in_background: true } },
      { name: "ToolSearch", input: { query: "select:TaskStop", max_results: 5 } },
      { name: "TaskStop", input: { task_id: "$BG" } },
    ],
  },
];
const NB = JSON.stringify({ cells: [{ cell_type: "code", id: "c1", metadata: {}, source: ["print(1)\n"], outputs: [], execution_count: null }], metadata: {}, nbformat: 4, nbformat_minor: 5 });
const post = (tool, when, hso, extra = {}) => ({ event: "PostToolUse", tool, when, stdout: { ...extra, hookSpecificOutput: { hookEventName: "PostToolUse", ...hso } } });
const pre = (tool, when, hso, extra = {}) => ({ event: "PreToolUse", tool, when, stdout: { ...extra, hookSpecificOutput: { hookEventName: "PreToolUse", ...hso } } });
CASES.push(
  {
    name: "notebook",
    files: { "n.ipynb": NB },
    readBack: ["n.ipynb"],
    script: [
      { name: "ToolSearch", input: { query: "select:NotebookEdit,WebFetch", max_results: 5 } },
      { name: "Read", input: { file_path: "$P/n.ipynb" } },
      { name: "NotebookEdit", input: { notebook_path: "$P/n.ipynb", cell_id: "c1", new_source: "print(2)" } },
    ],
  },
  {
    name: "updated-output",
    files: { "a.txt": A, "b.txt": A, "c.txt": A, "d.txt": A },
    mcp: (root) => ({ rec: { command: "node", args: [root + "/mcp.mjs"] } }),
    permissions: { allow: ["mcp__rec"] },
    outputs: [
      post("Read", "a.txt", { updatedToolOutput: { type: "text", file: { filePath: "$P/a.txt", content: "OBJECT-REPLACED", numLines: 1, startLine: 1, totalLines: 1 } } }),
      post("Read", "b.txt", { updatedToolOutput: "STRING-REPLACED" }),
      post("Read", "c.txt", { updatedMCPToolOutput: "LEGACY-REPLACED" }),
      post("Read", "d.txt", { updatedToolOutput: { foo: "WRONG-SHAPE" } }),
      post("Bash", "echo", { updatedToolOutput: { stdout: "BASH-REPLACED", stderr: "", interrupted: false, isImage: false } }),
      post("mcp__rec__echo", "one", { updatedToolOutput: "MCP-STRING" }),
      post("mcp__rec__echo", "two", { updatedMCPToolOutput: [{ type: "text", text: "MCP-LEGACY" }] }),
      post("mcp__rec__echo", "three", { updatedToolOutput: { content: [{ type: "text", text: "MCP-OBJECT" }] } }),
    ],
    settings: { enableAllProjectMcpServers: true },
    script: [
      { name: "Read", input: { file_path: "$P/a.txt" } },
      { name: "Read", input: { file_path: "$P/b.txt" } },
      { name: "Read", input: { file_path: "$P/c.txt" } },
      { name: "Read", input: { file_path: "$P/d.txt" } },
      { name: "Bash", input: { command: "echo original" } },
      { name: "ToolSearch", input: { query: "select:mcp__rec__echo", max_results: 5 } },
      { name: "mcp__rec__echo", input: { text: "one" } },
      { name: "mcp__rec__echo", input: { text: "two" } },
      { name: "mcp__rec__echo", input: { text: "three" } },
    ],
  },
  {
    name: "formatter",
    readBack: ["f.txt"],
    outputs: [{ event: "PostToolUse", tool: "Write", run: "sed -i 's/  */ /g' f.txt" }, { event: "PostToolUse", tool: "Edit", run: "sed -i 's/B/b/' f.txt" }],
    script: [
      { name: "Write", input: { file_path: "$P/f.txt", content: "a  b\nc   d\n" } },
      { name: "Edit", input: { file_path: "$P/f.txt", old_string: "a b", new_string: "A B" } },
      { name: "Edit", input: { file_path: "$P/f.txt", old_string: "c d", new_string: "C D" } },
    ],
  },
  {
    name: "rewrite",
    readBack: ["ran42", "ranbogus"],
    outputs: [
      pre("Bash", "first", { permissionDecision: "allow", updatedInput: { command: 42 } }),
      pre("Bash", "second", { permissionDecision: "allow", updatedInput: { command: "touch ranbogus", bogus: true } }),
      pre("Bash", "third", { permissionDecision: "allow", updatedInput: { command: "echo third-rewritten", timeout: "5000" } }),
    ],
    script: [
      { name: "Bash", input: { command: "touch ran42 # first" } },
      { name: "Bash", input: { command: "echo second" } },
      { name: "Bash", input: { command: "echo third" } },
    ],
  },
  {
    name: "deny-ask",
    mode: "default",
    permissions: { allow: ["Bash(echo *)"] },
    outputs: [
      pre("Bash", "denyme", { permissionDecision: "deny", permissionDecisionReason: "DENY-REASON", additionalContext: "DENY-CONTEXT" }),
      pre("Bash", "askme", { permissionDecision: "ask", permissionDecisionReason: "ASK-REASON", additionalContext: "ASK-CONTEXT" }),
      pre("Bash", "allowme", { permissionDecision: "allow", permissionDecisionReason: "ALLOW-REASON", additionalContext: "ALLOW-CONTEXT" }),
    ],
    script: [
      { name: "Bash", input: { command: "echo denyme" } },
      { name: "Bash", input: { command: "echo askme" } },
      { name: "Bash", input: { command: "echo allowme" } },
      { name: "Bash", input: { command: "touch needs-permission" } },
      { name: "Write", input: { file_path: "$P/w.txt", content: "x" } },
    ],
  },
  {
    name: "inputs",
    files: { "a.txt": A },
    script: [
      { name: "Bash", input: { command: "echo sandbox", dangerouslyDisableSandbox: true } },
      { name: "Bash", input: { command: "echo big", timeout: 700000 } },
      { name: "Bash", input: { command: "echo frac", timeout: 1500.5 } },
      { name: "Bash", input: { command: "echo bgbig", timeout: 7300000, run_in_background: true } },
      { name: "Read", input: { file_path: "$P/a.txt", allow_large: true } },
      { name: "Read", input: { file_path: "$P/a.txt", pages: "1" } },
      { name: "Grep", input: { pattern: "hel+o", output_mode: "content", "-o": true } },
      { name: "Grep", input: { pattern: "hello", output_mode: "content", "-C": 1, head_limit: 0, offset: 0, type: "txt" } },
      { name: "Read", input: { file_path: "$P/a.txt", offset: "2" } },
    ],
  },
  {
    name: "plugin-env",
    plugin: "recplug",
    script: [{ name: "Bash", input: { command: "echo plugin" } }],
  },
  {
    name: "mcp-source",
    mcp: (root) => ({ rec: { command: "node", args: [root + "/mcp.mjs"] } }),
    settings: { enableAllProjectMcpServers: true },
    script: [
      { name: "ToolSearch", input: { query: "select:mcp__rec__echo", max_results: 5 } },
      { name: "mcp__rec__echo", input: { text: "hi" } },
    ],
  },
  {
    name: "shell-field",
    settingsHooks: (cmd) => ({ PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", shell: "bash", command: "[[ -n $BASH_VERSION ]] && " + cmd("PreToolUse") + " bash" }, { type: "command", shell: "bash", command: cmd("PreToolUse") + " bash-field-plain $0" }, { type: "command", shell: "powershell", command: cmd("PreToolUse") + " powershell-field" }, { type: "command", command: "[ -n \"$BASH_VERSION\" ] && " + cmd("PreToolUse") + " sh-has-bash || " + cmd("PreToolUse") + " sh-no-bash" }] }] }),
    script: [{ name: "Bash", input: { command: "echo shell" } }],
  },
);
