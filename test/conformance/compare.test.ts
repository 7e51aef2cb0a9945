/** The allow-list's rules: every difference listed exactly once, an entry that covers nothing is reported as gone. */
import { describe, expect, it } from "vitest";
import { covers, diffObservations, explainVerdict, judge, type AllowEntry, type Observation } from "./compare.ts";

const obs = (over: Partial<Observation> = {}): Observation => ({
  steps: [{ id: "toolu_01", name: "Read", input: {}, decision: "allow", result: { content: "1\tx", is_error: false } }],
  hooks: [{ label: "post", event: "PostToolUse", stdin: { tool_use_id: "toolu_01", tool_name: "Read", tool_response: { file: { content: "x" } } }, env: { CLAUDECODE: "1" } }],
  files: { "a.txt": "x" },
  ...over,
});
const entry = (path: string | string[], cases = ["*"]): AllowEntry => ({ cases, path, kind: "intended", what: "w", reason: "r" });

describe("conformance comparison", () => {
  it("keys steps by id-Tool and hooks by label@id-Tool, so a missing call does not shift the rest", () => {
    const th = obs({ hooks: [{ label: "post", event: "PostToolUse", stdin: { tool_use_id: "toolu_01", tool_name: "Read", tool_response: [{ type: "text" }] }, env: {} }] });
    const paths = diffObservations("c", obs(), th).map((d) => d.path.join("."));
    expect(paths).toEqual(["hooks.post@toolu_01-Read.stdin.tool_response", "hooks.post@toolu_01-Read.env.CLAUDECODE"]);
  });

  it("an entry covers a prefix, with * per segment, [a.b] literal segments and case:pattern", () => {
    const d = { case: "scenario", path: ["files", "src.js"], cc: "a", toolhost: "b" };
    expect(covers(entry("files.[src.js]"), d)).toBe(true);
    expect(covers(entry("files.src.js"), d)).toBe(false);
    expect(covers(entry("files"), d)).toBe(true);
    expect(covers(entry("files.*", ["other"]), d)).toBe(false);
    expect(covers(entry(["x", "scen*:files.*"], ["other"]), d)).toBe(true);
    expect(covers(entry("**.[src.js]"), d)).toBe(true);
  });

  it("fails on an unlisted difference, a doubly listed one and an entry that is no longer needed", () => {
    const diffs = diffObservations("c", obs(), obs({ files: { "a.txt": "y" } }));
    expect(judge([], diffs).unlisted).toHaveLength(1);
    const twice = judge([entry("files"), entry("files.*")], diffs);
    expect(twice.doubly).toHaveLength(1);
    const gone = judge([entry("files"), entry("steps")], diffs);
    expect(gone.unused).toEqual([1]);
    expect(explainVerdict([entry("files"), entry("steps")], gone)).toMatch(/GONE: remove \/differences\/1/);
    expect(judge([entry("files")], diffs)).toMatchObject({ unlisted: [], doubly: [], unused: [] });
  });
});
