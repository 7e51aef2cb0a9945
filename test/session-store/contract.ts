/**
 * The contract every SessionStore backend passes (lib/session-store/types.ts). A backend's test file calls
 * `storeContract("sqlite", factory)`; `factory.open(opts)` makes a store on fresh, empty storage and
 * `factory.reopen(store, opts)` a second handle on the same storage (a second process, another connection).
 */
import { afterEach, describe, expect, it } from "vitest";
import { SessionStoreError, type SessionStore, type StoreOptions } from "../../lib/session-store/types.ts";

export interface StoreFactory {
  open(opts?: StoreOptions): Promise<SessionStore>;
  /** A second handle on the storage of `store` (same file / server / MemoryData). */
  reopen(store: SessionStore, opts?: StoreOptions): Promise<SessionStore>;
}

async function code(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(SessionStoreError);
    return (e as SessionStoreError).code;
  }
}

export function storeContract(name: string, factory: StoreFactory): void {
  describe(`session store contract: ${name}`, () => {
    const opened: SessionStore[] = [];
    const open = async (o?: StoreOptions) => {
      const s = await factory.open(o);
      opened.push(s);
      return s;
    };
    const reopen = async (s: SessionStore, o?: StoreOptions) => {
      const r = await factory.reopen(s, o);
      opened.push(r);
      return r;
    };
    afterEach(async () => {
      for (const s of opened.splice(0)) await s.close().catch(() => {});
    });

    it("a missing session is undefined; set, get, delete and clear work per key", async () => {
      const s = await open();
      expect(await s.get("s1")).toBeUndefined();
      const r1 = await s.patch("s1", [
        { op: "set", field: "loaded", key: "mcp__x__a", value: 0 },
        { op: "set", field: "shared", key: "cwd", value: "/tmp/x" },
        { op: "set", field: "shared:files", key: "/a", value: { mtimeMs: 1, size: 2, hash: "h" } },
      ]);
      expect(r1.version).toBe(1);
      const rec = (await s.get("s1"))!;
      expect(rec.id).toBe("s1");
      expect(rec.version).toBe(1);
      expect(rec.fields).toEqual({ loaded: { mcp__x__a: 0 }, shared: { cwd: "/tmp/x" }, "shared:files": { "/a": { mtimeMs: 1, size: 2, hash: "h" } } });
      expect(rec.bytes).toBeGreaterThan(0);
      expect(rec.createdAt).toBeLessThanOrEqual(rec.updatedAt);
      const r2 = await s.patch("s1", [{ op: "delete", field: "shared", key: "cwd" }, { op: "clear", field: "loaded" }]);
      expect(r2.version).toBe(2);
      expect((await s.get("s1"))!.fields).toEqual({ "shared:files": { "/a": { mtimeMs: 1, size: 2, hash: "h" } } });
      // an empty patch changes nothing
      expect((await s.patch("s1", [])).version).toBe(2);
      expect((await s.get("s1"))!.version).toBe(2);
    });

    it("a value read back is a copy: changing it changes nothing stored", async () => {
      const s = await open();
      const v = { list: [1, 2] };
      await s.patch("c", [{ op: "set", field: "f", key: "k", value: v }]);
      v.list.push(3);
      const got = (await s.get("c"))!;
      (got.fields.f!.k as { list: number[] }).list.push(4);
      expect((await s.get("c"))!.fields.f!.k).toEqual({ list: [1, 2] });
    });

    it("concurrent patches to different keys of one session all survive (two handles)", async () => {
      const a = await open();
      const b = await reopen(a);
      await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).patch("shared-1", [{ op: "set", field: "shared:files", key: `/f${i}`, value: i }])));
      const rec = (await a.get("shared-1"))!;
      expect(Object.keys(rec.fields["shared:files"]!).length).toBe(40);
      expect(rec.version).toBe(40);
      expect((await b.get("shared-1"))!.fields).toEqual(rec.fields);
    });

    it("incr is exact under concurrency and feeds the usage totals, which outlive the session", async () => {
      const a = await open();
      const b = await reopen(a);
      await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).patch(`u${i % 3}`, [{ op: "incr", field: "usage", key: "Read", by: 1 }])));
      await a.patch("u0", [{ op: "incr", field: "usage", key: "Bash", by: 2 }]);
      const totals = await b.usage();
      expect(totals.Read!.count).toBe(50);
      expect(totals.Bash!.count).toBe(2);
      expect(totals.Read!.lastUsed).toBeGreaterThan(0);
      const u0 = await a.usage({ sessionId: "u0" });
      expect(u0.Read!.count).toBe(17);
      expect(u0.Bash!.count).toBe(2);
      expect(await a.remove("u0")).toBe(true);
      expect(await a.remove("u0")).toBe(false);
      expect(await a.usage({ sessionId: "u0" })).toEqual({});
      expect((await a.usage()).Read!.count).toBe(50);
      // incr on another field does not count as usage
      await a.patch("u1", [{ op: "incr", field: "other", key: "Read", by: 5 }]);
      expect((await a.usage()).Read!.count).toBe(50);
      expect((await a.get("u1"))!.fields.other).toEqual({ Read: 5 });
    });

    it("ifVersion: compare-and-set refuses a writer that read an older version", async () => {
      const a = await open();
      const b = await reopen(a);
      expect(await code(a.patch("v", [{ op: "set", field: "f", key: "k", value: 1 }], { ifVersion: 3 }))).toBe("conflict");
      await a.patch("v", [{ op: "set", field: "f", key: "k", value: 1 }], { ifVersion: 0 });
      const seen = (await b.get("v"))!.version;
      await a.patch("v", [{ op: "set", field: "f", key: "k", value: 2 }], { ifVersion: seen });
      expect(await code(b.patch("v", [{ op: "set", field: "f", key: "k", value: 3 }], { ifVersion: seen }))).toBe("conflict");
      expect((await b.get("v"))!.fields.f).toEqual({ k: 2 });
      expect(await code(a.patch("v", [{ op: "set", field: "f", key: "k", value: 9 }], { ifVersion: 0 }))).toBe("conflict");
    });

    it("list: live sessions, most recently updated first, with key counts; remove", async () => {
      let t = 1_000_000;
      const s = await open({ now: () => t });
      for (const id of ["a", "b", "c"]) {
        t += 10;
        await s.patch(id, [{ op: "set", field: "f", key: "k", value: id }, { op: "set", field: "g", key: "x", value: 1 }, { op: "set", field: "g", key: "y", value: 2 }]);
      }
      t += 10;
      await s.patch("a", [{ op: "set", field: "f", key: "k", value: "again" }]);
      const l = await s.list();
      expect(l.map((x) => x.id)).toEqual(["a", "c", "b"]);
      expect(l[0]).toMatchObject({ id: "a", version: 2, fields: { f: 1, g: 2 } });
      expect(l[0]!.updatedAt).toBe(t);
      expect((await s.list({ limit: 1 })).map((x) => x.id)).toEqual(["a"]);
      expect(await s.remove("c")).toBe(true);
      expect((await s.list()).map((x) => x.id)).toEqual(["a", "b"]);
      expect(await s.get("c")).toBeUndefined();
    });

    it("expiry: a session not written for ttlMs is gone; writing keeps it alive; sweep deletes", async () => {
      let t = 5_000_000;
      const s = await open({ ttlMs: 1000, now: () => t });
      await s.patch("old", [{ op: "set", field: "f", key: "k", value: 1 }]);
      await s.patch("kept", [{ op: "set", field: "f", key: "k", value: 1 }]);
      expect((await s.get("old"))!.expiresAt).toBe(t + 1000);
      t += 600;
      await s.patch("kept", [{ op: "set", field: "f", key: "k", value: 2 }]);
      t += 600;
      expect(await s.get("old")).toBeUndefined();
      expect((await s.get("kept"))!.fields.f).toEqual({ k: 2 });
      expect((await s.list()).map((x) => x.id)).toEqual(["kept"]);
      // an expired session written again starts fresh
      await s.patch("old", [{ op: "set", field: "g", key: "k", value: 1 }]);
      expect((await s.get("old"))!).toMatchObject({ version: 1, fields: { g: { k: 1 } } });
      t += 5000;
      expect(await s.sweep()).toBe(2);
      expect(await s.list()).toEqual([]);
    });

    it("size limit: a patch that would exceed maxSessionBytes is refused whole; maxSessions evicts the least recently updated", async () => {
      let t = 1;
      const s = await open({ maxSessionBytes: 200, maxSessions: 3, now: () => ++t });
      await s.patch("big", [{ op: "set", field: "f", key: "a", value: "x".repeat(100) }]);
      expect(await code(s.patch("big", [{ op: "set", field: "f", key: "b", value: "y".repeat(50) }, { op: "set", field: "f", key: "c", value: "z".repeat(100) }]))).toBe("too-large");
      expect((await s.get("big"))!.fields.f).toEqual({ a: "x".repeat(100) });
      expect((await s.get("big"))!.version).toBe(1);
      // replacing a value counts the new size, not both
      await s.patch("big", [{ op: "set", field: "f", key: "a", value: "w".repeat(150) }]);
      expect((await s.get("big"))!.bytes).toBeLessThanOrEqual(200);
      for (const id of ["s2", "s3", "s4"]) await s.patch(id, [{ op: "set", field: "f", key: "k", value: 1 }]);
      const ids = (await s.list()).map((x) => x.id);
      expect(ids).toEqual(["s4", "s3", "s2"]);
      expect(await s.get("big")).toBeUndefined();
    });

    it("session ids with odd characters or huge values are refused with code bad-id; malformed ops with bad-op", async () => {
      const s = await open();
      for (const id of ["", "../etc", "a b", "a\nb", "x".repeat(129), "ü", "-lead", "a/b", "a\u0000"]) {
        expect(await code(s.get(id)), JSON.stringify(id)).toBe("bad-id");
        expect(await code(s.patch(id, [{ op: "set", field: "f", key: "k", value: 1 }])), JSON.stringify(id)).toBe("bad-id");
      }
      for (const id of ["s1", "A-b_c.d:e@f", "x".repeat(128), "7f3e0c2a-1b2c-4d5e-8f90-123456789abc"]) expect(await code(s.patch(id, [{ op: "set", field: "f", key: "k", value: 1 }]))).toBeUndefined();
      expect(await code(s.patch("s1", [{ op: "set", field: "", key: "k", value: 1 }]))).toBe("bad-op");
      expect(await code(s.patch("s1", [{ op: "incr", field: "usage", key: "k", by: Number.NaN }]))).toBe("bad-op");
      expect(await code(s.patch("s1", [{ op: "set", field: "f", key: "k", value: undefined as never }]))).toBe("bad-op");
    });

    it("version(): 0 for none, the record's version, another handle's writes seen; expired is 0 (the per-call freshness check)", async () => {
      let t = 1_000_000;
      const s = await open({ ttlMs: 1000, now: () => t });
      const other = await reopen(s, { ttlMs: 1000, now: () => t });
      expect(await s.version!("v1")).toBe(0);
      await s.patch("v1", [{ op: "set", field: "f", key: "k", value: 1 }]);
      expect(await s.version!("v1")).toBe(1);
      await other.patch("v1", [{ op: "set", field: "f", key: "j", value: 2 }]);
      expect(await s.version!("v1")).toBe(2);
      expect(await code(s.version!("a b"))).toBe("bad-id");
      t += 2000;
      expect(await s.version!("v1")).toBe(0);
      if (s.sync) {
        // the synchronous face: the same records; the stamp moves on another connection's commit only
        const st = s.sync.stamp();
        s.sync.patch("v2", [{ op: "set", field: "f", key: "k", value: 1 }]);
        expect(s.sync.stamp()).toBe(st);
        expect(s.sync.version("v2")).toBe(1);
        expect(s.sync.get("v2")!.fields.f).toEqual({ k: 1 });
        await other.patch("v2", [{ op: "set", field: "f", key: "k", value: 3 }]);
        expect(s.sync.stamp()).not.toBe(st);
        expect(s.sync.get("v2")).toMatchObject({ version: 2, fields: { f: { k: 3 } } });
      }
    });

    it("a closed store refuses calls with code closed", async () => {
      const s = await open();
      await s.close();
      expect(await code(s.get("s1"))).toBe("closed");
    });
  });
}
