/**
 * The SQLite backend: the store contract, then what a file on disk adds — real parallel processes
 * writing one session, a corrupt file, an unwritable directory, a reopened file keeping its data.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteStore } from "../../lib/session-store/sqlite.ts";
import { SessionStoreError } from "../../lib/session-store/types.ts";
import { storeContract } from "./contract.ts";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "toolhost-sqlite-"));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = () => path.join(root, `db${++n}`, "sessions.db");

storeContract("sqlite", {
  open: async (opts) => new SqliteStore(fresh(), opts),
  reopen: async (store, opts) => new SqliteStore(store.location!, opts),
});

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** A child process that patches one session `count` times, each a read file and a usage increment. */
function writer(file: string, tag: string, count: number): Promise<string> {
  const code = `
    const { createJiti } = require("jiti");
    const jiti = createJiti(${JSON.stringify(path.join(repo, "index.cjs"))});
    (async () => {
      const { SqliteStore } = await jiti.import(${JSON.stringify(path.join(repo, "lib/session-store/sqlite.ts"))});
      const s = new SqliteStore(${JSON.stringify(file)});
      for (let i = 0; i < ${count}; i++) await s.patch("shared", [
        { op: "set", field: "shared:files", key: "/${tag}/" + i, value: { size: i } },
        { op: "incr", field: "usage", key: "Read", by: 1 },
      ]);
      await s.close();
    })().catch((e) => { console.error(e); process.exit(1); });`;
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ["-e", code], { cwd: repo, stdio: ["ignore", "pipe", "pipe"] });
    let err = "";
    p.stderr.on("data", (d) => (err += d));
    p.on("close", (c) => (c === 0 ? resolve(tag) : reject(new Error(`writer ${tag} exited ${c}: ${err}`))));
  });
}

describe("sqlite store on disk", () => {
  it("four processes writing one session at once lose no update and leave a sound file", async () => {
    const file = fresh();
    new SqliteStore(file).close();
    await Promise.all(["a", "b", "c", "d"].map((t) => writer(file, t, 150)));
    const s = new SqliteStore(file);
    const rec = (await s.get("shared"))!;
    expect(Object.keys(rec.fields["shared:files"]!).length).toBe(600);
    expect(rec.fields.usage).toEqual({ Read: 600 });
    expect(rec.version).toBe(600);
    expect((await s.usage()).Read!.count).toBe(600);
    await s.close();
  });

  it("data survives closing and reopening the file", async () => {
    const file = fresh();
    const a = new SqliteStore(file);
    await a.patch("k", [{ op: "set", field: "loaded", key: "mcp__x__y", value: 0 }]);
    await a.close();
    const b = new SqliteStore(file);
    expect((await b.get("k"))!.fields.loaded).toEqual({ mcp__x__y: 0 });
    await b.close();
  });

  it("a corrupt file is refused with code corrupt, naming the file", () => {
    const file = fresh();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, "this is not a database, just text that someone wrote over it ".repeat(200));
    let err: unknown;
    try {
      new SqliteStore(file);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SessionStoreError);
    expect((err as SessionStoreError).code).toBe("corrupt");
    expect((err as Error).message).toContain(file);
  });

  it.skipIf(process.getuid?.() === 0)("an unwritable directory is code unavailable", () => {
    const dir = path.join(root, "ro");
    fs.mkdirSync(dir, { mode: 0o500 });
    expect(() => new SqliteStore(path.join(dir, "sessions.db"))).toThrow(/unavailable|unable to open|SQLITE_CANTOPEN/);
  });

  it("a path that cannot be a file (a directory in the way) is code unavailable", () => {
    const file = fresh();
    fs.mkdirSync(file, { recursive: true });
    let err: unknown;
    try {
      new SqliteStore(file);
    } catch (e) {
      err = e;
    }
    expect((err as SessionStoreError).code).toBe("unavailable");
  });
});
