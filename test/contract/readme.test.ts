/** The README's design section shows the pipeline and the rebuild path as the real code: kept equal here. */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./house.ts";

const read = (f: string) => fs.readFileSync(path.join(ROOT, f), "utf8");
const between = (text: string, start: string, end: string) => {
  const i = text.indexOf(start);
  const j = text.indexOf(end, i);
  return i < 0 || j < 0 ? "" : text.slice(i, j + end.length);
};

describe("README design listings", () => {
  const readme = read("README.md");
  it("the execution path listing is core/call/pipeline.ts's STAGES", () => {
    const code = between(read("core/call/pipeline.ts"), "export const STAGES", "] as const satisfies readonly Stage[];");
    expect(code).not.toBe("");
    expect(readme).toContain(code);
  });
  it("the rebuild path listing is core/host/rebuild.ts's rebuild()", () => {
    const code = between(read("core/host/rebuild.ts"), "export async function rebuild", "\n}\n");
    expect(code).not.toBe("");
    expect(readme).toContain(code);
  });
});
