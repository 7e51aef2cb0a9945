import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Host } from "../../core/index.ts";
import { hooksConfig, hostWith, tmpDir } from "./helpers.ts";

describe("http hooks", () => {
  let server: http.Server;
  let url = "";
  const seen: Array<{ body: any; headers: http.IncomingHttpHeaders; path: string }> = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (d) => (body += d)).on("end", () => {
        const j = JSON.parse(body);
        seen.push({ body: j, headers: req.headers, path: req.url ?? "" });
        if (req.url === "/fail") return res.writeHead(500).end("boom");
        if (req.url === "/empty") return res.writeHead(200).end();
        res.writeHead(200, { "content-type": "application/json" });
        const deny = j.tool_input.text === "bad";
        res.end(JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: deny ? "deny" : "allow", permissionDecisionReason: deny ? "the server said no" : "ok" } }));
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("POSTs the hook JSON; the JSON answer decides; headers expand only allowed env vars", async () => {
    process.env.HOOK_TOKEN = "t0ken";
    process.env.HOOK_SECRET = "must-not-leak";
    const host: Host = await hostWith(tmpDir(), {
      config: { hooks: hooksConfig("PreToolUse", [{ type: "http", url: `${url}/check`, headers: { Authorization: "Bearer ${HOOK_TOKEN}", "X-Other": "$HOOK_SECRET" }, allowedEnvVars: ["HOOK_TOKEN"] }]) },
    });
    try {
      const bad = await host.execute("Echo", { text: "bad" }, { yes: true });
      expect(bad.status).toBe("blocked");
      expect(bad.reason).toContain("the server said no");
      const last = seen.at(-1)!;
      expect(last.body).toMatchObject({ hook_event_name: "PreToolUse", tool_name: "Echo", tool_input: { text: "bad" } });
      expect(last.headers.authorization).toBe("Bearer t0ken");
      expect(last.headers["x-other"]).toBe("");
      expect(last.headers["content-type"]).toBe("application/json");
      expect((await host.execute("Echo", { text: "good" })).status).toBe("ok");
    } finally {
      delete process.env.HOOK_TOKEN;
      delete process.env.HOOK_SECRET;
      await host.close();
    }
  });

  it("non-2xx and connection errors are non-blocking unless onFailure is block; an empty 2xx is fine", async () => {
    const host: Host = await hostWith(tmpDir(), {
      config: {
        hooks: hooksConfig("PreToolUse", [
          { type: "http", url: `${url}/fail` },
          { type: "http", url: `${url}/empty` },
          { type: "http", url: "http://127.0.0.1:1/nothing-listens" },
        ]),
      },
    });
    try {
      const o = await host.execute("Echo", { text: "x" }, { yes: true });
      expect(o.status).toBe("ok");
      const t = o.trace.filter((x) => x.stage === "hook.PreToolUse") as any[];
      expect(t.map((x) => x.outcome)).toEqual(["error", "ok", "error"]);
      expect(t[0].detail.error).toContain("HTTP 500");
      expect(t[2].detail.error).toMatch(/request failed/);
    } finally {
      await host.close();
    }
    const strict: Host = await hostWith(tmpDir(), { config: { hooks: hooksConfig("PreToolUse", [{ type: "http", url: `${url}/fail`, onFailure: "block" }]) } });
    try {
      const o = await strict.execute("Echo", { text: "x" }, { yes: true });
      expect(o.status).toBe("blocked");
      expect(o.reason).toContain("HTTP 500");
    } finally {
      await strict.close();
    }
  });
});
