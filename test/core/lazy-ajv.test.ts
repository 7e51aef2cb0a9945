/**
 * Start-up (issue 11 item 5): ajv loads only when something is compiled. An input schema an earlier process
 * compiled (the TOOLHOST_HOME cache) is compiled on the tool's first call, not at every build, so the second
 * `toolhost tools` on an unchanged pool never loads ajv; a call still validates its input; a schema that does
 * not compile is never cached, so it still excludes its tool at build.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createHost } from "../../core/index.ts";
import { REPO, runCli, tmpdir } from "../helpers.ts";

const PRELOAD = path.join(REPO, "test/fixtures/preload/report-ajv.cjs");
const loaded = (stderr: string) => /ajv-loaded: (true|false)/.exec(stderr)?.[1];

describe("ajv is loaded only to compile", () => {
  it("the second toolhost tools loads no ajv; a call still validates its input", async () => {
    const home = tmpdir("toolhost-ajv-home-");
    const cwd = tmpdir("toolhost-ajv-proj-");
    const env = { TOOLHOST_HOME: home, NODE_OPTIONS: `--require ${PRELOAD}` };
    const first = await runCli(["tools", "--json", "--cwd", cwd], { env });
    expect(first.code).toBe(0);
    expect(loaded(first.stderr)).toBe("true");
    const second = await runCli(["tools", "--json", "--cwd", cwd], { env });
    expect(second.code).toBe(0);
    expect(second.json().tools.length).toBe(first.json().tools.length);
    expect(loaded(second.stderr)).toBe("false");
    const bad = await runCli(["call", "Read", JSON.stringify({ file_path: { nested: true } }), "--json", "--cwd", cwd], { env });
    expect(bad.code).toBe(3);
    expect(bad.json().status).toBe("invalid-input");
    expect(loaded(bad.stderr)).toBe("true");
  }, 60_000);

  it("a schema that does not compile still excludes its tool at build, every time", async () => {
    const tool = { name: "Broken", description: "x", inputSchema: { type: "object", properties: { a: { $ref: "#/definitions/missing" } } }, call: () => "ok" };
    for (let i = 0; i < 2; i++) {
      const h = await createHost({ cwd: tmpdir(), watch: false, plugins: [{ name: "p", apply: (ctx) => void ctx.hooks.build.tap("p", (b) => b.hooks.collect.tap("p", (c) => c.add({ ...tool, origin: "plugin", plugin: "p" }))) }] });
      try {
        expect(h.pool.excluded.find((x) => x.name === "Broken")?.reason).toMatch(/input schema does not compile/);
      } finally {
        await h.close();
      }
    }
  });
});
