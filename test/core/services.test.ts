import { afterEach, describe, expect, it } from "vitest";
import { createHost, definePlugin, defineTool, type Host, type Tool } from "../../core/index.ts";

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
});

describe("plugin services (ctx.provide / host.service)", () => {
  it("one plugin reads another's live object by name, per host; it is withdrawn when the provider goes", async () => {
    const seen: unknown[] = [];
    const provider = definePlugin({ name: "provider", apply: (ctx) => ctx.provide("demo.counter", { n: 41 }) });
    const consumer = definePlugin({
      name: "consumer",
      apply(ctx) {
        ctx.hooks.build.tap("consumer", () => seen.push(ctx.host.service<{ n: number }>("demo.counter")?.n));
      },
    });
    const rival = definePlugin({ name: "rival", apply: (ctx) => ctx.provide("demo.counter", { n: 0 }) });
    const h = await createHost({ bundled: false, plugins: [provider, consumer, rival] });
    hosts.push(h);
    expect(seen).toEqual([41]);
    expect(h.problems().find((p) => p.plugin === "rival")?.message).toMatch(/already provided by plugin provider/);
    const other = await createHost({ bundled: false, plugins: [consumer] });
    hosts.push(other);
    expect(seen).toEqual([41, undefined]);
    await h.close();
    let after: unknown = "unset";
    const late = definePlugin({ name: "late", apply: (ctx) => void (after = ctx.host.service("demo.counter")) });
    const h2 = await createHost({ bundled: false, plugins: [late] });
    hosts.push(h2);
    expect(after).toBeUndefined();
  });
});

describe("the workingDirectory facet", () => {
  it("is computed once per input into CallState.workingDirectory, defaulting to cwd", async () => {
    const dirs: string[] = [];
    const shell = { ...defineTool({ name: "sh", description: "sh", inputSchema: { properties: { dir: { type: "string" } } }, call: () => "ok" }), origin: "plugin", plugin: "t", workingDirectory: (i: { dir?: string }) => i.dir } as Tool;
    const plain = { ...defineTool({ name: "plain", description: "plain", inputSchema: {}, call: () => "ok" }), origin: "plugin", plugin: "t" } as Tool;
    const p = definePlugin({
      name: "t",
      apply(ctx) {
        ctx.hooks.build.tap("t", (b) => {
          b.hooks.collect.tap("t", (c) => (c.add(shell), c.add(plain)));
          b.hooks.deny.tap("t", (call) => void dirs.push(call.workingDirectory));
        });
      },
    });
    const h = await createHost({ bundled: false, plugins: [p], cwd: "/tmp" });
    hosts.push(h);
    await h.execute("sh", { dir: "/var" }, { yes: true });
    await h.execute("sh", {}, { yes: true });
    await h.execute("plain", {}, { yes: true });
    expect(dirs).toEqual(["/var", "/tmp", "/tmp"]);
  });
});
