/**
 * Sessions shared by two hosts (two instances) on one SQLite store: deferred tools ToolSearch loaded,
 * "allow always" approvals (scoped to their session), the background-task registry ("runs on instance
 * X", never a wrong result), usage counts across sessions, and the in-memory default of a library host.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createHost, type Host, type HostOptions } from "../../core/index.ts";
import type { SessionUsage } from "../../lib/session-store/index.ts";
import { tmpdir, until } from "../helpers.ts";

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
});

async function host(proj: string, db: string | undefined, instanceId: string, more: Partial<HostOptions> = {}): Promise<Host> {
  const h = await createHost({ cwd: proj, trustWorkspace: true, config: { sessions: db ? { backend: "sqlite", path: db, instanceId } : { instanceId } }, ...more });
  hosts.push(h);
  return h;
}
const text = (o: { result: { content: { type: string; text?: string }[] } }) => o.result.content.map((c) => c.text ?? "").join("\n");

describe("two hosts on one store", () => {
  it("deferred tools ToolSearch loaded in one instance are loaded in the other (same session only)", async () => {
    const proj = tmpdir();
    const db = path.join(tmpdir(), "s.db");
    const a = await host(proj, db, "A");
    expect(a.pool.deferred.map((t) => t.name)).toContain("exec_command");
    const r = await a.execute("ToolSearch", { query: "select:exec_command" }, { sessionId: "t1" });
    expect(r.status, text(r)).toBe("ok");
    expect(a.visibleTools("t1").map((t) => t.name)).toContain("exec_command");
    const b = await host(proj, db, "B");
    expect((await b.openSession("t1")).loaded).toEqual(["exec_command"]);
    expect(b.visibleTools("t1").map((t) => t.name)).toContain("exec_command");
    expect((await b.openSession("t2")).loaded).toEqual([]);
  });

  it("an allow-always answer holds for its session in another instance, and only there", async () => {
    const proj = tmpdir();
    const db = path.join(tmpdir(), "s.db");
    const asked: string[] = [];
    const onAsk = (answer: "allowAlways" | "deny") => (req: { sessionId: string }) => (asked.push(req.sessionId), answer);
    const a = await host(proj, db, "A", { onAsk: onAsk("allowAlways") });
    const call = { command: "touch made-by-a" };
    expect((await a.execute("Bash", call, { sessionId: "ap1" })).status).toBe("ok");
    expect(asked).toEqual(["ap1"]);
    await a.close();
    const b = await host(proj, db, "B", { onAsk: onAsk("deny") });
    const again = await b.execute("Bash", call, { sessionId: "ap1" });
    expect(again.status, text(again)).toBe("ok");
    expect(asked).toEqual(["ap1"]); // not asked again
    const other = await b.execute("Bash", call, { sessionId: "ap2" });
    expect(other.status).toBe("not-approved");
    expect(asked).toEqual(["ap1", "ap2"]);
    const diff = await b.execute("Bash", { command: "touch something-else" }, { sessionId: "ap1" });
    expect(diff.status).toBe("not-approved"); // the approval was narrowed to the command
  });

  it("a background task is answered by its own instance; another says where it runs, never a wrong result", async () => {
    const proj = tmpdir();
    const db = path.join(tmpdir(), "s.db");
    const a = await host(proj, db, "inst-A");
    const b = await host(proj, db, "inst-B");
    const started = await a.execute("Bash", { command: "echo from-a; sleep 30", run_in_background: true }, { sessionId: "bg", yes: true });
    const id = (started.result.meta as { backgroundTaskId: string }).backgroundTaskId;
    expect(id).toBeTruthy();
    const out = await b.execute("TaskOutput", { task_id: id, block: false }, { sessionId: "bg" });
    expect(out.result.isError).toBe(true);
    expect(text(out)).toContain(`Task ${id} (echo from-a; sleep 30) runs on instance inst-A; this instance (inst-B) cannot read its output`);
    const stop = await b.execute("TaskStop", { task_id: id }, { sessionId: "bg", yes: true });
    expect(text(stop)).toContain("runs on instance inst-A");
    // still running on A, and A answers with its output
    const mine = await a.execute("TaskOutput", { task_id: id, block: false }, { sessionId: "bg" });
    expect(mine.result.isError).toBeFalsy();
    expect(text(mine)).toMatch(/running/);
    // another session of B knows nothing of it (the tool's own answer)
    expect(text(await b.execute("TaskOutput", { task_id: id, block: false }, { sessionId: "bg-other" }))).toContain("No background task");
    await a.close();
    const gone = await b.execute("TaskOutput", { task_id: id, block: false }, { sessionId: "bg" });
    expect(text(gone)).toContain("ran on instance inst-A, which has closed: its process and output are gone");
  });

  it("usage counts: per session and across sessions and instances (the sessions.usage service)", async () => {
    const proj = tmpdir();
    fs.writeFileSync(path.join(proj, "f.txt"), "x\n");
    const db = path.join(tmpdir(), "s.db");
    const a = await host(proj, db, "A");
    for (const s of ["u1", "u2"]) await a.execute("Read", { file_path: "f.txt" }, { sessionId: s });
    await a.execute("Glob", { pattern: "*.txt" }, { sessionId: "u1" });
    await a.close();
    const b = await host(proj, db, "B");
    await b.execute("Read", { file_path: "f.txt" }, { sessionId: "u3" });
    const usage = b.service<SessionUsage>("sessions.usage")!;
    const all = await usage.counts();
    expect(all.Read!.count).toBe(3);
    expect(all.Glob!.count).toBe(1);
    expect((await usage.counts({ sessionId: "u1" })).Read!.count).toBe(1);
    expect(await usage.sessionCounts!()).toEqual({ sessions: 3, tools: { Read: 3, Glob: 1 } });
  });

  it("a session ended in memory (host.endSession, as a stateless serve does per request) comes back from the store", async () => {
    const proj = tmpdir();
    fs.writeFileSync(path.join(proj, "f.txt"), "x\n");
    const db = path.join(tmpdir(), "s.db");
    const a = await host(proj, db, "A");
    await a.execute("Read", { file_path: "f.txt" }, { sessionId: "e1" });
    expect(a.endSession("e1")).toBe(true);
    expect((await a.execute("Edit", { file_path: "f.txt", old_string: "x", new_string: "y" }, { sessionId: "e1", yes: true })).status).toBe("ok");
    a.endSession("e1");
    // the Edit's new read record was saved too: a second edit needs no new Read
    expect((await a.execute("Edit", { file_path: "f.txt", old_string: "y", new_string: "z" }, { sessionId: "e1", yes: true })).status).toBe("ok");
  });

  it("a write the store refuses (over maxSessionBytes) is one warning; calls go on, the session keeps its state in memory", async () => {
    const proj = tmpdir();
    for (let i = 0; i < 8; i++) fs.writeFileSync(path.join(proj, `file-with-a-long-name-${i}.txt`), "x\n");
    const db = path.join(tmpdir(), "s.db");
    const warnings: string[] = [];
    const h = await createHost({ cwd: proj, trustWorkspace: true, logger: { warn: (m) => warnings.push(m) }, config: { sessions: { backend: "sqlite", path: db, maxSessionBytes: 1024 } } });
    hosts.push(h);
    for (let i = 0; i < 8; i++) expect((await h.execute("Read", { file_path: `file-with-a-long-name-${i}.txt` }, { sessionId: "big" })).status).toBe("ok");
    await until(() => warnings.length > 0); // read records are written behind (sessions.writeBehindMs): said at the flush
    expect(warnings.filter((w) => w.includes("[sessions]"))).toHaveLength(1);
    expect(warnings[0]).toMatch(/session big could not be saved to .*s\.db: .*over the limit of 1024 \(sessions\.maxSessionBytes\)/);
    expect(h.problems().some((p) => p.plugin === "sessions" && p.severity === "warning")).toBe(true);
    // in memory the session still knows every file it read
    expect((await h.execute("Edit", { file_path: "file-with-a-long-name-7.txt", old_string: "x", new_string: "y" }, { sessionId: "big", yes: true })).status).toBe("ok");
  });

  it("a library host keeps sessions in memory by default: a second host starts empty", async () => {
    const proj = tmpdir();
    fs.writeFileSync(path.join(proj, "f.txt"), "x\n");
    const a = await host(proj, undefined, "A");
    await a.execute("Read", { file_path: "f.txt" }, { sessionId: "m1" });
    expect((await a.execute("Edit", { file_path: "f.txt", old_string: "x", new_string: "y" }, { sessionId: "m1", yes: true })).status).toBe("ok");
    const b = await host(proj, undefined, "B");
    expect((await b.execute("Edit", { file_path: "f.txt", old_string: "y", new_string: "z" }, { sessionId: "m1", yes: true })).status).toBe("tool-error");
    expect((await b.service<SessionUsage>("sessions.usage")!.counts()).Edit!.count).toBe(1);
    expect(await b.service<SessionUsage>("sessions.usage")!.sessionCounts!()).toEqual({ sessions: 1, tools: { Edit: 1 } });
  });
});
