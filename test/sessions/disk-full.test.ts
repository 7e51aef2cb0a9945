/**
 * A full disk under the session store (a real 512 KB tmpfs, mounted when the test runs as root — CI does; skipped
 * with a message otherwise): the store refuses the write with code unavailable, the call still succeeds, one loud
 * warning names the file, and the session keeps its state in memory.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost } from "../../core/index.ts";
import { tmpdir, until } from "../helpers.ts";

const mnt = tmpdir("toolhost-full-");
let mounted = false;
beforeAll(() => {
  if (process.platform !== "linux" || process.getuid?.() !== 0) return;
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=512k", "tmpfs", mnt], { stdio: "pipe" });
    mounted = true;
  } catch (e) {
    console.warn(`disk-full test skipped: cannot mount a tmpfs (${(e as Error).message.split("\n")[0]})`);
  }
});
afterAll(() => {
  if (mounted) execFileSync("umount", [mnt]);
});

describe("session store on a full disk", () => {
  it("a write that finds the disk full is one warning; the call succeeds and the session goes on in memory", async (t) => {
    if (!mounted) return t.skip();
    const proj = tmpdir();
    for (let i = 0; i < 40; i++) fs.writeFileSync(path.join(proj, `f${i}.txt`), `${i}\n`);
    const db = path.join(mnt, "sessions.db");
    const warnings: string[] = [];
    const h = await createHost({ cwd: proj, trustWorkspace: true, logger: { warn: (m) => warnings.push(m) }, config: { sessions: { backend: "sqlite", path: db } } });
    try {
      expect((await h.execute("Read", { file_path: "f0.txt" }, { sessionId: "full" })).status).toBe("ok");
      // fill what is left of the disk
      const fd = fs.openSync(path.join(mnt, "filler"), "w");
      try {
        for (;;) fs.writeSync(fd, Buffer.alloc(16 * 1024, 1));
      } catch (e) {
        expect((e as NodeJS.ErrnoException).code).toBe("ENOSPC");
      } finally {
        fs.closeSync(fd);
      }
      for (let i = 1; i < 40; i++) expect((await h.execute("Read", { file_path: `f${i}.txt` }, { sessionId: "full" })).status).toBe("ok");
      // the read records are written behind (sessions.writeBehindMs): the refused write is said when it is flushed
      await until(() => warnings.some((w) => w.includes("[sessions]")));
      for (let i = 0; i < 40; i += 7) await h.execute("Read", { file_path: `f${i}.txt`, offset: 2 }, { sessionId: "full" });
      await new Promise((r) => setTimeout(r, 300)); // another flush, refused again: still one warning
      const mine = warnings.filter((w) => w.includes("[sessions]"));
      expect(mine).toHaveLength(1);
      expect(mine[0]).toMatch(/session full could not be saved to .*sessions\.db: .*(full|SQLITE_FULL|IOERR)/i);
      expect((await h.execute("Edit", { file_path: "f39.txt", old_string: "39", new_string: "x" }, { sessionId: "full", yes: true })).status).toBe("ok");
    } finally {
      await h.close();
    }
  });
});
