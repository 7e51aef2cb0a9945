/**
 * A long-lived copy of a session stays current (issue 16): two live hosts (two instances) on one store —
 * SQLite and a real redis-server — and a change by B (a read file, a ToolSearch load, an "allow always")
 * is seen by A on its next call, while what A changed itself is kept. And the disk store's write-behind:
 * changes are coalesced and written within sessions.writeBehindMs, at close, and at process exit (a child
 * process that exits without closing its host loses nothing).
 */
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createHost, type Host, type HostOptions } from "../../core/index.ts";
import type { SessionsAdmin } from "../../plugins/sessions/index.ts";
import { SqliteStore } from "../../lib/session-store/sqlite.ts";
import { need, startRedis, type RedisServer } from "../fleet/servers.ts";
import { tmpdir, until } from "../helpers.ts";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
});
const text = (o: { result: { content: { type: string; text?: string }[] } }) => o.result.content.map((c) => c.text ?? "").join("\n");

const bin = need("redis-server");
let redis: RedisServer | undefined;
beforeAll(async () => {
  if (typeof bin === "string") redis = await startRedis(bin);
});
afterAll(async () => {
  await redis?.stop();
});

type Backend = "sqlite" | "redis";
function sessionsConfig(backend: Backend, where: string, instanceId: string): Record<string, unknown> {
  return backend === "sqlite" ? { backend, path: where, instanceId } : { backend, url: redis!.url, prefix: where, instanceId };
}

describe.each(["sqlite", "redis"] as const)("two live instances on one %s store", (backend) => {
  const skip = backend === "redis" && typeof bin !== "string";
  async function pair(more: { a?: Partial<HostOptions>; b?: Partial<HostOptions> } = {}) {
    const proj = tmpdir();
    for (const f of ["a.txt", "b.txt", "c.txt"]) fs.writeFileSync(path.join(proj, f), `${f} one\n`);
    const where = backend === "sqlite" ? path.join(tmpdir(), "s.db") : `f${randomUUID().slice(0, 8)}:`;
    const make = async (id: string, o?: Partial<HostOptions>) => {
      const h = await createHost({ cwd: proj, trustWorkspace: true, config: { sessions: sessionsConfig(backend, where, id) }, ...o });
      hosts.push(h);
      return h;
    };
    return { proj, a: await make("A", more.a), b: await make("B", more.b) };
  }
  /** What B has not written yet (the disk store writes behind) is written now. */
  const flush = (h: Host) => h.service<SessionsAdmin>("sessions.admin")!.runtime.flush();

  it.skipIf(skip)("B's read record and ToolSearch load are seen by A's next call; A's own read state stays", async () => {
    const { a, b } = await pair();
    expect((await a.execute("Read", { file_path: "a.txt" }, { sessionId: "s1" })).status).toBe("ok"); // A holds s1 from now on
    expect((await b.execute("Read", { file_path: "b.txt" }, { sessionId: "s1" })).status).toBe("ok");
    expect((await b.execute("ToolSearch", { query: "select:exec_command" }, { sessionId: "s1" })).status).toBe("ok");
    await flush(b);
    // A never read b.txt: its Edit works only if A sees B's read record
    const edit = await a.execute("Edit", { file_path: "b.txt", old_string: "one", new_string: "two" }, { sessionId: "s1", yes: true });
    expect(edit.status, text(edit)).toBe("ok");
    expect((await a.openSession("s1")).loaded).toEqual(["exec_command"]);
    expect(a.visibleTools("s1").map((t) => t.name)).toContain("exec_command");
    // A's own read of a.txt was not lost in the merge
    expect((await a.execute("Edit", { file_path: "a.txt", old_string: "one", new_string: "two" }, { sessionId: "s1", yes: true })).status).toBe("ok");
    // and B sees A's edits (A's new read records) on its next call: a second edit of b.txt needs no Read
    await flush(a);
    const back = await b.execute("Edit", { file_path: "b.txt", old_string: "two", new_string: "three" }, { sessionId: "s1", yes: true });
    expect(back.status, text(back)).toBe("ok");
    // another session is untouched
    const other = await a.execute("Edit", { file_path: "c.txt", old_string: "one", new_string: "two" }, { sessionId: "s2", yes: true });
    expect(other.status).toBe("tool-error");
  });

  it.skipIf(skip)("an allow-always given on B holds on A's next call in that session (A is not asked), not in another", async () => {
    const asked: string[] = [];
    const onAsk = (answer: "allowAlways" | "deny") => (req: { sessionId: string }) => (asked.push(`${answer}:${req.sessionId}`), answer);
    const { a, b } = await pair({ a: { onAsk: onAsk("deny") }, b: { onAsk: onAsk("allowAlways") } });
    const call = { command: "touch approved-on-b" };
    expect((await a.execute("Glob", { pattern: "*.txt" }, { sessionId: "ap" })).status).toBe("ok"); // A holds the session
    expect((await b.execute("Bash", call, { sessionId: "ap" })).status).toBe("ok");
    expect(asked).toEqual(["allowAlways:ap"]);
    const again = await a.execute("Bash", call, { sessionId: "ap" });
    expect(again.status, text(again)).toBe("ok");
    expect(asked).toEqual(["allowAlways:ap"]);
    expect((await a.execute("Bash", call, { sessionId: "ap-other" })).status).toBe("not-approved");
  });

  it.skipIf(skip)("a session removed from the store (toolhost sessions remove) under a live copy: the copy goes on and is written anew", async () => {
    const { a, b } = await pair();
    expect((await a.execute("Read", { file_path: "a.txt" }, { sessionId: "rm" })).status).toBe("ok");
    await flush(a);
    const admin = b.service<SessionsAdmin>("sessions.admin")!.runtime;
    expect(await (await admin.store()).remove("rm")).toBe(true);
    expect((await a.execute("Read", { file_path: "b.txt" }, { sessionId: "rm" })).status).toBe("ok");
    expect((await a.execute("Edit", { file_path: "a.txt", old_string: "one", new_string: "two" }, { sessionId: "rm", yes: true })).status).toBe("ok");
    await flush(a);
    const rec = await (await admin.store()).get("rm");
    expect(Object.keys(rec?.fields["shared:builtin-tools:files"] ?? {}).map((f) => path.basename(f)).sort()).toEqual(["a.txt", "b.txt"]);
  });
});

describe("the disk store writes behind", () => {
  it("changes are coalesced and written within writeBehindMs; a ToolSearch load is written before the call returns", async () => {
    const proj = tmpdir();
    for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(proj, `f${i}.txt`), `${i}\n`);
    const db = path.join(tmpdir(), "s.db");
    const h = await createHost({ cwd: proj, trustWorkspace: true, config: { sessions: { backend: "sqlite", path: db, writeBehindMs: 200 } } });
    hosts.push(h);
    const peek = new SqliteStore(db);
    try {
      for (let i = 0; i < 20; i++) expect((await h.execute("Read", { file_path: `f${i}.txt` }, { sessionId: "wb" })).status).toBe("ok");
      const files = () => Object.keys(peek.sync.get("wb")?.fields["shared:builtin-tools:files"] ?? {}).length;
      const v0 = peek.sync.version("wb");
      await until(() => files() === 20, 5000);
      expect(peek.sync.version("wb") - v0).toBeLessThanOrEqual(2); // 20 calls, one or two transactions
      expect((await h.execute("ToolSearch", { query: "select:exec_command" }, { sessionId: "wb" })).status).toBe("ok");
      expect(peek.sync.get("wb")!.fields.loaded).toEqual({ exec_command: 0 });
    } finally {
      await peek.close();
    }
  });

  it("a process that exits without closing its host (process.exit) still wrote its changes; the next process can Edit", () => {
    const proj = tmpdir();
    fs.writeFileSync(path.join(proj, "n.txt"), "hello world\n");
    const db = path.join(tmpdir(), "s.db");
    const script = (body: string) => `
      const { createJiti } = require("jiti");
      const jiti = createJiti(${JSON.stringify(path.join(repo, "index.cjs"))});
      (async () => {
        const { createHost } = await jiti.import(${JSON.stringify(path.join(repo, "core/index.ts"))});
        const h = await createHost({ cwd: ${JSON.stringify(proj)}, trustWorkspace: true, config: { sessions: { backend: "sqlite", path: ${JSON.stringify(db)}, writeBehindMs: 60000 } } });
        ${body}
      })().catch((e) => { console.error(e); process.exit(9); });`;
    const first = spawnSync(process.execPath, ["-e", script(`const r = await h.execute("Read", { file_path: "n.txt" }, { sessionId: "ex" }); console.log(r.status); process.exit(0);`)], { cwd: repo, encoding: "utf8", timeout: 60_000 });
    expect(first.stdout.trim(), first.stderr).toBe("ok");
    const second = spawnSync(process.execPath, ["-e", script(`const r = await h.execute("Edit", { file_path: "n.txt", old_string: "world", new_string: "there" }, { sessionId: "ex", yes: true }); console.log(r.status); await h.close();`)], { cwd: repo, encoding: "utf8", timeout: 60_000 });
    expect(second.stdout.trim(), second.stderr).toBe("ok");
    expect(fs.readFileSync(path.join(proj, "n.txt"), "utf8")).toBe("hello there\n");
  });
});
