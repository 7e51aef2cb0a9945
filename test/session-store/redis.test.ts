/**
 * The Redis backend against a real redis-server (Debian's package) on a free 127.0.0.1 port: the shared
 * backend contract, and Redis going down and coming back under a live store.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../lib/session-store/index.ts";
import { openRedisStore, redactUrl, type RedisStore } from "../../lib/session-store/redis.ts";
import { SessionStoreError } from "../../lib/session-store/types.ts";
import { need, startRedis, type RedisServer } from "../fleet/servers.ts";
import { storeContract } from "./contract.ts";

const bin = need("redis-server");
const skip = typeof bin !== "string";
let redis: RedisServer;
beforeAll(async () => {
  if (!skip) redis = await startRedis(bin as string);
});
afterAll(async () => {
  await redis?.stop();
});

const prefixes = new WeakMap<object, string>();
describe.skipIf(skip)("redis", () => {
  storeContract("redis", {
    async open(opts) {
      const prefix = `t${randomUUID().slice(0, 8)}:`;
      const s = await openRedisStore({ ...opts, url: redis.url, prefix });
      prefixes.set(s, prefix);
      return s;
    },
    async reopen(store, opts) {
      const prefix = prefixes.get(store)!;
      const s = await openRedisStore({ ...opts, url: redis.url, prefix });
      prefixes.set(s, prefix);
      return s;
    },
  });

  it("openStore chooses it by config; without a url, or with nothing listening, it is unavailable, naming the server", async () => {
    const s = await openStore({ backend: "redis", url: redis.url, prefix: "cfg:" }, { home: "/nonexistent" });
    expect(s.backend).toBe("redis");
    expect(s.location).toBe(redis.url);
    await s.close();
    await expect(openStore({ backend: "redis" }, { home: "/x" })).rejects.toMatchObject({ code: "unavailable", message: expect.stringMatching(/sessions\.url/) });
    expect(redactUrl("redis://user:s3cret@127.0.0.1:6379/2")).toBe("redis://127.0.0.1:6379/2");
    await expect(openRedisStore({ url: "redis://127.0.0.1:1", timeoutMs: 500 })).rejects.toMatchObject({ code: "unavailable", message: expect.stringMatching(/127\.0\.0\.1:1/) });
  });

  it("non-ASCII keys and values are sized as the other backends size them (UTF-16 units)", async () => {
    const s = await openRedisStore({ url: redis.url, prefix: `u${randomUUID().slice(0, 8)}:` });
    await s.patch("s", [{ op: "set", field: "shared:files", key: "/tmp/é😀", value: "ü😀" }]);
    const r = (await s.get("s"))!;
    expect(r.fields).toEqual({ "shared:files": { "/tmp/é😀": "ü😀" } });
    expect(r.bytes).toBe("/tmp/é😀".length + JSON.stringify("ü😀").length);
    await s.close();
  });

  it("Redis down mid-run: calls fail at once with code unavailable (no hang); back up, the same store works again", async () => {
    const s: RedisStore = await openRedisStore({ url: redis.url, prefix: `d${randomUUID().slice(0, 8)}:`, timeoutMs: 1000 });
    await s.patch("a", [{ op: "set", field: "loaded", key: "mcp__x__y", value: 0 }]);
    await redis.stop();
    const e = await s.patch("a", [{ op: "set", field: "loaded", key: "mcp__x__z", value: 1 }]).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(SessionStoreError);
    expect((e as SessionStoreError).code).toBe("unavailable");
    expect((e as SessionStoreError).message).toContain(`127.0.0.1:${redis.port}`);
    await expect(s.get("a")).rejects.toMatchObject({ code: "unavailable" });
    await redis.restart();
    // It reconnects by itself; a restarted Redis without persistence is empty (the fleet doc says so).
    let ok = false;
    for (let i = 0; i < 100 && !ok; i++) {
      ok = await s.patch("a", [{ op: "set", field: "loaded", key: "mcp__x__z", value: 1 }]).then(() => true, () => false);
      if (!ok) await new Promise((r) => setTimeout(r, 50));
    }
    expect(ok).toBe(true);
    expect((await s.get("a"))!.fields.loaded).toEqual({ mcp__x__z: 1 });
    await s.close();
  });
});
