/**
 * sed as the permission engine reads it (lib/rules/grammars/sed.ts, issue 13): which files a command
 * line rewrites, and whether its script is harmless. Checked against the real GNU sed:
 * - for every spelling of in-place editing, the files real sed changed or created in a scratch
 *   directory are exactly the writes the engine predicts (so no spelling writes unseen);
 * - for scripts built from every command and flag, whatever the engine calls harmless is accepted by
 *   `sed --sandbox` (which refuses e/r/w and the s///e, s///w flags), and every script sandbox mode
 *   refuses the engine calls unsafe.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fileArgs, sedInPlaceEdit } from "../../lib/rules/commands.ts";
import { sedArgs, sedScriptUnsafe } from "../../lib/rules/grammars/sed.ts";
import { tempProject } from "./helpers.ts";

const gnuSed = spawnSync("sed", ["--version"], { encoding: "utf8" }).stdout?.includes("GNU sed");
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const lit = (value: string) => ({ value, raw: value, dynamic: false, quoted: false });

function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(path.relative(dir, p), fs.readFileSync(p, "utf8"));
    }
  };
  walk(dir);
  return out;
}

// [argv after `sed`, is it a harmless in-place edit]
const spellings: Array<[string[], boolean]> = [
  [["-i", "s/a/b/", "f"], true],
  [["-i.bak", "s/a/b/", "f"], true],
  [["--in-place", "s/a/b/", "f", "g"], true],
  [["--in-place=.orig", "s/a/b/", "f"], true],
  [["--in-pl=.orig", "s/a/b/", "f"], true],
  [["--i", "s/a/b/", "f"], true],
  [["-ni", "s/a/b/p", "f"], true],
  [["-in", "s/a/b/", "f"], true], // -i with suffix "n": backup fn
  [["-ie", "s/a/b/", "f"], true], // -i with suffix "e", not -e
  [["-Ei", "s/a+/b/", "f"], true],
  [["-e", "s/a/b/", "-i", "f"], true],
  [["-i", "-e", "s/a/b/", "-e", "s/b/c/", "f", "g"], true],
  [["--expression=s/a/b/", "--in-place", "f"], true],
  [["s/a/b/", "-i", "f"], true],
  [["-s", "-i", "s/a/b/", "f"], true],
  [["-i", "-l", "5", "s/a/b/", "f"], true],
  [["-i", "--", "s/a/b/", "f"], true],
  [["-i*.sav", "s/a/b/", "f"], true],
  [["-ibak/*", "s/a/b/", "sub/f"], true],
  [["-i", "s/a/b/w out", "f"], false],
  [["-i", "1w out", "f"], false],
  [["-i", "-e", "s/a/b/", "-e", "1W out", "f"], false],
  [["-n", "s/a/b/w out", "f"], false],
  [["s/a/b/", "f"], false],
  [["-n", "1p", "f"], false],
];

describe("sed command lines: the writes predicted are the files real sed changes", () => {
  for (const [argv, edit] of spellings) {
    it.skipIf(!gnuSed)(`sed ${argv.join(" ")}`, () => {
      const dir = tempProject({ f: "a\n", g: "a\n", "sub/f": "a\n", "bak/sub/.keep": "" });
      dirs.push(dir);
      const before = snapshot(dir);
      const r = spawnSync("sed", argv, { cwd: dir, encoding: "utf8" });
      expect(r.status, r.stderr).toBe(0);
      const after = snapshot(dir);
      const changed = [...after].filter(([p, c]) => before.get(p) !== c).map(([p]) => p).sort();
      const words = ["sed", ...argv].map(lit);
      const predicted = [...new Set(fileArgs("sed", words, dir).writes.map((w) => path.normalize(w.path)))].sort();
      // Every file real sed changed or made was predicted; the only other predictions are in-place operands left as they were.
      expect(changed.filter((p) => !predicted.includes(p))).toEqual([]);
      expect(predicted.filter((p) => !changed.includes(p) && !argv.includes(p))).toEqual([]);
      expect(sedInPlaceEdit(["sed", ...argv])).toBe(edit);
    });
  }

  it("reads every spelling's operands and -f script files", () => {
    expect(sedArgs(["sed", "-f", "s.sed", "-i", "f"]).scriptFiles).toEqual([{ i: 2, path: "s.sed" }]);
    expect(fileArgs("sed", ["sed", "-fs.sed", "f"].map(lit), "/d").reads.map((r) => r.path)).toEqual(["f", "s.sed"]);
    expect(fileArgs("sed", ["sed", "-n", "p", "a", "b"].map(lit), "/d").reads.map((r) => r.path)).toEqual(["a", "b"]);
    expect(sedArgs(["sed", "--s", "p", "f"]).unknown).toBe("--s"); // --silent, --separate, --sandbox: ambiguous
    expect(sedInPlaceEdit(["sed", "-i", "-x", "p", "f"])).toBe(false);
    expect(sedInPlaceEdit(["sed", "-i", "s/a/b/"])).toBe(false); // no file
  });
});

// Scripts from every command and flag, alone and in pairs.
const ADDR = ["", "1", "$", "/a/", "\\,a,", "1,3", "/x/,+2", "0~2", "/a/I,/b/M", "2!"];
const CMDS = [
  "p", "d", "D", "=", "l", "l 5", "q", "Q 3", "n", "N", "g", "G", "h", "H", "x", "z", "F", "{p}", "{s/a/b/;p}", ":a", "ba", "t", "T x",
  "s/a/b/", "s/a/b/g", "s/a/b/2p", "s/a/b/I", "s|a|b|gm", "s/a/\\//", "s/a\\/b/c/", "y/ab/ba/", "a text", "i\\\ntext", "c text",
  "s/a/b/w out", "s/a/b/gw out", "s/a/b/e", "s/a/b/pe", "w out", "W out", "r /etc/hostname", "R /etc/hostname", "e echo x", "e",
  "s/[/]/x/w out", "s/a/\\/w out/", "s|a|b|w out", "s/a/b/;w out", "s/a/b/ ; w out", "1!w out", "/w/p", "y/w/e/",
];
const SEPS = [";", "\n", " ; "];

describe("sed scripts: harmless only when sed --sandbox (no e, r, w) accepts them", () => {
  const scripts: string[] = [];
  for (const a of ADDR) for (const c of CMDS) scripts.push(a + c);
  for (let i = 0; i < CMDS.length; i++) for (const s of SEPS) scripts.push(CMDS[i]! + s + CMDS[(i * 7 + 3) % CMDS.length]!);
  it.skipIf(!gnuSed)(`${scripts.length} scripts`, () => {
    const dir = tempProject({ f: "a\nb\n" });
    dirs.push(dir);
    let harmless = 0;
    for (const s of scripts) {
      const why = sedScriptUnsafe(s);
      const r = spawnSync("sed", ["--sandbox", "-n", s, "f"], { cwd: dir, encoding: "utf8" });
      const refused = /disabled in sandbox mode/.test(r.stderr);
      if (!why) {
        harmless++;
        expect(refused, `${JSON.stringify(s)}: called harmless, but sed --sandbox refuses it: ${r.stderr}`).toBe(false);
      }
      if (refused) expect(why, `${JSON.stringify(s)}: sed --sandbox refuses it, so it is not harmless`).toBeTruthy();
    }
    expect(harmless).toBeGreaterThan(scripts.length / 3);
    expect(fs.existsSync(path.join(dir, "out"))).toBe(false);
  });
});
