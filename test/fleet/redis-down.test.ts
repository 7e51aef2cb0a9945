/**
 * Redis down mid-run under real hosts (sessions plugin + Redis store, a real redis-server): calls go on
 * with a loud warning and in-memory state; what depends on stored state fails closed (another instance
 * cannot restore the read state, so Edit asks for a new Read); once Redis is back, saving works again.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, resultText, type Host } from "../../core/index.ts";
import { tmpdir } from "../helpers.ts";
import { need, startRedis, type RedisServer } from "./servers.ts";

const bin = need("redis-server");
const skip = typeof bin !== "string";
let redis: RedisServer;
beforeAll(async () => {
  if (!skip) redis = await startRedis(bin as string);
});
afterAll(async () => {
  await redis?.stop();
});

describe.skipIf(skip)("Redis down mid-run", () => {
  it("warns once, keeps serving from memory, fails closed elsewhere, and saves again once Redis is back", async () => {
    const dir = tmpdir("toolhost-redis-down-");
    const file = path.join(dir, "a.txt");
    fs.writeFileSync(file, "one\ntwo\n");
    const logs: string[] = [];
    const mk = (name: string) =>
      createHost({ cwd: dir, watch: false, config: { permissions: { allow: ["Edit"] }, sessions: { backend: "redis", url: redis.url, prefix: "down:", instanceId: name } }, logger: { warn: (m) => logs.push(`${name} ${m}`), error: (m) => logs.push(`${name} ${m}`) } });
    const a: Host = await mk("a");
    try {
      expect((await a.execute("Read", { file_path: file }, { sessionId: "r1" })).status).toBe("ok");
      await redis.stop();
      // Instance a goes on from memory: its own read state is still there.
      const edit = await a.execute("Edit", { file_path: file, old_string: "one", new_string: "uno" }, { sessionId: "r1" });
      expect(edit.status, resultText(edit.result)).toBe("ok");
      expect((await a.execute("Read", { file_path: file }, { sessionId: "r1" })).status).toBe("ok");
      const saveWarnings = logs.filter((l) => l.startsWith("a ") && /could not be saved/.test(l));
      expect(saveWarnings.length, logs.join("\n")).toBe(1); // loud, once per kind
      expect(saveWarnings[0]).toContain(`127.0.0.1:${redis.port}`);
      // Instance b cannot restore r1: it fails closed (Edit needs a new Read), with a warning of its own.
      const b = await mk("b");
      try {
        const e2 = await b.execute("Edit", { file_path: file, old_string: "two", new_string: "dos" }, { sessionId: "r1" });
        expect(e2.status).not.toBe("ok");
        expect(resultText(e2.result)).toMatch(/read/i);
        expect(logs.some((l) => l.startsWith("b ") && /session store|could not be read/.test(l)), logs.join("\n")).toBe(true);
        expect(fs.readFileSync(file, "utf8")).toBe("uno\ntwo\n");
      } finally {
        await b.close();
      }
      await redis.restart();
      let saved = false;
      for (let i = 0; i < 100 && !saved; i++) {
        await a.execute("Read", { file_path: file, offset: 1, limit: 1 + (i % 2) }, { sessionId: "r1" });
        const s = await (await import("../../lib/session-store/redis.ts")).openRedisStore({ url: redis.url, prefix: "down:" }).catch(() => undefined);
        saved = !!(await s?.get("r1").catch(() => undefined));
        await s?.close();
        if (!saved) await new Promise((r) => setTimeout(r, 50));
      }
      expect(saved, "a call after Redis came back saved the session again").toBe(true);
    } finally {
      await a.close();
    }
  });
});
