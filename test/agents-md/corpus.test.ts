/**
 * The labelled corpus (test/agents-md/corpus/: real AGENTS.md / CLAUDE.md files under open licences, each
 * with its repository, commit and licence) scored on the tuning and the held-out split. The floors sit a
 * little below what the compiler reaches, so a regression fails; `node bench/run.mjs agents-md` prints the
 * figures and the misses.
 */
import { describe, expect, it } from "vitest";
import { compileAgentsMd } from "../../plugins/agents-md/compile.ts";
import { loadCorpus, parseCall, score, summary } from "./evaluate.ts";

const corpus = loadCorpus();
// The floors are regression guards just below the figures measured on 2026-12-03, not the targets (≥ 70% /
// ≥ 90% / 0% / ≤ 2%): on the 23 held-out files (16 added and labelled before the compiler first ran on them,
// none read line by line since) the compiler is below the recall, precision and silent-drop targets; the
// benchmark prints both splits against the targets.
const FLOORS = {
  tune: { recall: 83, precision: 96, silent: 0.5, overBlock: 1.5 },
  "held-out": { recall: 41, precision: 67, silent: 4, overBlock: 1 },
  // (4 files added 2026-12-04 and labelled before the compiler ran on them, measured once: 25% / 50% / 16.7% / 0%)
  "held-out-2": { recall: 24, precision: 49, silent: 17, overBlock: 1 },
};

describe("AGENTS.md corpus", () => {
  it("every file names its repository, commit, open licence and split; every label is well formed and points at a real line", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(15);
    for (const f of corpus) {
      expect(f.repo, f.id).toMatch(/^[\w.-]+\/[\w.-]+$/);
      expect(f.commit, f.id).toMatch(/^[0-9a-f]{40}$/);
      expect(["MIT", "Apache-2.0", "BSD-3-Clause", "BSD-2-Clause", "ISC", "MPL-2.0"], f.id).toContain(f.licence);
      expect(["tune", "held-out", "held-out-2"], f.id).toContain(f.split);
      const lines = f.md.split("\n");
      for (const l of f.labels) {
        expect(lines[l.line - 1]?.trim().slice(0, 160), `${f.id}:${l.line}`).toBe(l.text);
        expect(["deny", "ask", "reminder", "advice"]).toContain(l.kind);
        if (l.kind !== "advice") expect(l.catch?.length, `${f.id}:${l.line} has calls to catch`).toBeGreaterThan(0);
        for (const call of [...(l.catch ?? []), ...(l.pass ?? [])]) expect(() => parseCall(call)).not.toThrow();
      }
    }
    expect(corpus.filter((f) => f.split === "held-out").length).toBeGreaterThanOrEqual(5);
    expect(corpus.filter((f) => f.split === "held-out-2").length).toBeGreaterThanOrEqual(4);
  });

  for (const split of ["tune", "held-out", "held-out-2"] as const) {
    it(`${split}: recall, precision, silent drops and over-blocking hold their floors`, () => {
      const s = score(corpus.filter((f) => f.split === split));
      const m = summary(s);
      const floor = FLOORS[split];
      const report = `${split}: ${JSON.stringify(m)}\nmisses:\n${s.misses.join("\n")}\nwrong:\n${s.wrong.join("\n")}\nblocked:\n${s.blocked.join("\n")}`;
      expect(m.recall, report).toBeGreaterThanOrEqual(floor.recall);
      expect(m.precision, report).toBeGreaterThanOrEqual(floor.precision);
      expect(m.silent, report).toBeLessThanOrEqual(floor.silent);
      expect(m.overBlock, report).toBeLessThanOrEqual(floor.overBlock);
    });
  }

  it("nothing is dropped silently: every instruction-like line of the corpus compiled or is listed with a kind and a reason; none is unclassified", () => {
    for (const f of corpus) {
      const out = compileAgentsMd(f.md, "/repo/AGENTS.md", "/repo");
      for (const u of out.unenforced) {
        expect(u.kind, `${f.id}:${u.line} ${u.text}`).toBeDefined();
        expect(u.why.length, `${f.id}:${u.line}`).toBeGreaterThan(0);
      }
      expect(out.unenforced.filter((u) => u.kind === "unclassified").map((u) => `${f.id}:${u.line} ${u.why}`)).toEqual([]);
    }
  });
});
