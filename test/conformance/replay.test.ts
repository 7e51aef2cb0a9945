/**
 * The conformance replay: every case of cases.mjs runs through toolhost and is compared field by field with what
 * Claude Code 2.1.328 did (recordings/<id>.json, made by `npm run conformance:record`). differences.json is the only
 * source of accepted differences: an unlisted difference fails its case, and an entry that no longer covers anything
 * fails the last test ("remove it"), so the list only shrinks as toolhost converges.
 */
import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { CASES } from "./cases.mjs";
import { comparedPoints, diffObservations, explainVerdict, judge, loadAllowList, type Difference } from "./compare.ts";
import { loadRecording } from "./layout.mjs";
import { replayCase, type ConformanceCase } from "./replay.ts";

const entries = loadAllowList();
const all: Difference[] = [];
const ran = new Set<string>();
let points = 0;

describe("conformance replay against Claude Code 2.1.328", () => {
  for (const c of CASES as ConformanceCase[]) {
    it(`${c.id}: ${c.about}`, async () => {
      const rec = loadRecording(c.id);
      expect(rec, `no recording for ${c.id}: run npm run conformance:record -- --only ${c.id}`).toBeDefined();
      expect(rec.claudeCode).toBe("2.1.328");
      const th = await replayCase(c);
      const diffs = diffObservations(c.id, rec, th);
      points += comparedPoints(rec, th);
      all.push(...diffs);
      ran.add(c.id);
      const v = judge(entries, diffs);
      expect(explainVerdict(entries, { ...v, unused: [] })).toBe("");
    });
  }

  it("every allow-list entry still covers a difference (a fixed one must be removed)", () => {
    expect(ran.size, "run the whole file: the unused check needs every case").toBe(CASES.length);
    const v = judge(entries, all);
    expect(explainVerdict(entries, { unlisted: [], doubly: [], unused: v.unused, used: v.used })).toBe("");
  });
});

afterAll(() => {
  if (ran.size === CASES.length) console.log(`conformance: ${ran.size} cases, ${points} compared points, ${all.length} different, all listed in ${entries.length} entries`);
  if (process.env.CONFORMANCE_DUMP) fs.writeFileSync(process.env.CONFORMANCE_DUMP, JSON.stringify(all, null, 1));
});
