import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createHost, definePlugin, defineTool, type Host, type Tool } from "../../core/index.ts";

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
});
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "toolhost-gen-"));

describe("a Build freezes its config and mode", () => {
  it("a call in flight reads its own generation's config, not the next one's, while host.config is current", async () => {
    const dir = tmp();
    fs.writeFileSync(path.join(dir, "toolhost.config.json"), JSON.stringify({ output: { maxChars: 111 } }));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const seen: unknown[] = [];
    const slow = { ...defineTool({ name: "slow", description: "waits", inputSchema: {}, call: async () => (await gate, "done") }), origin: "plugin", plugin: "t" } as Tool;
    const p = definePlugin({
      name: "t",
      apply(ctx) {
        ctx.hooks.build.tap("t", (b) => {
          b.hooks.collect.tap("t", (c) => c.add(slow));
          b.hooks.postToolUse.tap("t", (post) => void seen.push(post.call.config.output, b.config.output, ctx.host.config.output, post.call.generation));
        });
      },
    });
    const h = await createHost({ cwd: dir, bundled: false, plugins: [p] });
    hosts.push(h);
    const running = h.execute("slow", {}, { yes: true });
    fs.writeFileSync(path.join(dir, "toolhost.config.json"), JSON.stringify({ output: { maxChars: 222 } }));
    const r = await h.rebuild("config edited");
    expect(r.ok).toBe(true);
    release();
    await running;
    expect(seen).toEqual([{ maxChars: 111 }, { maxChars: 111 }, { maxChars: 222 }, 1]);
    expect(Object.isFrozen(seen[0])).toBe(true);
  });

  it("a rebuild that fails leaves HostView.config on the last good generation", async () => {
    const dir = tmp();
    fs.writeFileSync(path.join(dir, "toolhost.config.json"), JSON.stringify({ output: { maxChars: 5 } }));
    const h = await createHost({ cwd: dir, bundled: false });
    hosts.push(h);
    fs.writeFileSync(path.join(dir, "toolhost.config.json"), JSON.stringify({ plugins: 5, output: { maxChars: 9 } }));
    const r = await h.rebuild("broken");
    expect(r.ok).toBe(false);
    expect(h.hostConfig.output).toEqual({ maxChars: 5 });
  });
});

describe("config keys contributed by plugins (ctx.contributeConfig)", () => {
  it("a contributed key is checked against its schema after activation; an unowned key warns with a suggestion", async () => {
    const p = definePlugin({ name: "owner", apply: (ctx) => ctx.contributeConfig("myFeature", { type: "object", properties: { level: { type: "number" } } }) });
    const h = await createHost({ bundled: false, plugins: [p], config: { myFeature: { level: "high" }, myFeatur: 1 } as never });
    hosts.push(h);
    const probs = h.problems().map((x) => `${x.severity} ${x.path} ${x.message}`);
    expect(probs).toContain('error /myFeature/level must be number');
    expect(probs).toContain('warning /myFeatur unknown config key "myFeatur" is ignored (did you mean "myFeature"?)');
  });
  it("the documented lsp key is not called unknown", async () => {
    const h = await createHost({ cwd: tmp(), config: { lsp: { diagnosticsWaitMs: 500 } } as never });
    hosts.push(h);
    expect(h.problems().filter((x) => /unknown config key/.test(x.message))).toEqual([]);
  });
});
