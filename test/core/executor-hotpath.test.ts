// The executor's hot path (direct tap dispatch for deny/permission/shape, ToolCallContext.onAbort,
// the lazily created call.data): same behaviour as tapable's promise() and an AbortSignal.
import { afterEach, describe, expect, it } from "vitest";
import { createHost, definePlugin, defineTool, type BuildView, type Host, type Tool, type ToolDefinition } from "../../core/index.ts";

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
});

async function host(defs: ToolDefinition[], extra: (b: BuildView) => void): Promise<Host> {
  const plugin = definePlugin({
    name: "t",
    apply(ctx) {
      ctx.hooks.build.tap("t", (b) => {
        b.hooks.collect.tap("t", (c) => defs.forEach((d) => c.add({ origin: "plugin", plugin: "t", ...defineTool(d) } as Tool)));
        extra(b);
      });
    },
  });
  const h = await createHost({ bundled: false, plugins: [plugin] });
  hosts.push(h);
  return h;
}
const echo: ToolDefinition = { name: "echo", description: "echo", inputSchema: { properties: { text: { type: "string" } } }, call: (i: { text: string }) => `echo ${i.text}` };
const text = (o: { result: { content: Array<{ text?: string }> } }) => o.result.content.map((c) => c.text).join("|");

describe("direct tap dispatch", () => {
  it("deny/permission: sync and promise taps run in stage order; the first answer wins; later taps do not run", async () => {
    const seen: string[] = [];
    const h = await host([echo], (b) => {
      b.hooks.permission.tap({ name: "late", stage: 10 }, () => void seen.push("late"));
      b.hooks.permission.tapPromise("p1", async (call) => {
        seen.push("p1");
        return call.input.text === "allow" ? { behavior: "allow", reason: "p1 allows" } : undefined;
      });
      b.hooks.permission.tap("s1", (call) => {
        seen.push("s1");
        return call.input.text === "deny" ? { behavior: "deny", reason: "s1 denies" } : undefined;
      });
      b.hooks.deny.tap("d", (call) => {
        seen.push("d");
        call.data.set("checked-by", "d");
        return undefined;
      });
    });
    const a = await h.execute("echo", { text: "allow" });
    expect(a.status).toBe("ok");
    expect(seen).toEqual(["d", "p1"]);
    seen.length = 0;
    const d = await h.execute("echo", { text: "deny" });
    expect(d.status).toBe("denied");
    expect(d.reason).toMatch(/s1 denies/);
    expect(seen).toEqual(["d", "p1", "s1"]);
    seen.length = 0;
    const none = await h.execute("echo", { text: "other" });
    expect(none.status).toBe("not-approved"); // nobody allowed it: an ask with no one to ask
    expect(seen).toEqual(["d", "p1", "s1", "late"]);
    // The trace still names each tap.
    expect(a.trace.filter((t) => t.stage === "build.permission").map((t) => t.plugin)).toEqual(["t"]);
  });

  it("a rejecting promise tap and a throwing sync tap both fail closed, naming the plugin", async () => {
    const h1 = await host([echo], (b) => b.hooks.permission.tapPromise("bad", async () => Promise.reject(new Error("rules unreadable"))));
    const o1 = await h1.execute("echo", { text: "x" }, { yes: true });
    expect(o1).toMatchObject({ status: "denied", plugin: "t" });
    expect(o1.reason).toMatch(/permission check failed.*rules unreadable/);
    const h2 = await host([echo], (b) => {
      b.hooks.deny.tapPromise("ok", async () => undefined);
      b.hooks.deny.tap("boom", () => {
        throw new Error("bad rule");
      });
    });
    const o = await h2.execute("echo", { text: "x" }, { yes: true });
    expect(o).toMatchObject({ status: "denied", plugin: "t" });
    expect(o.reason).toMatch(/deny check failed.*bad rule/);
  });

  it("shape: a waterfall across sync and promise taps; undefined keeps the value", async () => {
    const h = await host([echo], (b) => {
      b.hooks.shape.tap({ name: "a", stage: 1 }, (r) => ({ ...r, content: [...r.content, { type: "text", text: "a" }] }));
      b.hooks.shape.tapPromise({ name: "b", stage: 2 }, async (r) => ({ ...r, content: [...r.content, { type: "text", text: "b" }] }));
      b.hooks.shape.tap({ name: "skip", stage: 3 }, () => undefined as never);
      b.hooks.shape.tap({ name: "c", stage: 4 }, (r) => ({ ...r, content: [...r.content, { type: "text", text: "c" }] }));
    });
    expect(text(await h.execute("echo", { text: "x" }, { yes: true }))).toBe("echo x|a|b|c");
  });

  it("a callback-style (tapAsync) tap falls back to tapable and still decides in order", async () => {
    const h = await host([echo], (b) => {
      b.hooks.permission.tap("s", () => undefined);
      b.hooks.permission.tapAsync("cb", (call, done) => setTimeout(() => done(null, call.input.text === "ok" ? { behavior: "allow", reason: "cb" } : { behavior: "deny", reason: "cb says no" }), 5));
    });
    expect((await h.execute("echo", { text: "ok" })).status).toBe("ok");
    const d = await h.execute("echo", { text: "no" });
    expect(d.status).toBe("denied");
    expect(d.reason).toMatch(/cb says no/);
  });
});

describe("ToolCallContext.onAbort", () => {
  it("tells the tool once, with the reason, when the call times out; never when it completes; no signal needed", async () => {
    const told: unknown[] = [];
    let signalRead = false;
    const slow: ToolDefinition = {
      name: "slow",
      description: "slow",
      inputSchema: { properties: { ms: { type: "number" } } },
      call: (i: { ms: number }, ctx) =>
        new Promise<string>((resolve) => {
          const t = setTimeout(() => resolve("done"), i.ms);
          ctx.onAbort!((reason) => {
            told.push(reason);
            clearTimeout(t);
          });
          if (i.ms === 0) signalRead = ctx.signal.aborted; // reading the signal still works
        }),
    };
    const h = await host([slow], () => {});
    const o = await h.execute("slow", { ms: 5000 }, { yes: true, timeoutMs: 50 });
    expect(o.result.isError).toBe(true);
    expect(text(o)).toMatch(/slow was interrupted: timed out after 50 ms/);
    expect(told).toHaveLength(1);
    expect(String(told[0])).toMatch(/timed out after 50 ms/);
    expect(text(await h.execute("slow", { ms: 1 }, { yes: true, timeoutMs: 5000 }))).toBe("done");
    expect(told).toHaveLength(1);
    expect(text(await h.execute("slow", { ms: 0 }, { yes: true }))).toBe("done");
    expect(signalRead).toBe(false);
    // An interrupt from the caller's signal reaches onAbort too.
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error("Esc")), 30);
    const i = await h.execute("slow", { ms: 5000 }, { yes: true, signal: ac.signal });
    expect(text(i)).toMatch(/interrupted: Esc/);
    expect(String(told[1])).toMatch(/Esc/);
  });
});
