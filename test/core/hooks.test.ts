import { describe, expect, it } from "vitest";
import { createBuildHooks, createHostHooks } from "../../core/hooks/create.ts";
import { hooksFacade } from "../../core/hooks/facade.ts";
import { BUILD_HOOKS, HOST_HOOKS } from "../../core/hooks/table.ts";
import { TRACE } from "../../core/types.ts";
import { PluginError, type ProblemReport } from "../../core/errors.ts";

type AnyHook = { name?: string; _args: string[]; call?: Function; promise?: Function; tap: Function; tapAsync?: Function; tapPromise?: Function; constructor: { name: string } };

const owners = {
  host: createHostHooks,
  build: createBuildHooks,
};
// The failure policy comes from the one table; the decisions that must fail closed are pinned here too.
const THROWING = new Set<string>([...Object.entries(HOST_HOOKS).map(([k, r]) => [`host.${k}`, r] as const), ...Object.entries(BUILD_HOOKS).map(([k, r]) => [`build.${k}`, r] as const)].filter(([, r]) => r.failure === "throw").map(([n]) => n));
it("decisions fail closed: lookup, readFilter, validateInput, deny, permission, preToolUse and call throw", () => {
  expect([...THROWING].sort()).toEqual(["build.call", "build.deny", "build.lookup", "build.permission", "build.preToolUse", "build.readFilter", "build.validateInput"]);
});

function invoke(h: AnyHook, args: unknown[]): Promise<unknown> {
  const isSync = h.constructor.name.startsWith("Sync");
  if (isSync) {
    try {
      return Promise.resolve(h.call!(...args));
    } catch (e) {
      return Promise.reject(e);
    }
  }
  return h.promise!(...args);
}

function dummyArgs(h: AnyHook): unknown[] {
  const trace: unknown[] = [];
  return h._args.map((_, i) => (i === 0 ? { value: "first", [TRACE]: trace } : { [TRACE]: trace }));
}

for (const [owner, create] of Object.entries(owners)) {
  describe(`${owner} hooks contract`, () => {
    const hooks = create(() => {}) as unknown as Record<string, AnyHook>;
    it("is frozen and every hook is named after its owner", () => {
      expect(Object.isFrozen(hooks)).toBe(true);
      expect(() => ((hooks as Record<string, unknown>).extra = 1)).toThrow();
      for (const [k, h] of Object.entries(hooks)) expect(h.name).toBe(`${owner}.${k}`);
    });

    for (const key of Object.keys(hooks)) {
      const name = `${owner}.${key}`;
      const kinds = hooks[key]!.constructor.name.startsWith("Sync") ? ["sync"] : ["sync", "async", "promise"];
      for (const kind of kinds) {
        it(`${name}: a throwing ${kind} tap is attributed to its plugin (${THROWING.has(name) ? "fail closed" : "isolated"})`, async () => {
          const problems: ProblemReport[] = [];
          const fresh = create((p) => problems.push(p)) as unknown as Record<string, AnyHook>;
          const h = fresh[key]!;
          const boom = new Error("boom");
          if (kind === "sync") h.tap("p1", () => { throw boom; });
          else if (kind === "async") h.tapAsync!("p1", (...a: unknown[]) => (a[a.length - 1] as Function)(boom));
          else h.tapPromise!("p1", async () => { throw boom; });
          const args = dummyArgs(h);
          const trace = args.length ? (args[0] as Record<symbol, unknown[]>)[TRACE] : undefined;
          if (THROWING.has(name)) {
            const err = await invoke(h, args).then(() => undefined, (e) => e);
            expect(err).toBeInstanceOf(PluginError);
            expect(err).toMatchObject({ plugin: "p1", hook: name });
            expect((err as Error).message).toBe(`[plugin p1] ${name}: boom`);
            expect((err as PluginError).cause).toBe(boom);
          } else {
            const out = await invoke(h, args);
            expect(problems).toHaveLength(1);
            expect(problems[0]).toMatchObject({ plugin: "p1", path: name, severity: "error" });
            expect(problems[0]!.message).toContain("boom");
            if (h.constructor.name.includes("Waterfall")) expect(out).toBe(args[0]);
          }
          if (trace) expect(trace.some((t) => (t as { plugin: string; outcome: string }).plugin === "p1" && (t as { outcome: string }).outcome === "error")).toBe(true);
        });
      }
    }
  });
}

describe("per-plugin facades", () => {
  it("record every tap under the plugin's id, whatever name the plugin passes", async () => {
    const problems: ProblemReport[] = [];
    const hooks = createBuildHooks((p) => problems.push(p));
    const facade = hooksFacade(hooks, "honest-id");
    facade.exclude.tap("someone-else", () => {
      throw new Error("nope");
    });
    facade.exclude.tap({ name: "x", stage: 5 } as never, () => undefined);
    expect((hooks.exclude as unknown as { taps: Array<{ name: string; stage?: number }> }).taps.map((t) => t.name)).toEqual(["honest-id", "honest-id"]);
    expect((hooks.exclude as unknown as { taps: Array<{ stage?: number }> }).taps[1]!.stage).toBe(5);
    hooks.exclude.call({ name: "T" } as never, {} as never);
    expect(problems[0]!.plugin).toBe("honest-id");
    expect(Object.isFrozen(facade)).toBe(true);
    expect((facade.exclude as { call?: unknown }).call).toBeUndefined();
  });

  it("trace records each tap's plugin, stage and outcome", async () => {
    const hooks = createBuildHooks(() => {});
    hooks.deny.tapPromise("a", async () => undefined);
    hooks.deny.tap("b", () => ({ behavior: "deny", reason: "r" }));
    const call = { [TRACE]: [] as Array<{ stage: string; plugin?: string; outcome?: string }> };
    const d = await hooks.deny.promise(call as never);
    expect(d).toMatchObject({ behavior: "deny" });
    expect(call[TRACE].map((t) => [t.stage, t.plugin, t.outcome])).toEqual([
      ["build.deny", "a", undefined],
      ["build.deny", "b", "deny"],
    ]);
  });
});
