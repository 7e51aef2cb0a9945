// Tool names that are also Object.prototype's keys ("toString", "constructor"): rules on them match like any
// other name. TOOL_ALIASES was a plain object, so canonicalTool("toString") returned Object.prototype.toString —
// a deny rule on a plugin tool named "toString" never matched (the call fell through to an ask or an allow).
import { afterEach, describe, expect, it } from "vitest";
import { createHost, definePlugin, defineTool, type Host, type Tool } from "../../core/index.ts";
import { canonicalTool, TOOL_ALIASES } from "../../lib/rules/index.ts";
import { EXEC_THROUGH, EXEC_THROUGH2, READERS, WRITERS } from "../../lib/rules/commands.ts";
import { BACKENDS } from "../../lib/session-store/index.ts";

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
});

describe("tool names that are Object.prototype keys", () => {
  it("canonicalTool and TOOL_ALIASES know only their own names", () => {
    for (const n of ["toString", "constructor", "valueOf", "hasOwnProperty", "__proto__"]) {
      expect(canonicalTool(n)).toBe(n);
      expect(TOOL_ALIASES[n]).toBeUndefined();
    }
    expect(canonicalTool("Task")).toBe("Agent");
    // the shell analyser's and the session store's tables, indexed by a command or backend name from outside
    for (const table of [EXEC_THROUGH, EXEC_THROUGH2, READERS, WRITERS, BACKENDS] as Array<Record<string, unknown>>) for (const n of ["toString", "constructor", "valueOf", "__proto__"]) expect(table[n]).toBeUndefined();
  });

  it("a deny rule on a tool named toString denies it; an allow rule on constructor allows it", async () => {
    const tools = ["toString", "constructor"].map((name) => defineTool({ name, description: name, inputSchema: { properties: {} }, call: () => `${name} ran` }));
    const plugin = definePlugin({
      name: "proto-tools",
      apply(ctx) {
        ctx.hooks.build.tap("proto-tools", (b) => b.hooks.collect.tap("proto-tools", (c) => tools.forEach((t) => c.add({ ...t, origin: "plugin", plugin: "proto-tools" } as Tool))));
      },
    });
    const h = await createHost({ bundled: true, plugins: [plugin], config: { permissions: { deny: ["toString"], allow: ["constructor", "toString"] } } });
    hosts.push(h);
    const denied = await h.execute("toString", {});
    expect(denied.decision).toBe("deny");
    expect(denied.executed).toBe(false);
    expect(denied.rule).toBe("toString");
    const allowed = await h.execute("constructor", {});
    expect(allowed.status).toBe("ok");
    expect(allowed.rule).toBe("constructor");
  });
});
