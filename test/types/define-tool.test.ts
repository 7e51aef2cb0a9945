/**
 * `defineTool` infers its input type from an inline schema (issue 19, item 8). Checked by `tsc` (npm test runs it
 * over test/): a wrong inference is a type error here, and each `@ts-expect-error` fails the build if the error
 * it expects goes away. The runtime part only keeps vitest happy.
 */
import { describe, expect, it } from "vitest";
import { defineTool, type FromSchema } from "../../core/index.ts";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const assertType = <T extends true>(_: T) => undefined;

const wc = defineTool({
  name: "word_count",
  description: "count words",
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string" },
      mode: { enum: ["words", "lines"] },
      max: { type: "integer" },
      tags: { type: "array", items: { type: "string" } },
      note: { type: ["string", "null"] },
    },
    required: ["path"],
  },
  call(input) {
    assertType<Equal<typeof input.path, string>>(true);
    assertType<Equal<typeof input.mode, "words" | "lines" | undefined>>(true);
    assertType<Equal<typeof input.max, number | undefined>>(true);
    assertType<Equal<typeof input.tags, string[] | undefined>>(true);
    assertType<Equal<typeof input.note, string | null | undefined>>(true);
    // @ts-expect-error -- not in the schema
    void input.invented;
    // @ts-expect-error -- path is a string, not a number
    const n: number = input.path;
    return `${input.path}${n}`;
  },
});

interface Explicit {
  file: string;
}
const explicit = defineTool<Explicit>({
  name: "explicit",
  description: "an explicit input type still works",
  inputSchema: { type: "object", properties: { file: { type: "string" } } },
  call: (input) => input.file,
});

assertType<Equal<FromSchema<{ type: "object"; properties: { a: { const: 1 } }; required: ["a"] }>, { a: 1 }>>(true);
assertType<Equal<FromSchema<{ anyOf: [{ type: "string" }, { type: "number" }] }>, string | number>>(true);
assertType<Equal<FromSchema<{ description: "nothing modelled" }>, unknown>>(true);

describe("defineTool input inference", () => {
  it("is a type-level check (tsc); the tools are ordinary tools at run time", () => {
    expect(wc.inputSchema.additionalProperties).toBe(false);
    expect(explicit.name).toBe("explicit");
  });
});
