/**
 * The background-task registry of a session: a Bash task started here is recorded with this instance's
 * name, TaskStop / TaskOutput keep the record current, and a TaskOutput / TaskStop for a task another
 * instance owns is answered "runs on instance X" — never a wrong result from this one (builtin-tools asks
 * for that answer, REMOTE_TASK_KEY, only when it does not run the task itself).
 */
import type { CallState, ToolResult } from "../../core/index.ts";
import { FIELDS, type RemoteTaskAnswer, type SessionRecord, type TaskEntry } from "../../lib/session-store/index.ts";
import type { Track } from "./track.ts";

/** The tools whose calls change the registry (taskOps looks at nothing else). */
export const TASK_TOOLS: ReadonlySet<string> = new Set(["Bash", "TaskStop", "TaskOutput"]);

/** Record what an executed call did to the session's tasks (as ops to write). */
export function taskOps(t: Track, instance: string, call: CallState, result: ToolResult): void {
  const meta = (result.meta ?? {}) as Record<string, unknown>;
  const name = call.tool!.name;
  if (name === "Bash" && typeof meta.backgroundTaskId === "string") {
    const e: TaskEntry = { taskId: meta.backgroundTaskId, instance, kind: "bash", command: String(call.input?.command ?? "").slice(0, 500), startedAt: Date.now(), state: "running", updatedAt: Date.now() };
    t.tasks.set(e.taskId, e);
    t.ops.push({ op: "set", field: FIELDS.tasks, key: e.taskId, value: { ...e } });
  } else if (name === "TaskStop" && typeof meta.task_id === "string" && t.tasks.delete(meta.task_id)) {
    t.ops.push({ op: "delete", field: FIELDS.tasks, key: meta.task_id });
  } else if (name === "TaskOutput" && typeof meta.task_id === "string" && meta.status !== "running") {
    const e = t.tasks.get(meta.task_id);
    if (e && e.state === "running") {
      Object.assign(e, { state: "exited", exitCode: typeof meta.exitCode === "number" ? meta.exitCode : null, updatedAt: Date.now() });
      t.ops.push({ op: "set", field: FIELDS.tasks, key: e.taskId, value: { ...e } });
    }
  }
}

type TaskAnswer = Awaited<ReturnType<RemoteTaskAnswer>>;

/**
 * A TaskOutput / TaskStop for a task this process does not run (builtin-tools asks through REMOTE_TASK_KEY):
 * "runs on instance X" when the session's registry (`read`) names another instance; a store that cannot be
 * read is said (it is unknown where the task runs), never answered as "no such task".
 */
export async function remoteTask(t: Track | undefined, id: string, tool: "TaskOutput" | "TaskStop", instance: string, read: () => SessionRecord | undefined | Promise<SessionRecord | undefined>): Promise<TaskAnswer> {
  if (!t?.persistent || t.tasks.has(id)) return undefined;
  try {
    return taskAnswer(tool, id, (await read())?.fields[FIELDS.tasks]?.[id] as TaskEntry | undefined, instance);
  } catch (err) {
    return taskUnknown(id, err);
  }
}

export function taskUnknown(id: string, err: unknown): TaskAnswer {
  return { content: [{ type: "text", text: `Task ${id}: the session store cannot be read (${(err as Error).message}), so it is unknown which instance runs it; not answered from this one.` }], isError: true };
}

/** The answer for a task another instance owns (undefined: unknown here, or this instance's own). */
export function taskAnswer(name: "TaskOutput" | "TaskStop", id: string, e: TaskEntry | undefined, instance: string): TaskAnswer | undefined {
  if (!e || e.instance === instance) return undefined;
  const where = e.state === "running" ? `runs on instance ${e.instance}` : e.state === "gone" ? `ran on instance ${e.instance}, which has closed: its process and output are gone` : `ran on instance ${e.instance} (exited${e.exitCode != null ? ` with code ${e.exitCode}` : ""})`;
  const text = `Task ${id} (${e.command}) ${where}; this instance (${instance}) cannot ${name === "TaskStop" ? "stop it" : "read its output"}. ${e.state === "running" ? `Send ${name} to ${e.instance}.` : ""}`.trim();
  return { content: [{ type: "text", text }], isError: true, meta: { task_id: id, instance: e.instance, state: e.state } };
}
