/**
 * host.execute never throws for bad input (issue 12, item 9): a seeded fuzz run of malformed library
 * calls — names that are not strings, inputs that are not objects, nested 20,000 deep, cyclic, Proxies
 * and getters that throw, options of the wrong type — each ends with an outcome that says what was
 * wrong, within a deadline (no hang). Builtin tools run as dry runs; one in-process tool runs for real.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, definePlugin, defineTool, type ExecuteOutcome, type Host } from "../../core/index.ts";
import { tmpdir } from "../helpers.ts";
import { seededRandom as prng } from "../helpers.ts";

const SEED = 0x5eed12;
const CALLS = 3000;
const STATUSES = new Set(["ok", "tool-error", "denied", "blocked", "not-approved", "unknown-tool", "invalid-input", "dry-run"]);


const nest = (n: number, arr: boolean) => {
  let o: unknown = arr ? [] : {};
  for (let i = 0; i < n; i++) o = arr ? [o] : { a: o };
  return o;
};

function generators(rnd: () => number) {
  const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const scalar = (): unknown =>
    pick<() => unknown>([
      () => undefined, () => null, () => NaN, () => -0, () => Infinity, () => 2 ** 53 + 1, () => BigInt(Math.floor(rnd() * 1e6)),
      () => Symbol("s"), () => () => 1, () => "", () => "x".repeat(Math.floor(rnd() * 5000)), () => "\u0000\ud800", () => true,
      () => new Date(NaN), () => new Map([[1, 2]]), () => new Uint8Array(3), () => /re/g, () => new Error("e"), () => Promise.resolve(1),
    ])();
  const value = (depth = 0): unknown => {
    const r = rnd();
    if (depth > 3 || r < 0.4) return scalar();
    if (r < 0.6) return Array.from({ length: Math.floor(rnd() * 4) }, () => value(depth + 1));
    const o: Record<string, unknown> = {};
    for (let i = Math.floor(rnd() * 4); i > 0; i--) o[pick(["command", "file_path", "pattern", "content", "__proto__", "constructor", "x", "text"])] = value(depth + 1);
    return o;
  };
  const input = (): unknown =>
    pick<() => unknown>([
      () => value(),
      () => nest(20_000, false),
      () => nest(20_000, true),
      () => ({ command: nest(300 + Math.floor(rnd() * 3000), rnd() < 0.5) }),
      () => {
        const c: Record<string, unknown> = { command: "true" };
        c[pick(["self", "command", "x"])] = rnd() < 0.5 ? c : [c];
        return c;
      },
      () => ({
        get command() {
          throw new Error("getter");
        },
      }),
      () => new Proxy({}, { get: () => { throw new Error("proxy get"); }, ownKeys: () => { throw new Error("proxy keys"); }, getPrototypeOf: () => { throw new Error("proxy proto"); } }),
      () => new Proxy({ command: "true" }, { get: (t, k) => (k === "command" ? rnd() : Reflect.get(t, k)) }),
      () => Object.create(null),
      () => ({ command: "echo hi", description: value(), timeout: scalar(), run_in_background: scalar() }),
      () => ({ file_path: scalar(), offset: scalar(), limit: scalar() }),
      () => ({ text: value() }),
    ])();
  const name = (): unknown =>
    pick<() => unknown>([
      () => pick(["Bash", "Read", "Write", "Edit", "Glob", "Grep", "TaskOutput", "TaskStop", "ToolSearch", "Echo", "echo", "NoSuchTool", "", "mcp__x__y", "__proto__", "constructor"]),
      () => "Echo",
      () => scalar(),
      () => ({ name: "Bash" }),
      () => ["Bash"],
    ])();
  const opts = (): unknown =>
    pick<() => unknown>([
      () => undefined, () => null, () => 7, () => "opts",
      () => ({}),
      () => ({ sessionId: scalar() }),
      () => ({ toolUseId: scalar() }),
      () => ({ signal: pick([{}, 5, "s", new AbortController().signal, AbortSignal.abort()]) }),
      () => ({ maxOutputChars: scalar(), timeoutMs: scalar() }),
      () => ({ onAsk: scalar(), onProgress: scalar() }),
    ])();
  return { name, input, opts, pick };
}

let host: Host;
beforeAll(async () => {
  const echo = defineTool({ name: "Echo", description: "echoes text", isReadOnly: true, inputSchema: { type: "object", properties: { text: {} } }, call: (i: { text?: unknown }) => String(typeof i.text === "string" ? i.text : "") });
  host = await createHost({ cwd: tmpdir(), plugins: [definePlugin({ name: "fuzz-echo", apply: (ctx) => ctx.hooks.build.tap("fuzz-echo", (b) => b.hooks.collect.tap("fuzz-echo", (c) => c.add({ ...echo, origin: "plugin", plugin: "fuzz-echo" }))) })] });
});
afterAll(() => host?.close());

function deadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([p, new Promise<T>((_, rej) => (t = setTimeout(() => rej(new Error(`hang: ${what} did not answer within ${ms} ms`)), ms)))]).finally(() => clearTimeout(t));
}

describe(`host.execute with ${CALLS} malformed calls (seed ${SEED.toString(16)})`, () => {
  it("never throws, never hangs, and every outcome says what happened", async () => {
    const rnd = prng(SEED);
    const g = generators(rnd);
    const tally = new Map<string, number>();
    for (let i = 0; i < CALLS; i++) {
      const name = g.name();
      const input = g.input();
      const o = g.opts() as Record<string, unknown> | undefined;
      // builtin tools only as dry runs: a fuzzed Bash command must never run; Echo runs for real
      const opts = name === "Echo" ? o : { ...(o && typeof o === "object" ? o : {}), dryRun: true };
      let out: ExecuteOutcome;
      try {
        out = await deadline(host.execute(name as string, input, opts as never), 10_000, `call ${i}`);
      } catch (e) {
        throw new Error(`call ${i} (seed ${SEED}) threw: ${(e as Error).message}\nname: ${String(typeof name === "symbol" ? "symbol" : name)}`);
      }
      expect(STATUSES.has(out.status), `call ${i}: status ${out.status}`).toBe(true);
      expect(typeof out.tool).toBe("string");
      if (out.status !== "ok" && out.status !== "dry-run") expect(typeof out.reason === "string" || out.result.content.length > 0, `call ${i}: no reason`).toBe(true);
      tally.set(out.status, (tally.get(out.status) ?? 0) + 1);
    }
    console.log(`fuzz-calls: ${CALLS} calls, outcomes ${JSON.stringify(Object.fromEntries(tally))}`);
    expect(tally.get("invalid-input")).toBeGreaterThan(100);
    expect(tally.get("unknown-tool")).toBeGreaterThan(100);
  });

  it("names the problem: non-string name, 20,000-deep and cyclic input, unreadable input, bad options", async () => {
    const reason = async (name: unknown, input: unknown, opts?: unknown) => (await host.execute(name as string, input, opts as never)).reason ?? "";
    expect(await reason(42, {})).toBe("A tool name must be a string, got number 42.");
    expect(await reason(undefined, {})).toMatch(/must be a string, got undefined/);
    expect(await reason("Echo", nest(20_000, false))).toMatch(/Invalid input for Echo: the input is nested more than 256 levels deep \(at \/a\/a\/a/);
    const c: Record<string, unknown> = { text: "x" };
    c.self = { back: c };
    expect(await reason("Echo", c)).toMatch(/the input is cyclic \(\/self\/back refers back to an enclosing value\)/);
    expect(await reason("Echo", { get text() { throw new Error("nope"); } })).toMatch(/the input could not be read: nope/);
    expect(await reason("Echo", { text: "x" }, { signal: 5 })).toBe("Option signal must be an AbortSignal, got number 5.");
    expect(await reason("Echo", { text: "x" }, { sessionId: 1 })).toBe("Option sessionId must be a string, got number 1.");
    // and a sound call right after still works
    const ok = await host.execute("Echo", { text: "still fine" });
    expect(ok.status).toBe("ok");
    // a DAG (the same object twice, no cycle) is not a cycle
    const shared = { t: 1 };
    const dag = await host.execute("Echo", { text: { a: shared, b: [shared, shared] } });
    expect(dag.status, dag.reason).toBe("ok");
  });
});
