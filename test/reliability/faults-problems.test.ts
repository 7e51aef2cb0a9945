/**
 * A plugin hook that throws on every call (issue 12, item 8): the problem list keeps one entry per
 * plugin and hook, with a count and when it last happened — not one entry per call.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createHost, definePlugin, defineTool, type Host } from "../../core/index.ts";
import { tmpdir } from "../helpers.ts";

const hosts: Host[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

const echo = defineTool({ name: "Echo", description: "echoes", isReadOnly: true, inputSchema: { type: "object", properties: { text: { type: "string" } } }, call: (i: { text?: string }) => i.text ?? "" });

describe("problems are deduplicated per plugin and hook", () => {
  it("20,000 calls through a throwing postToolUse and progress tap leave one counted entry each", async () => {
    let n = 0;
    const flaky = definePlugin({
      name: "flaky",
      apply(ctx) {
        ctx.hooks.build.tap("flaky", (b) => {
          b.hooks.collect.tap("flaky", (c) => c.add({ ...echo, origin: "plugin", plugin: "flaky" }));
          b.hooks.postToolUse.tap("flaky", () => {
            throw new Error(`post failed (call ${++n})`);
          });
          b.hooks.shape.tap("flaky", () => {
            throw new Error("shape failed");
          });
        });
        ctx.hooks.sessionToolsChanged.tap("flaky", () => {
          throw new Error("host hook failed");
        });
      },
    });
    const h = await createHost({ cwd: tmpdir(), bundled: false, plugins: [flaky] });
    hosts.push(h);
    const before = h.problems().length;
    for (let i = 0; i < 20_000; i++) {
      const o = await h.execute("Echo", { text: "hi" }, { yes: true });
      if (o.status !== "ok") throw new Error(`call ${i}: ${o.status} ${o.reason}`);
    }
    for (let i = 0; i < 50; i++) h.hooks.sessionToolsChanged.call(`s${i}`);
    const mine = h.problems().filter((p) => p.plugin === "flaky");
    expect(h.problems().length - before).toBe(3);
    const post = mine.find((p) => p.path === "build.postToolUse")!;
    expect(post).toMatchObject({ count: 20_000, message: expect.stringMatching(/post failed \(call 1\)/), lastMessage: expect.stringMatching(/post failed \(call 20000\)/) });
    expect(Date.parse(post.lastSeen!)).toBeGreaterThan(Date.now() - 600_000);
    expect(mine.find((p) => p.path === "build.shape")).toMatchObject({ count: 20_000 });
    expect(mine.find((p) => p.path === "host.sessionToolsChanged")).toMatchObject({ count: 50 });
    expect(mine.find((p) => p.path === "build.shape")!.lastMessage).toBeUndefined();
  });
});
