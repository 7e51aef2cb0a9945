/**
 * Who may import whom (test/contract/house.ts layerViolations has the rules). Today's violations sit on
 * an allow-list that may only shrink: a new violation fails, and so does an entry that no longer occurs
 * (remove it from the list). The list ends empty.
 */
import { describe, expect, it } from "vitest";
import { importCircles, layerViolations, readTree } from "./house.ts";

const ALLOWED: string[] = [
];
/** Import circles still allowed (files of each group, sorted); this list also only shrinks. */
const ALLOWED_CIRCLES: string[][] = [
];

describe("import rules", () => {
  const files = readTree();
  it("no import breaks a layer rule beyond the shrinking allow-list", () => {
    const found = layerViolations(files);
    expect(found.filter((v) => !ALLOWED.includes(v)), "new violations").toEqual([]);
    expect(ALLOWED.filter((v) => !found.includes(v)), "fixed: remove from ALLOWED").toEqual([]);
  });
  it("no import circle beyond the shrinking allow-list", () => {
    const found = importCircles(files).map((g) => g.join(" ⇄ "));
    const allowed = ALLOWED_CIRCLES.map((g) => g.join(" ⇄ "));
    expect(found.filter((c) => !allowed.includes(c)), "new circles").toEqual([]);
    expect(allowed.filter((c) => !found.includes(c)), "gone: remove from ALLOWED_CIRCLES").toEqual([]);
  });
});
