/**
 * Usage-driven deferral (issue 18 item 3) end to end from a real session store (lib/session-store's
 * MemoryStore, written as the sessions plugin writes it: `incr` on field "usage" per call): session
 * frequency, suggestions, the opt-in "apply" policy, the user's always-load override, trust-gated promotion
 * and the ToolSearch scope setting.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createHost, definePlugin, type Host, type HostOptions, type LoadedPlugin, type Tool } from "../../core/index.ts";
import { MemoryStore, type SessionStore } from "../../lib/session-store/index.ts";
import toolSearchPlugin from "../../plugins/tool-search/index.ts";
import { DeferralPolicy, readSettings } from "../../plugins/tool-search/policy.ts";
import { MemoryUsage, suggest, USAGE_SERVICE, type UsageReport, type UsageReportService } from "../../plugins/tool-search/index.ts";
import { fakeMcpPlugin, fakeTool, GITHUB, SLACK, type FakeTool } from "./fixtures.ts";

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
});
const tmpdir = () => fs.mkdtempSync(path.join(os.tmpdir(), "toolhost-usage-"));

/** The sessions plugin's "sessions.usage" service over a store: counts() and sessionCounts() (list + per-session usage). */
function sessionsPlugin(store: SessionStore) {
  return definePlugin({
    name: "fake-sessions",
    apply(ctx) {
      ctx.provide(USAGE_SERVICE, {
        counts: (o?: { sessionId?: string }) => store.usage(o),
        async sessionCounts() {
          const list = await store.list();
          const tools: Record<string, number> = {};
          for (const s of list) for (const name of Object.keys(await store.usage({ sessionId: s.id }))) tools[name] = (tools[name] ?? 0) + 1;
          return { sessions: list.length, tools };
        },
      });
    },
  });
}

/** n sessions; session i calls each tool of `used(i)` once. */
async function record(store: SessionStore, n: number, used: (i: number) => string[]): Promise<void> {
  for (let i = 0; i < n; i++) {
    const ops = used(i).map((key) => ({ op: "incr" as const, field: "usage", key, by: 1 }));
    await store.patch(`s${i}`, ops.length ? ops : [{ op: "set", field: "shared", key: "x", value: 1 }]);
  }
}

const G = (n: string) => `mcp__github__${n}`;
const BIG: FakeTool = { server: "github", name: "huge_report", description: "A report tool. " + "Lots of text about every option. ".repeat(200), alwaysLoad: true };

async function host(store: SessionStore, tools: FakeTool[], config: Record<string, unknown> = {}, opts: Partial<HostOptions> = {}): Promise<Host> {
  const h = await createHost({ cwd: tmpdir(), bundled: false, plugins: [toolSearchPlugin, sessionsPlugin(store), fakeMcpPlugin("fake-mcp", () => tools)], config, ...opts });
  hosts.push(h);
  return h;
}

const report = (h: Host) => h.service<UsageReportService>("tool-search.usage")!.report();

describe("usage counts and suggestions from the session store", () => {
  it("tools --usage data: session frequency per tool; promote > half of sessions, defer rarely used large tools", async () => {
    const store = new MemoryStore();
    // 10 sessions: list_issues in 8, create_issue in 5 (exactly half: not more), merge in 1, huge_report in none
    await record(store, 10, (i) => [...(i < 8 ? [G("list_issues")] : []), ...(i < 5 ? [G("create_issue")] : []), ...(i === 0 ? [G("merge_pull_request")] : [])]);
    const h = await host(store, [...GITHUB, BIG]);
    const r: UsageReport = await report(h);
    expect(r.sessions).toBe(10);
    expect(r.tools.find((t) => t.name === G("list_issues"))).toMatchObject({ status: "deferred", sessions: 8, share: 0.8, calls: 8 });
    expect(r.tools[0]!.name).toBe(G("list_issues"));
    expect(r.suggestions.map((s) => [s.action, s.tool])).toEqual([
      ["always-load", G("list_issues")],
      ["defer", G("huge_report")],
    ]);
    expect(r.suggestions[1]!.reason).toMatch(/0 of 10 sessions .* tokens every turn/);
    // suggest is the default policy: nothing moved
    expect(h.explain(G("list_issues"))).toMatchObject({ status: "deferred" });
    expect(h.explain(G("huge_report"))).toMatchObject({ status: "loaded", rule: "tool: alwaysLoad" });
    const text = h.service<UsageReportService>("tool-search.usage")!.text(r);
    expect(text).toMatch(/mcp__github__list_issues\s+deferred\s+8 \(80%\)/);
    expect(text).toMatch(/always load mcp__github__list_issues: used in 8 of 10 sessions/);
  });

  it('policy "apply" follows the suggestions at build, and explain names the usage rule', async () => {
    const store = new MemoryStore();
    await record(store, 6, (i) => (i < 4 ? [G("list_issues")] : []));
    const h = await host(store, [...GITHUB, BIG], { toolSearch: { usage: { policy: "apply" } } });
    expect(h.explain(G("list_issues"))).toMatchObject({ status: "loaded", rule: "toolSearch.usage: promote" });
    expect(h.explain(G("list_issues")).reason).toMatch(/used in 4 of 6 sessions/);
    expect(h.explain(G("huge_report"))).toMatchObject({ status: "deferred", rule: "toolSearch.usage: defer" });
    expect(h.explain(G("create_issue"))).toMatchObject({ status: "deferred", rule: "mcp: deferred by default" });
  });

  it("the user's toolSearch.alwaysLoad override wins over a usage deferral; too few sessions suggest nothing", async () => {
    const store = new MemoryStore();
    await record(store, 6, () => []);
    const h = await host(store, [...GITHUB, BIG], { toolSearch: { alwaysLoad: [G("huge_report")], usage: { policy: "apply" } } });
    expect(h.explain(G("huge_report"))).toMatchObject({ status: "loaded", rule: `toolSearch.alwaysLoad: ${G("huge_report")}` });
    expect((await report(h)).suggestions[0]).toMatchObject({ action: "defer", tool: G("huge_report"), blocked: expect.stringMatching(/listed in toolSearch.alwaysLoad/) });
    const few = new MemoryStore();
    await record(few, 2, () => [G("list_issues")]);
    const r = await report(await host(few, GITHUB, { toolSearch: { usage: { policy: "apply", minSessions: 5 } } }));
    expect(r.suggestions).toEqual([]);
    expect(r.note).toMatch(/2 sessions known, fewer than toolSearch.usage.minSessions \(5\)/);
  });

  it("without session frequency (calls only) nothing is promoted, and it says so; without a store, a warning under apply", async () => {
    const callsOnly = definePlugin({ name: "calls-only", apply: (ctx) => ctx.provide(USAGE_SERVICE, { counts: async () => ({ [G("list_issues")]: { count: 50, lastUsed: 1 } }) }) });
    const h = await createHost({ cwd: tmpdir(), bundled: false, plugins: [toolSearchPlugin, callsOnly, fakeMcpPlugin("fake-mcp", () => GITHUB)], config: { toolSearch: { usage: { policy: "apply" } } } });
    hosts.push(h);
    const r = await report(h);
    expect(r.tools.find((t) => t.name === G("list_issues"))).toMatchObject({ calls: 50, sessions: null });
    expect(r.note).toMatch(/session frequency unavailable/);
    expect(h.explain(G("list_issues"))).toMatchObject({ status: "deferred" });
    const none = await createHost({ cwd: tmpdir(), bundled: false, plugins: [toolSearchPlugin, fakeMcpPlugin("fake-mcp", () => GITHUB)], config: { toolSearch: { usage: { policy: "apply" } } } });
    hosts.push(none);
    expect(none.problems().map((p) => p.message).join("\n")).toMatch(/no session store provides usage counts/);
    expect((await report(none)).source).toMatch(/no session store/);
  });

  it("bad usage settings are warnings naming the key, and fall back", async () => {
    const h = await host(new MemoryStore(), GITHUB, { toolSearch: { usage: { policy: "always", promoteAbove: 3 }, scope: "some" } });
    const msgs = h.problems().map((p) => `${p.plugin} ${p.path} ${p.message}`).join("\n");
    expect(msgs).toMatch(/tool-search \/toolSearch toolSearch.usage.policy must be "off", "suggest" or "apply"/);
    expect(msgs).toMatch(/toolSearch.usage.promoteAbove must be a number from 0 to 1/);
    expect(msgs).toMatch(/toolSearch.scope must be one of "all", "mcp_only", "builtins_only", "none"/);
  });

  it("MemoryUsage (no store) counts sessions per tool; suggest is deterministic", async () => {
    const m = new MemoryUsage();
    for (let i = 0; i < 6; i++) m.record(`s${i}`, "A", 3);
    m.record("s0", "B");
    const snap = await m.snapshot();
    expect(snap).toMatchObject({ sessions: 6, tools: { A: { calls: 18, sessions: 6 }, B: { calls: 1, sessions: 1 } } });
    const view = { tools: [{ name: "A", deferred: true, tokens: 10, deferrable: true }, { name: "B", deferred: true, tokens: 10, deferrable: true }] };
    expect(suggest(snap, view, { policy: "suggest", promoteAbove: 0.5, deferBelow: 0.05, largeTokens: 1000, minSessions: 5 }).suggestions.map((s) => s.tool)).toEqual(["A"]);
  });
});

describe("policy-gated deferral: a tool whose trust class is not confirmed stays deferred", () => {
  const lp = (id: string, kind: LoadedPlugin["kind"], source: string) => ({ id, kind, source: { kind: source, path: "/x" } }) as unknown as LoadedPlugin;
  const tool = (plugin: string, extra: Partial<FakeTool> = {}): Tool => fakeTool({ server: "s", name: "t", description: "d", alwaysLoad: true, ...extra }, plugin);

  it("an outside plugin's alwaysLoad tool is deferred until pluginTrust grants it; a bundled or config one loads", () => {
    const p = new DeferralPolicy(readSettings({} as never, []));
    p.plugins = [lp("outside", "plugin", "npm"), lp("inbox", "plugin", "bundled"), lp("config", "config", "config")];
    let granted = false;
    p.trust = { workspaceTrusted: () => false, pluginGranted: () => granted };
    expect(p.alwaysLoad(tool("outside"))).toBeUndefined();
    expect(p.policy(tool("outside"))).toMatchObject({ defer: true, rule: "trust: unconfirmed", reason: expect.stringMatching(/plugin outside \(npm\) has no pluginTrust grant/) });
    expect(p.alwaysLoad(tool("inbox"))).toMatchObject({ defer: false, rule: "tool: alwaysLoad" });
    expect(p.alwaysLoad(tool("config"))).toMatchObject({ defer: false });
    granted = true;
    expect(p.alwaysLoad(tool("outside"))).toMatchObject({ defer: false, rule: "tool: alwaysLoad" });
  });

  it("a workspace source (.mcp.json) confirms with workspace trust; the user's alwaysLoad list is the override", () => {
    const p = new DeferralPolicy(readSettings({ toolSearch: { alwaysLoad: ["mcp__s__listed"] } } as never, []));
    p.plugins = [lp("mcpjson", "mcpjson", "settings")];
    let trusted = false;
    p.trust = { workspaceTrusted: () => trusted, pluginGranted: () => false };
    expect(p.policy(tool("mcpjson", { extra: { serverConfig: { alwaysLoad: true } }, alwaysLoad: false }))).toMatchObject({ rule: "trust: unconfirmed", reason: expect.stringMatching(/workspace's, which is not trusted/) });
    expect(p.alwaysLoad(tool("mcpjson", { name: "listed" }))).toMatchObject({ defer: false, rule: "toolSearch.alwaysLoad: mcp__s__listed" });
    trusted = true;
    expect(p.alwaysLoad(tool("mcpjson"))).toMatchObject({ defer: false });
  });
});

describe("toolSearch.scope", () => {
  const tools: FakeTool[] = [...SLACK, { server: "", name: "BigBuiltin", description: "big", origin: "plugin", shouldDefer: true }];
  const run = async (scope?: string) => {
    const h = await host(new MemoryStore(), tools, scope ? { toolSearch: { scope } } : {});
    return { mcp: h.explain("mcp__slack__send_message").status, builtin: h.explain("BigBuiltin").status, search: h.pool.byName.has("ToolSearch") };
  };
  it("all (default), mcp_only, builtins_only, none", async () => {
    expect(await run()).toEqual({ mcp: "deferred", builtin: "deferred", search: true });
    expect(await run("all")).toEqual({ mcp: "deferred", builtin: "deferred", search: true });
    expect(await run("mcp_only")).toEqual({ mcp: "deferred", builtin: "loaded", search: true });
    expect(await run("builtins_only")).toEqual({ mcp: "loaded", builtin: "deferred", search: true });
    expect(await run("none")).toEqual({ mcp: "loaded", builtin: "loaded", search: false });
  });
});
