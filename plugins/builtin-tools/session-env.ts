/**
 * What SessionStart hooks exported for the session's shell (Claude Code's CLAUDE_ENV_FILE): the command-hooks
 * plugin lists the session's env files (service "command-hooks.session-env", in hook order) and Bash runs their
 * text before each command, as Claude Code does (recorded: session-env-file), so `export NAME=value` written
 * there reaches every later command. A host without command hooks provides no service: the command runs as given.
 */
import fs from "node:fs";
import type { ToolCallContext } from "../../core/index.ts";

export const SESSION_ENV_SERVICE = "command-hooks.session-env";

export interface SessionEnvService {
  filesFor(sessionId: string): string[];
}

/** The env files' text (each as written, empty or unreadable ones skipped), then the command. */
export function withSessionEnv(command: string, ctx: ToolCallContext): string {
  const files = ctx.service?.<SessionEnvService>(SESSION_ENV_SERVICE)?.filesFor(ctx.sessionId) ?? [];
  const scripts: string[] = [];
  for (const f of files) {
    try {
      const text = fs.readFileSync(f, "utf8");
      if (text.trim()) scripts.push(text.endsWith("\n") ? text : `${text}\n`);
    } catch {}
  }
  return scripts.length ? `${scripts.join("")}${command}` : command;
}
