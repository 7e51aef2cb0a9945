/**
 * Telemetry (issue 16 item 4): every call's trace reaches a real OTLP/HTTP receiver on 127.0.0.1 as
 * spans — a root per call, a child per stage and per hook, with plugin, rule and decision attributes —
 * only when `telemetry.traces` is set; a receiver that is down costs one warning, never a call; the
 * per-instance metrics count calls and decisions and serve at `/metrics` on `serve --http`.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createHost, definePlugin, defineTool, type Host } from "../../core/index.ts";
import { McpServeHub, serveHttp } from "../../plugins/mcp-serve/serve.ts";
import type { TelemetryService } from "../../plugins/telemetry/index.ts";
import { tmpdir } from "../helpers.ts";
import { startReceiver, type ReceivedSpan } from "./otlp-receiver.ts";

const hosts: Host[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
  await Promise.all(closers.splice(0).map((c) => c()));
});

const echo = defineTool({ name: "Echo", description: "echoes", isReadOnly: true, inputSchema: { type: "object", properties: { n: { type: "number" } } }, call: (i: { n?: number }) => `n=${i.n}` });
const tools = definePlugin({
  name: "t",
  apply: (ctx) =>
    ctx.hooks.build.tap("t", (b) => {
      b.hooks.collect.tap("t", (c) => c.add({ ...echo, origin: "plugin", plugin: "t" }));
      b.hooks.preToolUse.tap("t", () => undefined);
    }),
});

async function start(config: Record<string, unknown>, log: string[] = []): Promise<Host> {
  const h = await createHost({ cwd: tmpdir(), config: { permissions: { allow: ["Echo"], deny: ["Bash(rm *)"] }, ...config }, plugins: [tools], logger: { error: (m) => log.push(`error ${m}`), warn: (m) => log.push(`warn ${m}`) } });
  hosts.push(h);
  return h;
}
const telemetry = (h: Host) => h.service<TelemetryService>("telemetry")!;

describe("OpenTelemetry spans over OTLP/HTTP", () => {
  it("is off by default: no spans, no metrics, nothing tapped", async () => {
    const rx = await startReceiver();
    closers.push(rx.close);
    const h = await start({});
    expect((await h.execute("Echo", { n: 1 })).status).toBe("ok");
    await telemetry(h).flush();
    expect(telemetry(h).exportStats()).toBeUndefined();
    expect(telemetry(h).metricsText()).toBeUndefined();
    expect(rx.requests).toBe(0);
  });

  it("one root span per call, children per stage and per hook, with plugin, rule and decision", async () => {
    const rx = await startReceiver();
    closers.push(rx.close);
    const h = await start({ telemetry: { traces: { endpoint: rx.url, serviceName: "toolhost-test" }, instance: "inst-a" } });
    const ok = await h.execute("Echo", { n: 7 }, { sessionId: "s1" });
    const denied = await h.execute("Bash", { command: "rm -rf /tmp/nothing-here" }, { sessionId: "s1" });
    expect(ok.status).toBe("ok");
    expect(denied.status).toBe("denied");
    await telemetry(h).flush();
    expect(rx.contentTypes.every((c) => c.startsWith("application/json"))).toBe(true);
    const roots = rx.spans.filter((s) => !s.parentSpanId);
    expect(roots.map((s) => s.name).sort()).toEqual(["toolhost.call Bash", "toolhost.call Echo"]);
    const byTrace = (r: ReceivedSpan) => rx.spans.filter((s) => s.traceId === r.traceId && s !== r);

    const echoRoot = roots.find((s) => s.name === "toolhost.call Echo")!;
    expect(echoRoot.resource).toMatchObject({ "service.name": "toolhost-test", "service.instance.id": "inst-a" });
    expect(echoRoot.attributes).toMatchObject({ "toolhost.tool": "Echo", "toolhost.decision": "allow", "toolhost.status": "ok", "toolhost.session": "s1", "toolhost.rule": "Echo", "toolhost.instance": "inst-a" });
    const kids = byTrace(echoRoot);
    // Exactly one span per trace entry, all children of the call's root.
    expect(kids.length).toBe(ok.trace.length);
    expect(kids.every((k) => k.parentSpanId === echoRoot.spanId)).toBe(true);
    expect(kids.filter((k) => k.attributes["toolhost.kind"] === "stage").map((k) => k.attributes["toolhost.stage"])).toEqual(ok.trace.filter((t) => t.plugin === "toolhost" && !t.stage.startsWith("build.")).map((t) => t.stage));
    const pre = kids.find((k) => k.attributes["toolhost.hook"] === "build.preToolUse" && k.attributes["toolhost.plugin"] === "t");
    expect(pre, "the in-process plugin's PreToolUse tap has its own span").toBeDefined();
    const allow = kids.find((k) => k.attributes["toolhost.hook"] === "build.permission" && k.attributes["toolhost.decision"] === "allow")!;
    expect(allow.attributes).toMatchObject({ "toolhost.plugin": "permissions", "toolhost.rule": "Echo", "toolhost.rule_plugin": "config" });
    for (const k of kids) {
      expect(k.start).toBeGreaterThanOrEqual(echoRoot.start - 0.001);
      expect(k.end).toBeLessThanOrEqual(echoRoot.end + 0.001);
    }

    const bashRoot = roots.find((s) => s.name === "toolhost.call Bash")!;
    expect(bashRoot.attributes).toMatchObject({ "toolhost.decision": "deny", "toolhost.status": "denied", "toolhost.rule": "Bash(rm *)", "toolhost.plugin": "config" });
    expect(bashRoot.status?.code).toBe(2); // ERROR
    const deny = byTrace(bashRoot).find((k) => k.attributes["toolhost.hook"] === "build.deny" && k.attributes["toolhost.decision"] === "deny")!;
    expect(deny.attributes).toMatchObject({ "toolhost.plugin": "permissions", "toolhost.rule": "Bash(rm *)" });
    expect(new Set([echoRoot.traceId, bashRoot.traceId]).size).toBe(2);
    expect(telemetry(h).exportStats()).toEqual({ exported: rx.spans.length, failed: 0 });
  });

  it("a receiver that is down: calls go on and the failure is said once, not per export", async () => {
    const rx = await startReceiver();
    const url = rx.url;
    await rx.close(); // nothing listens on that port now
    const log: string[] = [];
    const h = await start({ telemetry: { traces: { endpoint: url } } }, log);
    for (let i = 0; i < 5; i++) expect((await h.execute("Echo", { n: i })).status).toBe("ok");
    await telemetry(h).flush();
    for (let i = 0; i < 5; i++) expect((await h.execute("Echo", { n: i })).status).toBe("ok");
    await telemetry(h).flush();
    const warnings = log.filter((l) => /telemetry: cannot export/.test(l));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(url);
    expect(telemetry(h).exportStats()!.failed).toBeGreaterThan(0);
  });

  it("a bad telemetry config names the key and path", async () => {
    const h = await start({ telemetry: { traces: { endpoint: "localhost:4318" }, metric: true } });
    const msgs = h.problems().map((p) => `${p.path}: ${p.message}`).join("\n");
    expect(msgs).toMatch(/\/telemetry: must NOT have additional properties/);
    expect(msgs).toMatch(/\/telemetry\/traces\/endpoint: must match pattern/);
  });
});

describe("per-instance metrics", () => {
  it("counts calls and decisions, with latency histograms, and serves them at /metrics", async () => {
    const h = await start({ telemetry: { metrics: true, instance: "inst-m" } });
    for (let i = 0; i < 3; i++) await h.execute("Echo", { n: i });
    await h.execute("Bash", { command: "rm -rf /nothing" });
    const m = telemetry(h).metrics()!;
    expect(m.value("toolhost_calls_total", { tool: "Echo", status: "ok" })).toBe(3);
    expect(m.value("toolhost_calls_total", { tool: "Bash", status: "denied" })).toBe(1);
    expect(m.value("toolhost_decisions_total", { decision: "deny", plugin: "config" })).toBe(1);
    const hub = new McpServeHub(h, { log: () => {} });
    const srv = await serveHttp(hub, 0, "127.0.0.1", { idleMs: 0 });
    closers.push(srv.close);
    const res = await fetch(srv.url.replace(/\/mcp$/, "/metrics"));
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('toolhost_info{instance="inst-m"} 1');
    expect(text).toContain('toolhost_calls_total{tool="Echo",status="ok"} 3');
    expect(text).toMatch(/toolhost_call_duration_seconds_bucket\{tool="Echo",le="\+Inf"\} 3/);
    expect(text).toMatch(/toolhost_call_duration_seconds_count\{tool="Echo"\} 3/);
    expect(text).toMatch(/toolhost_hook_duration_seconds_count\{hook="build.deny",plugin="permissions"\} \d+/);
  });

  it("/metrics says how to turn metrics on when they are off", async () => {
    const h = await start({});
    const srv = await serveHttp(new McpServeHub(h, { log: () => {} }), 0, "127.0.0.1", { idleMs: 0 });
    closers.push(srv.close);
    const res = await fetch(srv.url.replace(/\/mcp$/, "/metrics"));
    expect(res.status).toBe(404);
    expect(await res.text()).toMatch(/telemetry\.metrics/);
  });
});
