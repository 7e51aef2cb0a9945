/**
 * Sessions across real CLI processes (the sessions plugin on the SQLite store under TOOLHOST_HOME):
 * the README's two-step Read → Edit flow, Bash cwd, `toolhost sessions` shapes and exit codes, refused
 * ids, parallel processes writing one session, and a corrupt store (calls run, loud warning, fail closed).
 */
import fs from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { runCli, tmpdir } from "../helpers.ts";

// every test runs several real CLI processes one after another: on a loaded 2-core machine that takes minutes
vi.setConfig({ testTimeout: 240_000 });

let home: string;
let proj: string;
function cli(args: string[], env: Record<string, string> = {}) {
  return runCli([...args, "--cwd", proj], { cwd: proj, env: { TOOLHOST_HOME: home, ...env } });
}

beforeEach(() => {
  home = tmpdir("toolhost-sessions-home-");
  // the suite's trust store (it trusts the temp directory), so the project's files behave as usual
  const suite = process.env.TOOLHOST_HOME;
  if (suite && fs.existsSync(path.join(suite, "trust.json"))) fs.copyFileSync(path.join(suite, "trust.json"), path.join(home, "trust.json"));
  proj = tmpdir("toolhost-sessions-proj-");
  fs.writeFileSync(path.join(proj, "notes.txt"), "alpha\nbeta\n");
});

const edit = (file: string, from: string, to: string) => JSON.stringify({ file_path: file, old_string: from, new_string: to });

describe("toolhost call --session across processes", () => {
  it("Read in one process, Edit in the next: the README's two-step flow works; another session still must Read first", async () => {
    const read = await cli(["call", "Read", JSON.stringify({ file_path: "notes.txt" }), "--session", "s1"]);
    expect(read.code, read.stderr).toBe(0);
    const other = await cli(["call", "Edit", edit("notes.txt", "alpha", "gamma"), "--session", "s2", "--yes"]);
    expect(other.code).toBe(1);
    expect(other.stderr + other.stdout).toContain("has not been read yet");
    const ok = await cli(["call", "Edit", edit("notes.txt", "alpha", "gamma"), "--session", "s1", "--yes"]);
    expect(ok.code, ok.stderr + ok.stdout).toBe(0);
    expect(fs.readFileSync(path.join(proj, "notes.txt"), "utf8")).toBe("gamma\nbeta\n");
    // without --session every process starts empty, as before
    const none = await cli(["call", "Edit", edit("notes.txt", "beta", "delta"), "--yes"]);
    expect(none.code).toBe(1);
    // the file changed behind the session's back: its stale record is refused, not trusted
    fs.writeFileSync(path.join(proj, "notes.txt"), "changed by someone else\n");
    const stale = await cli(["call", "Edit", edit("notes.txt", "someone", "no one"), "--session", "s1", "--yes"]);
    expect(stale.code).toBe(1);
    expect(stale.stderr + stale.stdout).toContain("modified since it was read");
  });

  it("the Bash working directory carries over to the next process in the session", async () => {
    fs.mkdirSync(path.join(proj, "sub"));
    const cd = await cli(["call", "Bash", JSON.stringify({ command: "cd sub" }), "--session", "b1", "--yes"]);
    expect(cd.code, cd.stderr).toBe(0);
    const pwd = await cli(["call", "Bash", JSON.stringify({ command: "pwd" }), "--session", "b1", "--yes", "--json"]);
    expect(pwd.json().result.content[0].text.trim()).toBe(fs.realpathSync(path.join(proj, "sub")));
    const fresh = await cli(["call", "Bash", JSON.stringify({ command: "pwd" }), "--session", "b2", "--yes", "--json"]);
    expect(fresh.json().result.content[0].text.trim()).toBe(fs.realpathSync(proj));
  });

  it("session ids with odd characters or huge values are refused with exit 3 and say why", async () => {
    for (const id of ["a b", "../../etc/passwd", "x".repeat(500), "s1;rm -rf", "default"]) {
      const r = await cli(["call", "Read", JSON.stringify({ file_path: "notes.txt" }), "--session", id]);
      expect(r.code, id).toBe(3);
      expect(r.stderr).toMatch(/--session: /);
      expect(r.stdout).toBe("");
    }
    const s = await cli(["sessions", "show", "a/b"]);
    expect(s.code).toBe(3);
    expect(s.stderr).toContain('"/" is not allowed');
  });

  it("four processes reading different files in one session at once: the next process may edit every one", async () => {
    const files = ["f1.txt", "f2.txt", "f3.txt", "f4.txt"];
    for (const f of files) fs.writeFileSync(path.join(proj, f), `${f} old\n`);
    const reads = await Promise.all(files.map((f) => cli(["call", "Read", JSON.stringify({ file_path: f }), "--session", "par"])));
    expect(reads.map((r) => r.code)).toEqual([0, 0, 0, 0]);
    for (const f of files) {
      const r = await cli(["call", "Edit", edit(f, "old", "new"), "--session", "par", "--yes"]);
      expect(r.code, `${f}: ${r.stdout}${r.stderr}`).toBe(0);
    }
    const shown = (await cli(["sessions", "show", "par", "--json"])).json();
    expect(shown.filesRead.map((f: { file: string }) => path.basename(f.file)).sort()).toEqual(files);
    expect(shown.usage).toEqual({ Read: 4, Edit: 4 });
  });
});

describe("toolhost sessions", () => {
  it("list, show and remove with their --json shapes and exit codes", async () => {
    expect((await cli(["sessions", "--json"])).json()).toMatchObject({ backend: "sqlite", location: path.join(home, "sessions.db"), sessions: [] });
    await cli(["call", "Read", JSON.stringify({ file_path: "notes.txt" }), "--session", "one"]);
    await cli(["call", "Bash", JSON.stringify({ command: "true" }), "--session", "two", "--yes"]);
    const list = await cli(["sessions", "list", "--json"]);
    expect(list.code).toBe(0);
    const l = list.json();
    expect(l.sessions.map((s: { id: string }) => s.id)).toEqual(["two", "one"]);
    expect(l.sessions[1]).toMatchObject({ id: "one", version: 1, fields: { "shared:builtin-tools:files": 1, usage: 1 } });
    expect(Date.parse(l.sessions[1].updatedAt)).toBeGreaterThan(0);
    expect(Date.parse(l.sessions[1].expiresAt)).toBeGreaterThan(Date.parse(l.sessions[1].updatedAt));
    const show = (await cli(["sessions", "show", "one", "--json"])).json();
    expect(Object.keys(show)).toEqual(["id", "version", "createdAt", "updatedAt", "expiresAt", "bytes", "loadedTools", "filesRead", "cwd", "approvals", "usage", "tasks", "other"]);
    expect(show.filesRead).toEqual([expect.objectContaining({ file: path.join(fs.realpathSync(proj), "notes.txt"), size: 11 })]);
    expect(show).toMatchObject({ loadedTools: [], cwd: null, approvals: [], usage: { Read: 1 }, tasks: [] });
    const text = await cli(["sessions"]);
    expect(text.stdout).toMatch(/2 sessions in .*sessions\.db/);
    expect(text.stdout).toMatch(/one .* 1 files read/);
    expect((await cli(["sessions", "show", "nope"])).code).toBe(1);
    const rm = await cli(["sessions", "remove", "one", "--json"]);
    expect([rm.code, rm.json()]).toEqual([0, { id: "one", removed: true }]);
    expect((await cli(["sessions", "remove", "one"])).code).toBe(1);
    expect((await cli(["sessions", "list", "--json"])).json().sessions.map((s: { id: string }) => s.id)).toEqual(["two"]);
    expect((await cli(["sessions", "frobnicate"])).code).toBe(3);
    // after remove the session starts empty: Edit needs a Read again
    expect((await cli(["call", "Edit", edit("notes.txt", "alpha", "x"), "--session", "one", "--yes"])).code).toBe(1);
  });
});

describe("a store that cannot be used", () => {
  it("a corrupt sessions.db: calls still run with a loud warning and in-memory state; Edit fails closed", async () => {
    fs.writeFileSync(path.join(home, "sessions.db"), "garbage that is not SQLite ".repeat(300));
    const read = await cli(["call", "Read", JSON.stringify({ file_path: "notes.txt" }), "--session", "c1"]);
    expect(read.code).toBe(0);
    expect(read.stdout).toContain("alpha");
    expect(read.stderr).toMatch(/\[sessions\] the session store \(sqlite\) cannot be used: .*sessions\.db.*not a database/);
    expect(read.stderr).toContain("kept in memory for this process only");
    const e = await cli(["call", "Edit", edit("notes.txt", "alpha", "x"), "--session", "c1", "--yes"]);
    expect(e.code).toBe(1);
    expect(e.stdout + e.stderr).toContain("has not been read yet");
    expect(fs.readFileSync(path.join(proj, "notes.txt"), "utf8")).toBe("alpha\nbeta\n");
  });

  it("an unusable TOOLHOST_HOME (a file where the directory should be): calls run, warning once", async () => {
    const blocked = path.join(home, "blocked");
    fs.writeFileSync(blocked, "");
    const r = await cli(["call", "Read", JSON.stringify({ file_path: "notes.txt" }), "--session", "u1"], { TOOLHOST_HOME: blocked });
    expect(r.code).toBe(0);
    expect(r.stderr.match(/\[sessions\]/g)?.length).toBe(1);
  });
});
