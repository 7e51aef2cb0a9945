/** The README's compatibility tables are the allow-list's: regenerate with `npm run conformance:table`. */
import { describe, expect, it } from "vitest";
import { compatibilityTable, readmeBlock } from "./table.mjs";

describe("README Claude Code compatibility section", () => {
  it("has the tables generated from differences.json", () => {
    const block = readmeBlock();
    expect(block, "README lacks the conformance-table markers").toBeDefined();
    expect(block, "README's compatibility tables differ from differences.json: run npm run conformance:table").toBe(compatibilityTable());
  });
});
