/**
 * `toolhost/rules` and `toolhost/adapters` are public subpaths: they load in a plain node process, expose
 * the documented functions, and a third-party plugin can build an AGENTS.md-style deny on the matcher.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const REPO = path.resolve(import.meta.dirname, "../..");
const proj = fs.mkdtempSync(path.join(os.tmpdir(), "toolhost-public-"));
fs.mkdirSync(path.join(proj, "node_modules"));
fs.symlinkSync(REPO, path.join(proj, "node_modules", "toolhost"));
fs.writeFileSync(path.join(proj, "package.json"), JSON.stringify({ name: "consumer", type: "module" }));
afterAll(() => fs.rmSync(proj, { recursive: true, force: true }));

function node(source: string): unknown {
  fs.writeFileSync(path.join(proj, "main.mjs"), source);
  return JSON.parse(execFileSync(process.execPath, ["main.mjs"], { cwd: proj, encoding: "utf8" }));
}

describe("public subpaths", () => {
  it("toolhost/rules and toolhost/adapters load in a child node process", () => {
    const out = node(`
      const rules = await import("toolhost/rules");
      const adapters = await import("toolhost/adapters");
      const fns = (m, names) => Object.fromEntries(names.map((n) => [n, typeof m[n]]));
      console.log(JSON.stringify({
        rules: fns(rules, ["parseRule", "matchesRule", "matchesHookIf", "callFacts", "readDenyFilter", "factsFor", "isReadOnlyCommand"]),
        adapters: fns(adapters, ["toAnthropicTools", "toOpenAITools"]),
      }));`) as Record<string, Record<string, string>>;
    for (const m of Object.values(out)) for (const [n, t] of Object.entries(m)) expect(t, n).toBe("function");
  }, 60_000);

  it("a third-party plugin builds an AGENTS.md-like deny on the matcher", () => {
    const out = node(`
      import { createHost, definePlugin, defineTool, DENY_STAGE_AGENTS } from "toolhost";
      import { matchesRule, parseRule } from "toolhost/rules";
      const rule = parseRule("Bash(git push:*)");
      const tool = defineTool({ name: "Bash", description: "shell", inputSchema: { properties: { command: { type: "string" } } }, call: () => "ran" });
      const plugin = definePlugin({ name: "house-rules", apply(ctx) {
        ctx.hooks.build.tap("house-rules", (b) => {
          b.hooks.collect.tap("house-rules", (c) => c.add({ ...tool, origin: "plugin", plugin: "house-rules" }));
          b.hooks.deny.tap({ name: "house-rules", stage: DENY_STAGE_AGENTS }, (call) =>
            matchesRule(rule, { toolName: call.tool?.name ?? call.requestedName, input: call.input }, { cwd: call.cwd })
              ? { behavior: "deny", reason: "house rules: no pushing" } : undefined);
        });
      } });
      const host = await createHost({ plugins: [plugin], cwd: process.cwd(), mode: "bypassPermissions" });
      const push = await host.execute("Bash", { command: "ls && git push origin main" });
      const ls = await host.execute("Bash", { command: "ls" });
      console.log(JSON.stringify({ push: push.decision, ls: ls.decision }));
      await host.close();`);
    expect(out).toEqual({ push: "deny", ls: "allow" });
  }, 60_000);
});
