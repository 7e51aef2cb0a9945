/**
 * `toolhost sessions [list] | show <id> | remove <id> [--json]`: the sessions in the configured store
 * (TOOLHOST_HOME/sessions.db by default). Shapes (README "Sessions"):
 *  list   → {backend, location, sessions: [{id, version, createdAt, updatedAt, expiresAt, bytes, fields}]}
 *  show   → {id, version, createdAt, updatedAt, expiresAt, bytes, loadedTools, filesRead, cwd, approvals, usage, tasks, other}
 *  remove → {id, removed}
 * Times are ISO strings. Exit 1: no such session (show, remove); 3: bad usage or a refused id.
 */
import { UsageError, type CommandContext } from "../../core/index.ts";
import { sessionIdProblem, type Json, type SessionRecord, type SessionSummary } from "../../lib/session-store/index.ts";
import type { SessionsAdmin } from "./index.ts";
import { ownedField } from "./codec.ts";

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
/** Keys builtin-tools keeps in Session.shared (shown by name; stored like any other JSON state). */
const FILES = "shared:builtin-tools:files";
const CWD = "builtin-tools:bashCwd";

export async function run(ctx: CommandContext): Promise<number> {
  const [sub = "list", id, ...extra] = ctx.args.positionals;
  if (!["list", "show", "remove"].includes(sub)) throw new UsageError(`toolhost sessions: unknown subcommand ${JSON.stringify(sub)} (list, show <id>, remove <id>)`);
  if (sub === "list" ? id !== undefined : id === undefined || extra.length) throw new UsageError(sub === "list" ? "toolhost sessions list takes no argument" : `toolhost sessions ${sub} takes one session id`);
  if (id !== undefined) {
    const bad = sessionIdProblem(id);
    if (bad) throw new UsageError(bad);
  }
  const host = await ctx.host();
  try {
    const admin = host.service<SessionsAdmin>("sessions.admin");
    if (!admin) {
      ctx.io.err("toolhost sessions: the sessions plugin is not loaded (disabledPlugins?)");
      return 1;
    }
    const store = await admin.runtime.store();
    if (sub === "list") {
      const sessions = await store.list();
      if (ctx.json) ctx.io.out(JSON.stringify({ backend: store.backend, location: store.location ?? null, sessions: sessions.map(summaryJson) }, null, 2));
      else printList(ctx, store.location ?? store.backend, sessions);
      return 0;
    }
    if (sub === "remove") {
      const removed = await store.remove(id!);
      if (ctx.json) ctx.io.out(JSON.stringify({ id, removed }, null, 2));
      else (removed ? ctx.io.out : ctx.io.err)(removed ? `removed session ${id}` : `toolhost sessions: no session ${id} in ${store.location ?? store.backend}`);
      return removed ? 0 : 1;
    }
    const rec = await store.get(id!);
    if (!rec) {
      if (ctx.json) ctx.io.out(JSON.stringify({ id, found: false }, null, 2));
      ctx.io.err(`toolhost sessions: no session ${id} in ${store.location ?? store.backend}`);
      return 1;
    }
    const shown = showJson(rec);
    if (ctx.json) ctx.io.out(JSON.stringify(shown, null, 2));
    else printShow(ctx, shown);
    return 0;
  } finally {
    await host.close();
  }
}

function summaryJson(s: SessionSummary) {
  return { id: s.id, version: s.version, createdAt: iso(s.createdAt), updatedAt: iso(s.updatedAt), expiresAt: iso(s.expiresAt), bytes: s.bytes, fields: s.fields };
}

export function showJson(r: SessionRecord) {
  const f = r.fields;
  const loadedTools = Object.entries(f.loaded ?? {}).sort((a, b) => Number(a[1]) - Number(b[1])).map(([n]) => n);
  const filesRead = Object.entries(f[FILES] ?? {}).map(([file, v]) => ({ file, ...(v as Record<string, Json>) }));
  const cwd = (f.shared?.[CWD] as string | undefined) ?? null;
  const approvals = Object.values(f.approvals ?? {}).map((a) => a as { behavior: string; rule: string; tool: string | null; input: Record<string, string> });
  const usage = Object.fromEntries(Object.entries(f.usage ?? {}).map(([k, v]) => [k, v as number]));
  const tasks = Object.values(f.tasks ?? {});
  const other = Object.fromEntries(Object.entries(f).filter(([k]) => k !== FILES && !["loaded", "approvals", "usage", "tasks"].includes(k) && !(k === "shared" && Object.keys(f.shared!).length === 1 && cwd !== null) && ownedField(k)));
  return { id: r.id, version: r.version, createdAt: iso(r.createdAt), updatedAt: iso(r.updatedAt), expiresAt: iso(r.expiresAt), bytes: r.bytes, loadedTools, filesRead, cwd, approvals, usage, tasks, other };
}

function printList(ctx: CommandContext, where: string, sessions: SessionSummary[]): void {
  if (!sessions.length) {
    ctx.io.out(`no sessions in ${where}`);
    return;
  }
  ctx.io.out(`${sessions.length} session${sessions.length === 1 ? "" : "s"} in ${where}:`);
  for (const s of sessions) {
    const parts = [`${s.fields.loaded ?? 0} loaded tools`, `${s.fields[FILES] ?? 0} files read`, `${s.fields.approvals ?? 0} approvals`, `${s.fields.tasks ?? 0} tasks`];
    ctx.io.out(`  ${s.id.padEnd(24)} updated ${iso(s.updatedAt)}  ${parts.join(", ")}  (${s.bytes} bytes)`);
  }
}

function printShow(ctx: CommandContext, s: ReturnType<typeof showJson>): void {
  ctx.io.out(`session ${s.id} (version ${s.version}, updated ${s.updatedAt}, expires ${s.expiresAt ?? "never"}, ${s.bytes} bytes)`);
  ctx.io.out(`  loaded tools: ${s.loadedTools.join(", ") || "none"}`);
  ctx.io.out(`  files read:   ${s.filesRead.map((f) => f.file).join(", ") || "none"}`);
  ctx.io.out(`  Bash cwd:     ${s.cwd ?? "(the project)"}`);
  ctx.io.out(`  approvals:    ${s.approvals.map((a) => `${a.rule}${Object.keys(a.input ?? {}).length ? ` ${JSON.stringify(a.input)}` : ""}`).join("; ") || "none"}`);
  ctx.io.out(`  usage:        ${Object.entries(s.usage).map(([k, v]) => `${k} ${v}`).join(", ") || "none"}`);
  for (const t of s.tasks as { taskId: string; instance: string; state: string; command: string }[]) ctx.io.out(`  task ${t.taskId}: ${t.state} on ${t.instance} — ${t.command}`);
}
