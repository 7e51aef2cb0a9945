/**
 * Every error toolhost reports carries where it came from: the plugin, the file, the JSON path
 * (or hook name) and a message a person or a model can act on.
 */

export interface ProblemReport {
  /** Plugin id ("builtin-tools", "my-plugin", "settings"). */
  plugin: string;
  /** Absolute file the problem is in, when there is one. */
  file?: string;
  /** JSON path inside `file` ("/hooks/PreToolUse/0/matcher") or the hook name ("build.collect"). */
  path?: string;
  message: string;
  severity: "error" | "warning";
  /** How often it happened, when more than once: a hook tap that keeps failing is one counted entry, not one per call. */
  count?: number;
  /** When it last happened (ISO time), with `count`. */
  lastSeen?: string;
  /** The latest message, when a repeat said something else than `message`. */
  lastMessage?: string;
}

export class ToolhostError extends Error {
  readonly plugin?: string;
  readonly file?: string;
  readonly path?: string;
  constructor(message: string, opts: { plugin?: string; file?: string; path?: string; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = "ToolhostError";
    this.plugin = opts.plugin;
    this.file = opts.file;
    this.path = opts.path;
  }
  toReport(severity: "error" | "warning" = "error"): ProblemReport {
    return { plugin: this.plugin ?? "toolhost", file: this.file, path: this.path, message: this.message, severity };
  }
}

/** An error thrown by a plugin's tap, attributed centrally by the hook interceptor (core/hooks.ts). */
export class PluginError extends ToolhostError {
  readonly hook: string;
  constructor(plugin: string, hook: string, cause: unknown, file?: string) {
    super(`[plugin ${plugin}] ${hook}: ${errorMessage(cause)}`, { plugin, path: hook, cause, file });
    this.name = "PluginError";
    this.hook = hook;
  }
}

export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  if (typeof e === "string") return e;
  try {
    return JSON.stringify(e);
  } catch {
    return String(e);
  }
}
