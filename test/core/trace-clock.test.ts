// Trace timing with one clock read per tap (core/hooks/clock.ts): a tap that follows another in one
// synchronous loop starts when that one ended, so each tap is charged its own time only — never the
// previous tap's, a failed tap's, or an await's before it. Busy waits of 40 ms against a 20 ms bound:
// what a tap is charged, not how fast anything is.
import { afterEach, describe, expect, it } from "vitest";
import { createHost, definePlugin, defineTool, type BuildView, type Host, type Tool } from "../../core/index.ts";

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
});
const busy = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};

async function host(extra: (b: BuildView) => void): Promise<Host> {
  const echo = defineTool({ name: "echo", description: "echo", inputSchema: { properties: {} }, call: () => "ok" });
  const plugin = definePlugin({
    name: "t",
    apply(ctx) {
      ctx.hooks.build.tap("t", (b) => {
        b.hooks.collect.tap("t", (c) => c.add({ ...echo, origin: "plugin", plugin: "t" } as Tool));
        extra(b);
      });
    },
  });
  const h = await createHost({ bundled: false, plugins: [plugin] });
  hosts.push(h);
  return h;
}
// Taps are attributed to their plugin ("t"), so they are told apart by order (their stages).
const pre = (trace: Array<{ stage: string; ms: number; outcome?: string }>) => trace.filter((t) => t.stage === "build.preToolUse");

describe("trace timing per tap", () => {
  it("charges each tap of one loop its own time: slow, then fast, then slow after an await, then fast", async () => {
    const h = await host((b) => {
      b.hooks.preToolUse.tap({ name: "slow", stage: 1 }, () => busy(40));
      b.hooks.preToolUse.tap({ name: "fast", stage: 2 }, () => undefined);
      b.hooks.preToolUse.tapPromise({ name: "waits", stage: 3 }, () => new Promise((r) => setTimeout(r, 40)));
      b.hooks.preToolUse.tap({ name: "after-await", stage: 4 }, () => undefined);
      b.hooks.permission.tap("allow", () => ({ behavior: "allow", reason: "test" }));
    });
    const o = await h.execute("echo", {});
    expect(o.status).toBe("ok");
    const [slow, fast, waits, afterAwait] = pre(o.trace).map((t) => t.ms);
    expect(slow).toBeGreaterThanOrEqual(38);
    expect(fast).toBeLessThan(20);
    expect(waits).toBeGreaterThanOrEqual(35);
    expect(afterAwait).toBeLessThan(20);
  });

  it("a tap after one that failed, or after one with a hook of its own inside, is charged its own time", async () => {
    const h = await host((b) => {
      b.hooks.postToolUse.tap({ name: "throws", stage: 1 }, () => {
        busy(40);
        throw new Error("boom"); // postToolUse isolates a failing tap: the others still run
      });
      b.hooks.postToolUse.tap({ name: "fast", stage: 2 }, () => undefined);
      b.hooks.postToolUse.tap({ name: "nests", stage: 3 }, (post) => {
        busy(40);
        post.call.readFilter();
        busy(40);
      });
      b.hooks.readFilter.tap("inner", () => undefined);
      b.hooks.postToolUse.tap({ name: "fast2", stage: 4 }, () => undefined);
      b.hooks.permission.tap("allow", () => ({ behavior: "allow", reason: "test" }));
    });
    const o = await h.execute("echo", {});
    const [thrown, fast, nests, fast2] = o.trace.filter((t) => t.stage === "build.postToolUse");
    expect(thrown!.outcome).toBe("error");
    expect(fast!.ms).toBeLessThan(20);
    expect(nests!.ms).toBeGreaterThanOrEqual(78);
    expect(o.trace.find((t) => t.stage === "build.readFilter")!.ms).toBeLessThan(20);
    expect(fast2!.ms).toBeLessThan(20);
  });
});
