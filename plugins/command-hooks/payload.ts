/**
 * The fields every hook input shares, as Claude Code 2.1.328 sends them (recorded: test/conformance/recordings/
 * hook-input-events.json, hook-input-effort.json): `session_id, transcript_path, cwd, prompt_id, permission_mode,
 * effort, hook_event_name`, and the environment that goes with them (CLAUDE_EFFORT, CLAUDE_ENV_FILE).
 *
 *  - `prompt_id`: the id of the session's current user prompt. toolhost learns of prompts only through
 *    host.event("UserPromptSubmit", {prompt, promptId?}): the embedder's `promptId`, else a new UUID. Every later
 *    event of the session carries it (SessionEnd included, SessionStart never); a session whose prompts are never
 *    reported has none, and hooks get no `prompt_id`.
 *  - `effort`: `{level}` of the model's effort. toolhost does not know the model: it sends the level only when
 *    CLAUDE_CODE_EFFORT_LEVEL says it (Claude Code's own override, which wins over its settings), on the events
 *    Claude Code sends it on (not SessionStart, UserPromptSubmit, SessionEnd), with CLAUDE_EFFORT in the env.
 *  - CLAUDE_ENV_FILE (SessionStart hooks): one file per hook, TOOLHOST_HOME/session-env/<session>/
 *    sessionstart-hook-<n>.sh (Claude Code: ~/.claude/session-env/…), listed by the "command-hooks.session-env"
 *    service for whatever runs the session's shell commands.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** Per host (its HostView) and session: the current prompt id. */
const prompts = new WeakMap<object, Map<string, string>>();
/** Sessions remembered per host at most (the oldest is forgotten first). */
const MAX_SESSIONS = 10_000;

export function promptIdOf(host: object, sessionId: string): string | undefined {
  return prompts.get(host)?.get(sessionId);
}

/** A UserPromptSubmit was reported: its prompt id (the embedder's `promptId`, else a new one) becomes the session's. */
export function newPrompt(host: object, sessionId: string, given: unknown): string {
  let m = prompts.get(host);
  if (!m) prompts.set(host, (m = new Map()));
  const id = typeof given === "string" && given ? given : randomUUID();
  m.delete(sessionId);
  m.set(sessionId, id);
  if (m.size > MAX_SESSIONS) m.delete(m.keys().next().value!);
  return id;
}

export function endPrompts(host: object, sessionId: string): void {
  prompts.get(host)?.delete(sessionId);
}

const EFFORTS = new Set(["low", "medium", "high", "xhigh", "max"]);
/** Events Claude Code sends without `effort` (and without CLAUDE_EFFORT in the env). */
const NO_EFFORT = new Set(["SessionStart", "UserPromptSubmit", "SessionEnd"]);

/** The effort level CLAUDE_CODE_EFFORT_LEVEL names, if a valid one. */
export function effortLevel(): string | undefined {
  const v = process.env.CLAUDE_CODE_EFFORT_LEVEL?.trim().toLowerCase();
  return v && EFFORTS.has(v) ? v : undefined;
}

export interface BaseFields {
  sessionId: string;
  transcriptPath: string;
  cwd: string;
  /** Absent on events Claude Code sends without it (SessionStart, SessionEnd). */
  mode?: string;
}

/** The leading fields of `event`'s hook input, in Claude Code's order. */
export function basePayload(host: object, event: string, f: BaseFields): Record<string, unknown> {
  const p: Record<string, unknown> = { session_id: f.sessionId, transcript_path: f.transcriptPath, cwd: f.cwd };
  const prompt = event === "SessionStart" ? undefined : promptIdOf(host, f.sessionId);
  if (prompt) p.prompt_id = prompt;
  if (f.mode !== undefined) p.permission_mode = f.mode;
  const effort = NO_EFFORT.has(event) ? undefined : effortLevel();
  if (effort) p.effort = { level: effort };
  p.hook_event_name = event;
  return p;
}

/** The environment `event`'s hooks get beside the common one (run.ts): CLAUDE_EFFORT where `effort` is sent. */
export function eventEnv(event: string): Record<string, string> {
  const effort = NO_EFFORT.has(event) ? undefined : effortLevel();
  return effort ? { CLAUDE_EFFORT: effort } : {};
}

function toolhostHome(): string {
  return process.env.TOOLHOST_HOME || path.join(os.homedir(), ".toolhost");
}

const safe = (id: string) => id.replace(/[^A-Za-z0-9_.-]/g, "-").replace(/^\.+/, "-");

/** The n-th SessionStart hook's CLAUDE_ENV_FILE for a session (its directory is made; the hook writes the file). */
export function sessionEnvFile(sessionId: string, n: number): string {
  const dir = path.join(toolhostHome(), "session-env", safe(sessionId));
  try {
    fs.mkdirSync(dir, { recursive: true });
  } catch {}
  return path.join(dir, `sessionstart-hook-${n}.sh`);
}

/** The env files SessionStart hooks of a session wrote (in hook order), for whatever runs its shell commands. */
export function sessionEnvFiles(sessionId: string): string[] {
  const dir = path.join(toolhostHome(), "session-env", safe(sessionId));
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir).filter((n) => /^sessionstart-hook-\d+\.sh$/.test(n));
  } catch {
    return [];
  }
  const num = (n: string) => Number(n.match(/\d+/)![0]);
  return names.sort((a, b) => num(a) - num(b)).map((n) => path.join(dir, n));
}
