/** The one tool contract, for every source (built-in, plugin module, MCP, LSP, remote). Imports nothing. */

export type ToolOrigin = "builtin" | "plugin" | "mcp" | "lsp" | "remote";

export type JsonSchema = { [key: string]: unknown };

export interface ToolContent {
  type: "text" | "image" | "resource" | "resource_link" | "audio";
  text?: string;
  data?: string;
  mimeType?: string;
  [key: string]: unknown;
}

/** What a tool's `call` returns: MCP-shaped content blocks, an error flag and optional structured data. */
export interface ToolResult {
  content: ToolContent[];
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  /** Free-form data for hooks (`tool_response`) and renderers; not shown to the model. */
  meta?: Record<string, unknown>;
  /**
   * The result as Claude Code hooks see it: PostToolUse's `tool_response`, in Claude Code's own shape for
   * the tool (Read `{type: "text", file: {filePath, content, numLines, startLine, totalLines}}`, Bash
   * `{stdout, stderr, interrupted, isImage, …}`). Never shown to the model. Without it hooks get
   * `structuredContent`, else the MCP JSON text or content blocks (Claude Code's MCP shape).
   */
  toolResponse?: unknown;
}

export interface ToolCallContext {
  /** Aborted on timeout, on interrupt, or when the host shuts down. */
  signal: AbortSignal;
  /**
   * Run `listener` once if the call is aborted (with the abort reason; at once if it already was).
   * Cheaper than `signal` on a hot path: no AbortSignal is created for a call that only needs to be
   * told (reading `signal` creates one per call). Optional for callers that build a context by hand.
   */
  onAbort?(listener: (reason: unknown) => void): void;
  /** Working directory of the host (absolute). */
  cwd: string;
  /** The session (conversation) the call belongs to. */
  sessionId: string;
  toolUseId: string;
  /** Report progress; shows up as `progress` events on the host. */
  progress(message: string, fraction?: number): void;
  /** Shared scratch space per session and tool (e.g. read-before-write state). */
  state: Map<string, unknown>;
  /**
   * Scratch space shared by every tool of the session (e.g. Read/Write/Edit sharing read-before-write
   * state). Use namespaced keys ("builtin-tools:files"). Optional for callers that build a context by hand.
   */
  sessionState?: Map<string, unknown>;
  /**
   * Files a searching tool (Grep, Glob, a listing) must not show: call once per call; the function names
   * the reason (a Read deny rule, its plugin and file) for an absolute path that may not be read, or
   * returns undefined. Undefined when nothing is filtered (then skip the per-file test). Claude Code hands
   * Read deny rules to ripgrep as exclusions; this is the same contract for every searching tool.
   */
  readFilter?(): ReadFilter | undefined;
  /** A live object a plugin provided under `name` (host.service), e.g. "command-hooks.session-env"; optional by hand. */
  service?<T = unknown>(name: string): T | undefined;
}

/** What `afterPostToolUse` gets: the call's result after the hooks, its input and session, and a note channel. */
export interface AfterPostToolUse {
  readonly result: ToolResult;
  readonly call: { readonly input: unknown; readonly session: { readonly shared: Map<string, unknown> } };
  /** Text for the model after the result. */
  addContext(text: string, source: string): void;
}

/** `(absolute path) → why it may not be read`, or undefined when it may. */
export type ReadFilter = (absPath: string) => string | undefined;

export interface PermissionCheck {
  behavior: "allow" | "deny" | "ask" | "passthrough";
  reason?: string;
}

export interface ToolDefinition<I = any> {
  name: string;
  description: string;
  aliases?: string[];
  /** Extra words for ToolSearch ranking that are not in the description. */
  searchHint?: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  call(input: I, ctx: ToolCallContext): Promise<ToolResult | string> | ToolResult | string;
  /**
   * A PostToolUse hook's `updatedToolOutput` (an object in this tool's `toolResponse` shape) turned into
   * what the model sees; undefined refuses the shape and the hook's replacement is ignored (as Claude Code
   * ignores one that fails a built-in's output schema). A tool with this facet takes only the object form;
   * a tool without it takes any replacement (Claude Code's MCP semantics).
   */
  fromToolResponse?(response: Record<string, unknown>, input: I): ToolResult | undefined;
  /**
   * Called once after the PostToolUse taps ran on this call (only when some are tapped), with their
   * context: e.g. Write/Edit refresh their read state when a formatter hook changed the file.
   */
  afterPostToolUse?(post: AfterPostToolUse): void;
  /** Extra input checks beyond the schema; return a message to reject. `sessionState`: as ToolCallContext's (read it, do not write). */
  validateInput?(input: I, ctx: { cwd: string; sessionState?: Map<string, unknown> }): string | undefined | Promise<string | undefined>;
  /** Tool-specific permission logic, consulted after rules (e.g. a read-only path inside cwd). */
  checkPermissions?(input: I, ctx: { cwd: string; mode: string }): PermissionCheck | undefined;
  /**
   * Where this call will really act, when that is not the host's cwd (a shell that kept a `cd`, a
   * `workdir` field): permission and AGENTS.md rules resolve relative paths against it. Computed once
   * per call into `CallState.workingDirectory`; default: the host's cwd.
   */
  workingDirectory?(input: I, ctx: { cwd: string; sessionState: Map<string, unknown> }): string | undefined;
  /** Normalise input before any rule sees it (resolve paths against cwd, etc.). */
  normalizeInput?(input: I, ctx: { cwd: string }): I;
  isReadOnly?: boolean | ((input: I) => boolean);
  isDestructive?: boolean | ((input: I) => boolean);
  isConcurrencySafe?: boolean | ((input: I) => boolean);
  interruptBehavior?: "cancel" | "block";
  /** Per-tool call timeout in ms (default: none beyond the host's). */
  timeoutMs?: number;
  /** Output budget in characters for this tool (the shaping plugin applies it). */
  maxOutputChars?: number;
  userFacingName?: string;
  activityText?: string;
  shouldDefer?: boolean;
  alwaysLoad?: boolean;
}

/** A tool as it lives in a pool: the definition plus where it came from. */
export interface Tool<I = any> extends ToolDefinition<I> {
  origin: ToolOrigin;
  /** Plugin id that contributed the tool. */
  plugin: string;
  /** Manifest or module file that declared it. */
  file?: string;
  /** MCP server (or LSP server) name, for tools from servers. */
  server?: string;
  /** Original name at the source when it was renamed/shortened (MCP). */
  sourceName?: string;
  /** Notes the pool records for `explain` (e.g. "name shortened from …"). */
  notes?: string[];
  /** Free-form provenance extras for plugins (e.g. MCP `_meta`). */
  extra?: Record<string, unknown>;
}
