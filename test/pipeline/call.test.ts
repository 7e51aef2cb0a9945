import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { definePlugin, defineTool, type Host } from "../../core/index.ts";
import { echoTool, hooksConfig, hostWith, jsonHook, text, tmpDir } from "../hooks/helpers.ts";

const hosts: Host[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});
async function start(cwd: string, opts: Parameters<typeof hostWith>[1]): Promise<Host> {
  const h = await hostWith(cwd, opts);
  hosts.push(h);
  return h;
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until aborted (or `ms`), records whether it saw the abort. */
const slow = (seen: { aborted?: boolean; reason?: unknown }, extra: Record<string, unknown> = {}) =>
  defineTool({
    name: "Slow",
    description: "waits",
    isReadOnly: true,
    inputSchema: { properties: { ms: { type: "number" } } },
    async call(i: { ms?: number }, ctx) {
      ctx.progress("started", 0);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, i.ms ?? 5000);
        ctx.signal.addEventListener("abort", () => {
          seen.aborted = true;
          seen.reason = ctx.signal.reason;
          clearTimeout(t);
          resolve();
        });
      });
      ctx.progress("done", 1);
      return "finished";
    },
    ...extra,
  });

describe("call: AbortSignal, timeout, progress", () => {
  it("an outer AbortSignal interrupts the tool, which sees its own signal aborted", async () => {
    const seen: { aborted?: boolean } = {};
    const host = await start(tmpDir(), { tools: [slow(seen)] });
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error("user pressed Esc")), 50);
    const t0 = Date.now();
    const o = await host.execute("Slow", {}, { yes: true, signal: ac.signal });
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(o.status).toBe("tool-error");
    expect(text(o)).toContain("Slow was interrupted: user pressed Esc");
    expect(seen.aborted).toBe(true);
  });

  it("a per-tool timeout (tool.timeoutMs) and a per-call timeout abort the call", async () => {
    const seen: { aborted?: boolean } = {};
    const host = await start(tmpDir(), { tools: [slow(seen, { timeoutMs: 80 })] });
    let o = await host.execute("Slow", {}, { yes: true });
    expect(text(o)).toContain("timed out after 80 ms");
    expect(seen.aborted).toBe(true);
    o = await host.execute("Slow", {}, { yes: true, timeoutMs: 30 });
    expect(text(o)).toContain("timed out after 30 ms");
    o = await host.execute("Slow", { ms: 10 }, { yes: true });
    expect(o.status).toBe("ok");
  });

  it("progress events reach onProgress and the build.progress hook, in order", async () => {
    const events: string[] = [];
    const watcher = definePlugin({
      name: "watcher",
      apply(ctx) {
        ctx.hooks.build.tap("watcher", (b) => b.hooks.progress.tap("watcher", (call, msg, f) => events.push(`hook:${call.tool?.name}:${msg}:${f}`)));
      },
    });
    const host = await start(tmpDir(), { tools: [slow({})], plugins: [watcher] });
    await host.execute("Slow", { ms: 5 }, { yes: true, onProgress: (m, f) => events.push(`cb:${m}:${f}`) });
    expect(events).toEqual(["hook:Slow:started:0", "cb:started:0", "hook:Slow:done:1", "cb:done:1"]);
  });

  it("an abort while a command hook runs kills the hook", async () => {
    const dir = tmpDir();
    const hang = path.join(dir, "hang.sh");
    fs.writeFileSync(hang, "#!/bin/sh\nsleep 30\n", { mode: 0o755 });
    const host = await start(dir, { config: { hooks: hooksConfig("PreToolUse", [{ command: hang }]) } });
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error("stop")), 100);
    const t0 = Date.now();
    const o = await host.execute("Echo", { text: "x" }, { yes: true, signal: ac.signal });
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(o.trace.find((t) => t.stage === "hook.PreToolUse")!.outcome).toBe("aborted");
  });
});

describe("parallel batches", () => {
  it("concurrency-safe calls run together, others alone; results come back in call order", async () => {
    const spans: Array<{ id: string; start: number; end: number }> = [];
    const mk = (name: string, safe: boolean) =>
      defineTool({
        name,
        description: name,
        isReadOnly: safe,
        isConcurrencySafe: safe,
        inputSchema: { properties: { id: { type: "string" } } },
        async call(i: { id: string }) {
          const start = performance.now();
          await sleep(80);
          spans.push({ id: i.id, start, end: performance.now() });
          return `result ${i.id}`;
        },
      });
    const host = await start(tmpDir(), { tools: [mk("Look", true), mk("Change", false)] });
    const calls = [
      { name: "Look", input: { id: "a" } },
      { name: "Look", input: { id: "b" } },
      { name: "Look", input: { id: "c" } },
      { name: "Change", input: { id: "d" } },
      { name: "Look", input: { id: "e" } },
      { name: "Look", input: { id: "f" } },
    ];
    const t0 = performance.now();
    const out = await host.executeBatch(calls, { yes: true });
    const total = performance.now() - t0;
    expect(out.map((o) => text(o))).toEqual(["a", "b", "c", "d", "e", "f"].map((x) => `result ${x}`));
    const s = Object.fromEntries(spans.map((x) => [x.id, x]));
    const overlap = (x: string, y: string) => s[x]!.start < s[y]!.end && s[y]!.start < s[x]!.end;
    expect(overlap("a", "b") && overlap("b", "c") && overlap("a", "c")).toBe(true);
    expect(overlap("e", "f")).toBe(true);
    for (const x of ["a", "b", "c"]) expect(s[x]!.end).toBeLessThanOrEqual(s.d!.start);
    for (const x of ["e", "f"]) expect(s[x]!.start).toBeGreaterThanOrEqual(s.d!.end);
    // three groups of ~80 ms, not six
    expect(total).toBeLessThan(6 * 80);
  });

  it("every call of a batch goes through the hooks (a PreToolUse deny hits only the matching call)", async () => {
    const dir = tmpDir();
    const deny = jsonHook(dir, "deny.sh", { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no" } });
    const host = await start(dir, {
      tools: [echoTool([], { isConcurrencySafe: true, isReadOnly: true }), defineTool({ name: "Other", description: "o", isReadOnly: true, isConcurrencySafe: true, inputSchema: { properties: {} }, call: () => "other" })],
      config: { hooks: hooksConfig("PreToolUse", [{ command: deny }], "Other") },
    });
    const out = await host.executeBatch([{ name: "Echo", input: { text: "1" } }, { name: "Other", input: {} }, { name: "Echo", input: { text: "2" } }], { yes: true });
    expect(out.map((o) => o.status)).toEqual(["ok", "blocked", "ok"]);
  });
});

describe("transcript", () => {
  it("writes one JSONL line per call with tool, input, decision, status, trace summary, generation and timestamps", async () => {
    const dir = tmpDir();
    const deny = jsonHook(dir, "deny.sh", { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "nope" } });
    const host = await start(dir, { config: { transcript: "logs/calls.jsonl", hooks: hooksConfig("PreToolUse", [{ command: deny, if: "Echo(rm *)" }]) } });
    const before = Date.now();
    await host.execute("Echo", { text: "hello" }, { yes: true, sessionId: "s1", toolUseId: "toolu_a" });
    await host.execute("Echo", { command: "rm -rf x" }, { yes: true, sessionId: "s1", toolUseId: "toolu_b" });
    await host.execute("Echo", "{text: 'repaired',}", { yes: true, sessionId: "s1", toolUseId: "toolu_c" });
    await host.executeBatch([{ name: "Echo", input: { text: "p" } }, { name: "Nope", input: {} }], { yes: true });
    const rows = fs.readFileSync(path.join(dir, "logs", "calls.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(rows).toHaveLength(5);
    const [a, b, c, , e] = rows;
    expect(a).toMatchObject({ type: "tool_call", tool: "Echo", input: { text: "hello" }, decision: "allow", status: "ok", executed: true, sessionId: "s1", toolUseId: "toolu_a", generation: 1 });
    expect(Date.parse(a.startedAt)).toBeGreaterThanOrEqual(before - 5);
    expect(Date.parse(a.endedAt)).toBeGreaterThanOrEqual(Date.parse(a.startedAt));
    expect(a.trace.map((t: any) => t.stage)).toEqual(expect.arrayContaining(["lookup", "validate", "call"]));
    expect(b).toMatchObject({ status: "blocked", decision: "deny", executed: false });
    expect(b.trace.some((t: any) => t.stage === "hook.PreToolUse" && t.outcome === "deny")).toBe(true);
    expect(c).toMatchObject({ input: { text: "repaired" }, rawInput: "{text: 'repaired',}", status: "ok" });
    expect(e).toMatchObject({ tool: "Nope", status: "unknown-tool", source: "batch" });
  });
});
