/**
 * The adversarial permission corpus (test/permissions/cases/*.jsonl, issue 13 item 5): every case runs through
 * toolhost's real host (createHost with the case's settings file and mode, in a scratch layout with its files and
 * symlinks) and must be decided as `intended`. Cases marked `live` are executed for real in their scratch dir: a
 * call that is not allowed must leave its side effect undone; an allowed one must have done it (so the case really
 * is the attack it claims to be). Claude Code 2.1.328's own decisions are recorded fixtures (cc-recordings.json,
 * made by record-cc.mjs); `node bench/run.mjs permissions-corpus` prints the comparison.
 *
 * known-gaps.json lists the cases toolhost does not decide as intended yet, each with a one-line reason. The list can
 * only shrink: a listed case that now passes fails here until it is removed from the list.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { PERMISSION_MODES } from "../../core/index.ts";
import { ccRecordings, corpusDir, knownGaps, loadCases, runCorpus, type CaseResult } from "./cases/runner.ts";
import { corpusReport } from "./cases/report.ts";

const cases = loadCases();
const gaps = knownGaps();
const cc = ccRecordings();
let results: Map<string, CaseResult>;

beforeAll(async () => {
  results = await runCorpus(cases);
}, 600_000);

describe("the corpus itself", () => {
  it("has at least 400 cases with the fields the runner and the report need", () => {
    expect(cases.length).toBeGreaterThanOrEqual(400);
    for (const c of cases) {
      expect(["allow", "ask", "deny"], `${c.id}: intended`).toContain(c.intended);
      expect(c.source, `${c.id}: source`).toMatch(/^(own|issue 13|https:\/\/github\.com\/anthropics\/claude-code\/issues\/\d+)$/);
      expect(typeof c.tool === "string" && typeof c.input === "object", `${c.id}: tool and input`).toBe(true);
      if (c.live) expect(c.effect, `${c.id}: a live case names its side effect`).toBeTruthy();
    }
  });

  it("covers every category the issue names and every permission mode", () => {
    const cats = new Set(cases.map((c) => c.category));
    for (const k of ["compound", "wrappers", "quoting", "flag-order", "path-tricks", "symlinks", "mcp-names", "modes", "critical-paths", "readonly-exec", "git-exec", "case", "bare-rules", "benign"]) expect(cats).toContain(k);
    const modes = new Set(cases.map((c) => c.mode));
    for (const m of PERMISSION_MODES) expect(modes, m).toContain(m);
  });

  it("has Claude Code's recorded decision for every case (re-run record-cc.mjs after adding cases)", () => {
    expect(cc.version).toBe("2.1.328");
    const missing = cases.filter((c) => !cc.cases[c.id]).map((c) => c.id);
    expect(missing).toEqual([]);
  });

  it("known-gaps names only cases of the corpus", () => {
    const ids = new Set(cases.map((c) => c.id));
    expect(Object.keys(gaps).filter((id) => !ids.has(id))).toEqual([]);
  });
});

/** The markdown table of README.md that starts with `header` (its lines up to the first that is not a table row). */
function readmeTable(readme: string[], header: string): string[] {
  const i = readme.indexOf(header);
  if (i < 0) return [];
  const out: string[] = [];
  for (let k = i; k < readme.length && readme[k]!.startsWith("|"); k++) out.push(readme[k]!);
  return out;
}

describe("the README's corpus tables", () => {
  const regen = "run `node bench/run.mjs permissions-corpus --markdown` and paste its two tables into README.md (\"Against Claude Code: the adversarial corpus\")";
  it("are today's (per category, and every case stricter than Claude Code where it allows)", () => {
    const readme = fs.readFileSync(path.join(corpusDir, "../../../README.md"), "utf8").split("\n");
    const r = corpusReport(cases, results, cc.cases, true);
    expect(readmeTable(readme, r.summary[0]!).join("\n"), `the README's per-category table is stale: ${regen}`).toBe(r.summary.join("\n"));
    expect(readmeTable(readme, r.stricter[0]!).join("\n"), `the README's table of cases stricter than Claude Code is stale: ${regen}`).toBe(r.stricter.join("\n"));
  });
});

const show = (c: (typeof cases)[number]) => {
  const v = c.input.command ?? c.input.file_path ?? c.input.pattern ?? "";
  return `${c.id} [${c.mode}] ${c.tool}${v ? ` ${JSON.stringify(v).slice(0, 60)}` : ""} → ${c.intended}`;
};

for (const category of [...new Set(cases.map((c) => c.category))]) {
  describe(`corpus: ${category}`, () => {
    for (const c of cases.filter((x) => x.category === category)) {
      it(show(c), () => {
        const r = results.get(c.id)!;
        const why = `toolhost: ${r.decision}${r.rule ? ` (${r.rule})` : ""} — ${r.reason ?? ""}`;
        if (gaps[c.id]) {
          expect(r.decision, `${c.id} is on known-gaps ("${gaps[c.id]}") but is now decided as intended — remove it from known-gaps.json`).not.toBe(c.intended);
        } else {
          expect(r.decision, why).toBe(c.intended);
        }
        if (r.effectHappened !== undefined) {
          if (r.decision !== "allow") expect(r.effectHappened, `${c.id}: not allowed, yet its side effect ${JSON.stringify(c.effect)} happened`).toBe(false);
          else if (c.intended === "allow") expect(r.effectHappened, `${c.id}: allowed and run, but ${JSON.stringify(c.effect)} did not happen — the case does not do what it claims`).toBe(true);
        }
      });
    }
  });
}
