/** End to end through a real host: rules from config, settings files and plugin manifests; modes; exclusion; allow always. */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { definePlugin, type Host } from "../../core/index.ts";
import { calls, hostWith, tempProject, toolsPlugin } from "./helpers.ts";

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
});
async function host(...args: Parameters<typeof hostWith>): Promise<Host> {
  const h = await hostWith(...args);
  hosts.push(h);
  return h;
}

describe("decisions through host.execute", () => {
  it("deny, ask and allow rules decide; allowed calls run, others do not", async () => {
    const dir = tempProject({ ".env": "S=1", "src/a.ts": "x" });
    const h = await host(dir, { deny: ["Bash(rm *)", "Read(.env)"], ask: ["Bash(git push *)"], allow: ["Bash(npm test)"] });
    calls.length = 0;
    const ok = await h.execute("Bash", { command: "npm test && git status" });
    expect(ok).toMatchObject({ status: "ok", decision: "allow", executed: true, rule: "Bash(npm test)", plugin: "config" });
    expect(calls).toEqual([{ tool: "Bash", input: { command: "npm test && git status" } }]);

    const denied = await h.execute("Bash", { command: "npm test; ls | xargs rm" });
    expect(denied).toMatchObject({ status: "denied", decision: "deny", executed: false, rule: "Bash(rm *)", plugin: "config" });
    expect(denied.reason).toMatch(/deny rule "Bash\(rm \*\)"/);

    const cat = await h.execute("Bash", { command: "cat a/../.env" });
    expect(cat).toMatchObject({ status: "denied", rule: "Read(.env)" });

    const ask = await h.execute("Bash", { command: "git push origin main" });
    expect(ask).toMatchObject({ status: "not-approved", decision: "ask", rule: "Bash(git push *)" });

    const approved = await h.execute("Bash", { command: "git push origin main" }, { onAsk: () => "allow" });
    expect(approved).toMatchObject({ status: "ok", executed: true });
    expect(calls).toHaveLength(2);

    const read = await h.execute("Read", { file_path: "src/a.ts" });
    expect(read).toMatchObject({ status: "ok", decision: "allow" });
    const outside = await h.execute("Read", { file_path: "/etc/hostname" });
    expect(outside).toMatchObject({ status: "not-approved", decision: "ask" });
  });

  it("the trace shows the permissions plugin deciding at the deny and permission stages", async () => {
    const dir = tempProject();
    const h = await host(dir, { deny: ["Bash(rm *)"] });
    const o = await h.execute("Bash", { command: "rm x" }, { dryRun: true });
    expect(o.trace.find((t) => t.stage === "build.deny" && t.plugin === "permissions")).toMatchObject({ outcome: "deny" });
    const o2 = await h.execute("Bash", { command: "ls" }, { dryRun: true });
    expect(o2.trace.filter((t) => t.stage === "build.permission" && t.plugin === "permissions").map((t) => t.outcome)).toContain("allow");
  });

  it("modes: plan denies edits, bypassPermissions allows but keeps deny rules, dontAsk denies asks, acceptEdits allows edits", async () => {
    const dir = tempProject({ "src/a.ts": "x" });
    const h = await host(dir, { deny: ["Bash(rm *)"], ask: ["Bash(git push *)"] }, { mode: "plan" });
    expect(await h.execute("Edit", { file_path: "src/a.ts" }, { dryRun: true })).toMatchObject({ decision: "deny", rule: "mode: plan" });
    expect(await h.execute("Read", { file_path: "src/a.ts" }, { dryRun: true })).toMatchObject({ decision: "allow" });

    h.setMode("bypassPermissions");
    await h.rebuild("mode");
    expect(await h.execute("Edit", { file_path: "src/a.ts" }, { dryRun: true })).toMatchObject({ decision: "allow", rule: "mode: bypassPermissions" });
    expect(await h.execute("Bash", { command: "rm -rf src" }, { dryRun: true })).toMatchObject({ decision: "deny", rule: "Bash(rm *)" });
    expect(await h.execute("Bash", { command: "git push" }, { dryRun: true })).toMatchObject({ decision: "ask", rule: "Bash(git push *)" });

    h.setMode("dontAsk");
    await h.rebuild("mode");
    expect(await h.execute("Edit", { file_path: "src/a.ts" }, { dryRun: true })).toMatchObject({ decision: "deny", status: "denied" });
    expect(await h.execute("Bash", { command: "git push" }, { dryRun: true })).toMatchObject({ decision: "deny" });

    h.setMode("acceptEdits");
    await h.rebuild("mode");
    expect(await h.execute("Edit", { file_path: "src/a.ts" }, { dryRun: true })).toMatchObject({ decision: "allow", rule: "mode: acceptEdits" });
    expect(await h.execute("Edit", { file_path: ".git/config" }, { dryRun: true })).toMatchObject({ decision: "ask", rule: "protected path" });
  });

  it("an explicit ask rule is not skipped by a PreToolUse hook's allow; a rewrite is deny-checked again", async () => {
    const dir = tempProject();
    const hooks = definePlugin({
      name: "test-hooks",
      apply(ctx) {
        ctx.hooks.build.tap("test-hooks", (build) => {
          build.hooks.preToolUse.tap("test-hooks", (pre) => {
            pre.decide("allow", "hook says fine", "test-hooks");
            if (pre.input.command === "make clean") pre.updateInput({ command: "rm -rf /" }, "test-hooks");
          });
        });
      },
    });
    const h = await host(dir, { ask: ["Bash(git push *)"], deny: ["Bash(rm *)"] }, { plugins: [toolsPlugin(), hooks] });
    expect(await h.execute("Bash", { command: "git push" }, { dryRun: true })).toMatchObject({ decision: "ask", status: "not-approved" });
    expect(await h.execute("Bash", { command: "make clean" }, { dryRun: true })).toMatchObject({ decision: "deny", rule: "Bash(rm *)" });
  });
});

describe("pool phase", () => {
  it("a blanket deny removes the tool; explain names the rule, the plugin and the file", async () => {
    const dir = tempProject({ ".claude/settings.json": JSON.stringify({ permissions: { deny: ["WebSearch", "mcp__github", "Bash(rm *)"] } }) });
    const h = await host(dir, {});
    const names = h.pool.tools.map((t) => t.name);
    expect(names).not.toContain("WebSearch");
    expect(names).not.toContain("mcp__github__get_issue");
    expect(names).toContain("mcp__db__query");
    expect(names).toContain("Bash"); // a scoped deny keeps the tool
    const file = path.join(dir, ".claude", "settings.json");
    expect(h.explain("WebSearch")).toMatchObject({ status: "excluded", rule: "WebSearch", plugin: "settings:project", file });
    expect(h.explain("mcp__github__create_issue")).toMatchObject({ status: "excluded", rule: "mcp__github", plugin: "settings:project", file });
    expect(h.explain("WebSearch").reason).toMatch(/\/permissions\/deny\/0/);
    const o = await h.execute("WebSearch", { query: "x" });
    expect(o).toMatchObject({ status: "denied", rule: "WebSearch", plugin: "settings:project", file });
  });
});

describe("allow always", () => {
  it("adds narrowed session rules that survive rebuilds", async () => {
    const dir = tempProject({ "src/a.ts": "x" });
    const h = await host(dir, {});
    const first = await h.execute("Bash", { command: "npm run build && npm test" }, { onAsk: () => "allowAlways", dryRun: true });
    expect(first).toMatchObject({ status: "dry-run", decision: "ask" });
    await h.rebuild("after allow always");
    expect(await h.execute("Bash", { command: "npm test" }, { dryRun: true })).toMatchObject({ decision: "allow", plugin: "session", rule: "Bash(npm test)" });
    expect(await h.execute("Bash", { command: "npm run build" }, { dryRun: true })).toMatchObject({ decision: "allow" });
    // Narrow: other commands still ask.
    expect(await h.execute("Bash", { command: "npm publish" }, { dryRun: true })).toMatchObject({ decision: "ask", status: "not-approved" });
    await h.rebuild("again");
    expect(await h.execute("Bash", { command: "npm test" }, { dryRun: true })).toMatchObject({ decision: "allow" });

    await h.execute("Edit", { file_path: "src/a.ts" }, { onAsk: () => "allowAlways", dryRun: true });
    expect(await h.execute("Edit", { file_path: "src/a.ts" }, { dryRun: true })).toMatchObject({ decision: "allow", plugin: "session" });
    expect(await h.execute("Edit", { file_path: "src/b.ts" }, { dryRun: true })).toMatchObject({ decision: "ask" });
  });

  it("applies at once, before the rebuild", async () => {
    const dir = tempProject();
    const h = await host(dir, {}, { debounceMs: 10_000 });
    await h.execute("Bash", { command: "make" }, { onAsk: () => "allowAlways", dryRun: true });
    expect(await h.execute("Bash", { command: "make" }, { dryRun: true })).toMatchObject({ decision: "allow" });
  });
});

describe("rule sources and problems", () => {
  it("reads settings:project and settings:local, anchors /path to the project, reports bad rules with file and index", async () => {
    const dir = tempProject({
      ".claude/settings.json": JSON.stringify({ permissions: { deny: ["Read(/secrets/**)", "Bash(rm *"], ask: ["Frobnicate"], allow: ["mcp__*", "*"] } }),
      ".claude/settings.local.json": JSON.stringify({ permissions: { deny: ["Bash(command:rm)"], allow: ["Bash(make *)"] } }),
      "secrets/k": "k",
    });
    const h = await host(dir, {});
    const probs = h.problems().filter((p) => p.plugin.startsWith("settings:"));
    const file = path.join(dir, ".claude", "settings.json");
    expect(probs).toContainEqual(expect.objectContaining({ plugin: "settings:project", file, path: "/permissions/deny/1", severity: "error", message: expect.stringMatching(/missing the closing "\)"/) }));
    expect(probs).toContainEqual(expect.objectContaining({ plugin: "settings:project", path: "/permissions/ask/0", severity: "warning", message: expect.stringMatching(/unknown tool "Frobnicate"/) }));
    expect(probs).toContainEqual(expect.objectContaining({ path: "/permissions/allow/0", severity: "warning", message: expect.stringMatching(/skipped/) }));
    expect(probs).toContainEqual(expect.objectContaining({ path: "/permissions/allow/1", severity: "warning" }));
    expect(probs).toContainEqual(expect.objectContaining({ plugin: "settings:local", path: "/permissions/deny/0", severity: "warning", message: expect.stringMatching(/primary field/) }));
    expect(await h.execute("Read", { file_path: "secrets/k" }, { dryRun: true })).toMatchObject({ decision: "deny", plugin: "settings:project", file });
    expect(await h.execute("Bash", { command: "make all" }, { dryRun: true })).toMatchObject({ decision: "allow", plugin: "settings:local" });
    // The broken rule does not take the others down; the host still runs.
    expect(await h.execute("Bash", { command: "ls" }, { dryRun: true })).toMatchObject({ decision: "allow" });
  });

  it("runs rule examples at load time and reports a failing one loudly (plugin, file, JSON path, rule, example)", async () => {
    const dir = tempProject();
    const plug = path.join(dir, "plug");
    fs.mkdirSync(plug);
    const manifest = path.join(plug, "toolhost.plugin.json");
    fs.writeFileSync(
      manifest,
      JSON.stringify({
        name: "guard-rules",
        permissions: {
          deny: ["Bash(git push --force *)", "Read(.env)"],
          tests: [
            { rule: "Bash(git push --force *)", match: ["git push -f origin main", "git fetch && git push --force", { tool: "Bash", input: { command: "sudo git push --force" } }], not_match: ["git push origin main"] },
            { rule: "Read(.env)", match: ["sub/.env", "a/../.env"], not_match: [".env.example"] },
            { rule: "Bash(npm *)", match: ["npx something"] },
          ],
        },
      }),
    );
    const h = await host(dir, {}, { pluginDirs: [plug] });
    const errors = h.problems().filter((p) => p.severity === "error");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ plugin: "guard-rules", file: manifest, path: "/permissions/tests/2/match/0" });
    expect(errors[0]!.message).toMatch(/RULE EXAMPLE FAILED: allow rule "Bash\(npm \*\)" should match "npx something"/);
    // The plugin's rules apply, with the plugin as provenance.
    expect(await h.execute("Bash", { command: "git push -f" }, { dryRun: true })).toMatchObject({ decision: "deny", plugin: "guard-rules", file: manifest });
  });

  it("config examples that pass report nothing", async () => {
    const dir = tempProject();
    const h = await host(dir, { deny: ["WebFetch(domain:*.evil.com)"], tests: [{ rule: "WebFetch(domain:*.evil.com)", match: ["a.evil.com", "https://x.y.evil.com/p"], not_match: ["evil.com"] }] });
    expect(h.problems().filter((p) => p.plugin === "config")).toEqual([]);
  });
});
