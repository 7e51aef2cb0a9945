import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineTool, type Host } from "../../core/index.ts";
import { repairInput } from "../../plugins/input-repair/index.ts";
import { hostWith, tmpDir } from "../hooks/helpers.ts";

const schema = { type: "object", properties: { a: { type: "number" }, b: { type: "string" }, list: { type: "array" }, opts: { type: "object" }, flag: { type: "boolean" }, none: {} } };

describe("repairInput (pure)", () => {
  const cases: Array<[string, unknown, unknown]> = [
    ["JSON in a string", '{"a": 1, "b": "x"}', { a: 1, b: "x" }],
    ["trailing commas", '{"a": 1, "list": [1, 2,],}', { a: 1, list: [1, 2] }],
    ["unquoted keys", "{a: 1, b: 'x'}", { a: 1, b: "x" }],
    ["single quotes", "{'b': 'it works'}", { b: "it works" }],
    ["missing closing brackets", '{"a": 1, "list": [1, 2', { a: 1, list: [1, 2] }],
    ["Python constants", "{'flag': True, 'none': None, 'b': 'x'}", { flag: true, none: null, b: "x" }],
    ["code fence", '```json\n{"a": 1}\n```', { a: 1 }],
    ["stringified nested array", { list: "[1, 2, 3]", b: "[kept as string]" }, { list: [1, 2, 3], b: "[kept as string]" }],
    ["stringified nested object, broken", { opts: "{x: 1,}" }, { opts: { x: 1 } }],
  ];
  for (const [name, input, expected] of cases) {
    it(name, () => {
      const r = repairInput(input, schema);
      expect(r.input).toEqual(expected);
      expect(r.repairs.length).toBeGreaterThan(0);
    });
  }

  it("leaves valid objects untouched (same reference) and non-JSON strings alone", () => {
    const valid = { a: 1, b: "{not: json}", list: [1], opts: { x: 1 } };
    const r = repairInput(valid, schema);
    expect(r.input).toBe(valid);
    expect(r.repairs).toEqual([]);
    expect(repairInput("just words", schema).input).toBe("just words");
    expect(repairInput({ list: "not an array" }, schema).input).toEqual({ list: "not an array" });
  });

  // Property: any JSON object, serialised and damaged in known ways, repairs to the original.
  const key = fc.stringMatching(/^[a-z_][a-z0-9_]{0,7}$/);
  const str = fc.stringMatching(/^[a-zA-Z0-9 .,:;!?-]{0,12}$/);
  const leaf = fc.oneof(fc.integer({ min: -1e6, max: 1e6 }), fc.boolean(), fc.constant(null), str);
  const { value: jsonValue } = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: "small", withCrossShrink: true }, leaf, tie("array"), tie("object")),
    array: fc.array(tie("value"), { maxLength: 4 }),
    object: fc.dictionary(key, tie("value"), { maxKeys: 4 }),
  }));
  const obj = fc.dictionary(key, jsonValue, { minKeys: 1, maxKeys: 5 });
  type Damage = { unquoteKeys: boolean; singleQuotes: boolean; python: boolean; trailingCommas: boolean; dropClosers: boolean };
  const damage = fc.record({ unquoteKeys: fc.boolean(), singleQuotes: fc.boolean(), python: fc.boolean(), trailingCommas: fc.boolean(), dropClosers: fc.boolean() });

  function serialise(v: unknown, d: Damage): string {
    const q = (s: string) => (d.singleQuotes ? `'${s}'` : JSON.stringify(s));
    if (v === null) return d.python ? "None" : "null";
    if (v === true) return d.python ? "True" : "true";
    if (v === false) return d.python ? "False" : "false";
    if (typeof v === "number") return String(v);
    if (typeof v === "string") return q(v);
    const tc = d.trailingCommas ? "," : "";
    if (Array.isArray(v)) return v.length ? `[${v.map((x) => serialise(x, d)).join(", ")}${tc}]` : "[]";
    const entries = Object.entries(v as Record<string, unknown>);
    return entries.length ? `{${entries.map(([k, x]) => `${d.unquoteKeys ? k : q(k)}: ${serialise(x, d)}`).join(", ")}${tc}}` : "{}";
  }

  it("property: damaged serialisations repair to the original object", () => {
    fc.assert(
      fc.property(obj, damage, (o, d) => {
        let text = serialise(o, d);
        if (d.dropClosers) text = text.replace(/[\]}]+$/, ""); // cut off every trailing closing bracket
        const r = repairInput(text, { type: "object" });
        expect(r.input).toEqual(o);
      }),
      { numRuns: 400 },
    );
  });
});

describe("repair stage in the pipeline", () => {
  let host: Host;
  const calls: unknown[] = [];
  beforeAll(async () => {
    const t = defineTool({ name: "Cfg", description: "x", isReadOnly: true, inputSchema: { properties: { a: { type: "number" }, list: { type: "array", items: { type: "number" } } }, required: ["a"] }, call: (i) => (calls.push(i), "ok") });
    host = await hostWith(tmpDir(), { tools: [t] });
  });
  afterAll(() => host.close());

  it("a broken JSON string becomes a valid call, traced", async () => {
    const o = await host.execute("Cfg", "{a: 1, list: '[1, 2,]',", { yes: true });
    expect(o.status).toBe("ok");
    expect(calls.at(-1)).toEqual({ a: 1, list: [1, 2] });
    const d = o.trace.find((t) => t.stage === "repairInput.detail") as any;
    expect(d.plugin).toBe("input-repair");
    expect(d.detail.repairs.map((r: any) => r.kind)).toEqual(["repaired-json", "repaired-field"]);
  });

  it("valid input leaves no repair trace", async () => {
    const o = await host.execute("Cfg", { a: 2 }, { yes: true });
    expect(o.status).toBe("ok");
    expect(o.trace.some((t) => t.stage === "repairInput.detail")).toBe(false);
  });

  it("unrepairable input fails validation with an actionable message", async () => {
    const o = await host.execute("Cfg", "a string that is not JSON", { yes: true });
    expect(o.status).toBe("invalid-input");
    expect(o.reason).toMatch(/expected a JSON object, got the string/);
  });
});
