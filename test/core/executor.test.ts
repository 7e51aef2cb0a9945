import { afterEach, describe, expect, it } from "vitest";
import { createHost, definePlugin, defineTool, type BuildView, type Host, type Tool, type ToolDefinition } from "../../core/index.ts";

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
});

function toolsPlugin(defs: Array<ToolDefinition & Partial<Tool>>, extra?: (b: BuildView) => void) {
  return definePlugin({
    name: "t",
    apply(ctx) {
      ctx.hooks.build.tap("t", (b) => {
        b.hooks.collect.tap("t", (c) => defs.forEach((d) => c.add({ origin: "plugin", plugin: "t", ...defineTool(d), ...(d.shouldDefer ? { shouldDefer: true } : {}) } as Tool)));
        extra?.(b);
      });
    },
  });
}
async function host(defs: Array<ToolDefinition & Partial<Tool>>, extra?: (b: BuildView) => void, more: Parameters<typeof createHost>[0] = {}) {
  const h = await createHost({ bundled: false, plugins: [toolsPlugin(defs, extra)], ...more });
  hosts.push(h);
  return h;
}
const echo: ToolDefinition = { name: "echo", aliases: ["say"], description: "echo", inputSchema: { properties: { text: { type: "string" }, n: { type: "number" } }, required: ["text"] }, call: (i: { text: string }) => `echo ${i.text}` };

describe("executor stages", () => {
  it("resolves aliases, validates with actionable messages, and coerces scalar types", async () => {
    const h = await host([echo]);
    expect((await h.execute("say", { text: "hi" }, { yes: true })).result.content[0]!.text).toBe("echo hi");
    const bad = await h.execute("echo", { text: 5, extra: 1 }, { yes: true });
    expect(bad.status).toBe("invalid-input");
    expect(bad.result.content[0]!.text).toBe('Invalid input for echo: unexpected field "extra" (allowed: text, n).');
    const wrong = await h.execute("echo", { text: "x", n: "abc" }, { yes: true });
    expect(wrong.result.content[0]!.text).toBe('Invalid input for echo: field "n" must be number, got the string "abc".');
    const coerced = await h.execute("echo", { text: "x", n: "5" }, { yes: true });
    expect(coerced.status).toBe("ok");
    expect(coerced.input).toEqual({ text: "x", n: 5 });
    const notObject = await h.execute("echo", [1], { yes: true });
    expect(notObject.result.content[0]!.text).toMatch(/expected a JSON object, got an array/);
    const unknown = await h.execute("ECHO", {}, { yes: true });
    expect(unknown.status).toBe("unknown-tool");
    expect(unknown.result.content[0]!.text).toMatch(/No such tool "ECHO". Did you mean "echo"\?/);
  });

  it("an undiscovered deferred tool gets an actionable error; once loaded in the session it runs", async () => {
    const h = await host([{ ...echo, name: "later", aliases: [], shouldDefer: true }], (b) => b.hooks.defer.tap("t", (t) => (t.shouldDefer ? { defer: true, reason: "shouldDefer", rule: "shouldDefer", plugin: "t" } : undefined)));
    const o = await h.execute("later", { text: "x" }, { yes: true, sessionId: "s1" });
    expect(o.status).toBe("unknown-tool");
    expect(o.result.content[0]!.text).toBe('Tool "later" is deferred and its schema is not loaded yet. Call ToolSearch with {"query": "select:later"} first, then call it again.');
    h.session("s1").load(["later"]);
    expect((await h.execute("later", { text: "x" }, { yes: true, sessionId: "s1" })).status).toBe("ok");
    expect((await h.execute("later", { text: "x" }, { yes: true, sessionId: "s2" })).status).toBe("unknown-tool");
    expect(h.visibleTools("s1").map((t) => t.name)).toEqual(["later"]);
  });

  it("a deny tap that throws fails closed and names the plugin", async () => {
    const h = await host([echo], (b) => b.hooks.deny.tap("t", () => { throw new Error("rules unreadable"); }));
    const o = await h.execute("echo", { text: "x" }, { yes: true });
    expect(o).toMatchObject({ status: "denied", decision: "deny", executed: false, plugin: "t" });
    expect(o.reason).toMatch(/fail closed.*rules unreadable/);
  });

  it("a PreToolUse rewrite is validated and deny-checked again", async () => {
    const seen: string[] = [];
    const h = await host([echo], (b) => {
      b.hooks.deny.tap("t", (call) => (seen.push(call.input.text), call.input.text === "forbidden" ? { behavior: "deny", reason: "forbidden text", rule: "echo(forbidden)" } : undefined));
      b.hooks.permission.tap("t", () => ({ behavior: "allow", reason: "ok" }));
      b.hooks.preToolUse.tap("t", (pre) => {
        if (pre.input.text === "sneaky") pre.updateInput({ text: "forbidden" }, "rewriter");
        if (pre.input.text === "broken") pre.updateInput({ nope: 1 } as never, "rewriter");
      });
    });
    const o = await h.execute("echo", { text: "sneaky" });
    expect(seen).toEqual(["sneaky", "forbidden"]);
    expect(o).toMatchObject({ status: "denied", rule: "echo(forbidden)" });
    expect((await h.execute("echo", { text: "broken" })).status).toBe("invalid-input");
  });

  it("decisions combine deny > defer > ask > allow; a hook allow never overrides an explicit ask", async () => {
    let explicit = true;
    const h = await host([echo], (b) => {
      b.hooks.permission.tap("t", () => ({ behavior: "ask", reason: "rule says ask", rule: "echo", explicit }));
      b.hooks.preToolUse.tap("t", (pre) => {
        pre.decide("allow", "looks fine", "hook-a");
        if (pre.input.text === "deny") pre.decide("deny", "nope", "hook-b");
      });
    });
    expect((await h.execute("echo", { text: "x" })).status).toBe("not-approved");
    expect((await h.execute("echo", { text: "deny" }, { yes: true })).status).toBe("blocked");
    explicit = false;
    await h.rebuild("t");
    expect((await h.execute("echo", { text: "x" })).status).toBe("ok");
  });

  it("a PreToolUse hook may substitute a result and skip the call", async () => {
    let called = 0;
    const h = await host([{ ...echo, call: () => (called++, "real") }], (b) => b.hooks.preToolUse.tap("t", (pre) => pre.substitute("cached answer", "cache")));
    const o = await h.execute("echo", { text: "x" }, { yes: true });
    expect(o).toMatchObject({ status: "ok", executed: false });
    expect(o.result.content[0]!.text).toBe("cached answer");
    expect(called).toBe(0);
  });

  it("onAsk: allowAlways reaches addPermissionRule; deny is not approved", async () => {
    const rules: string[] = [];
    const h = await host([echo], undefined, { onAsk: (req) => (req.input as { text: string }).text === "no" ? "deny" : "allowAlways" });
    h.hooks.addPermissionRule.tap("test", (u) => (rules.push(`${u.behavior}:${u.rule}`), true));
    expect((await h.execute("echo", { text: "yes" })).status).toBe("ok");
    expect(rules).toEqual(["allow:echo"]);
    expect((await h.execute("echo", { text: "no" })).status).toBe("not-approved");
  });

  it("timeouts abort the call; interrupts are honoured unless interruptBehavior is block; progress is reported", async () => {
    const slow = (ms: number) => (_: unknown, ctx: { signal: AbortSignal; progress: (m: string) => void }) =>
      new Promise<string>((res, rej) => {
        ctx.progress("started");
        const t = setTimeout(() => res("done"), ms);
        ctx.signal.addEventListener("abort", () => (clearTimeout(t), rej(ctx.signal.reason)));
      });
    const h = await host([
      { name: "slow", description: "", inputSchema: {}, timeoutMs: 50, call: slow(5000) },
      { name: "stubborn", description: "", inputSchema: {}, interruptBehavior: "block", call: slow(100) },
      { name: "polite", description: "", inputSchema: {}, call: slow(5000) },
    ]);
    const progress: string[] = [];
    const t = await h.execute("slow", {}, { yes: true, onProgress: (m) => progress.push(m) });
    expect(t.status).toBe("tool-error");
    expect(t.result.content[0]!.text).toMatch(/slow was interrupted: timed out after 50 ms/);
    expect(progress).toEqual(["started"]);
    const ac1 = new AbortController();
    setTimeout(() => ac1.abort(new Error("user pressed esc")), 20);
    expect((await h.execute("polite", {}, { yes: true, signal: ac1.signal })).result.content[0]!.text).toMatch(/interrupted: user pressed esc/);
    const ac2 = new AbortController();
    setTimeout(() => ac2.abort(new Error("user pressed esc")), 20);
    const s = await h.execute("stubborn", {}, { yes: true, signal: ac2.signal });
    expect(s.status).toBe("ok");
    expect(s.result.content.map((c) => c.text).join("\n")).toMatch(/kept running after an interrupt/);
  });

  it("batches: concurrency-safe calls overlap, others run alone, results keep call order", async () => {
    const log: string[] = [];
    const mk = (name: string, safe: boolean): ToolDefinition => ({
      name,
      description: "",
      inputSchema: { properties: { id: { type: "string" } } },
      isConcurrencySafe: safe,
      call: async (i: { id: string }) => {
        log.push(`start ${i.id}`);
        await new Promise((r) => setTimeout(r, 30));
        log.push(`end ${i.id}`);
        return i.id;
      },
    });
    const h = await host([mk("r", true), mk("w", false)]);
    const out = await h.executeBatch(
      [
        { name: "r", input: { id: "r1" } },
        { name: "r", input: { id: "r2" } },
        { name: "w", input: { id: "w1" } },
        { name: "r", input: { id: "r3" } },
      ],
      { yes: true },
    );
    expect(out.map((o) => o.result.content[0]!.text)).toEqual(["r1", "r2", "w1", "r3"]);
    expect(log.slice(0, 4)).toEqual(["start r1", "start r2", "end r1", "end r2"]);
    expect(log.slice(4)).toEqual(["start w1", "end w1", "start r3", "end r3"]);
  });

  it("every call's trace names the stages in order and one generation", async () => {
    const h = await host([echo], (b) => b.hooks.permission.tap("t", () => ({ behavior: "allow", reason: "ok" })));
    const o = await h.execute("echo", { text: "x" });
    const stages = o.trace.map((t) => t.stage);
    expect(stages.indexOf("lookup")).toBeLessThan(stages.indexOf("validate"));
    expect(stages.indexOf("validate")).toBeLessThan(stages.indexOf("build.permission"));
    expect(stages.indexOf("build.permission")).toBeLessThan(stages.indexOf("call"));
    expect(o.generation).toBe(h.pool.generation);
  });
});
