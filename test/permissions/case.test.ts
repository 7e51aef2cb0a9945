/**
 * Case (issue 13.4): rule paths match case-insensitively where the filesystem is (detected once per
 * directory by stat'ing a case-flipped path), and everywhere with `permissions.caseInsensitivePaths: true`
 * (Claude Code denies `.ENV`, `SECRETS/`, `.GIT/config` under lower-case rules). Real files; the detection is
 * run for real on this machine's filesystem and, for the case-insensitive answer, against a folding stat.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createHost, resultText } from "../../core/index.ts";
import { caseInsensitiveAt, compilePathPattern } from "../../lib/rules/paths.ts";
import { decide } from "./decide-helper.ts";

const proj = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "th-case-")));
for (const [rel, text] of Object.entries({ ".ENV": "API_KEY=UPPER-secret\n", ".env": "API_KEY=lower-secret\n", "SECRETS/prod.txt": "API_KEY=prod\n", "src/a.ts": "API_KEY\n", ".GIT/config": "" })) {
  fs.mkdirSync(path.dirname(path.join(proj, rel)), { recursive: true });
  fs.writeFileSync(path.join(proj, rel), text);
}
afterAll(() => fs.rmSync(proj, { recursive: true, force: true }));

const deny = { deny: ["Read(.env)", "Read(./secrets/**)"] };
const fold = { ...deny, caseInsensitivePaths: true };

describe("detecting a case-insensitive filesystem", () => {
  it("this machine's temp dir is case-sensitive (both spellings exist as different files here)", () => {
    expect(caseInsensitiveAt(proj)).toBe(false);
    expect(fs.statSync(path.join(proj, ".ENV")).ino).not.toBe(fs.statSync(path.join(proj, ".env")).ino);
  });

  it("a filesystem that answers for the flipped spelling with the same file is case-insensitive", () => {
    const files = new Map([["/users/me/proj", { dev: 1, ino: 7 }], ["/users/me", { dev: 1, ino: 6 }]]);
    const folding = (p: string) => files.get(p.toLowerCase());
    const exact = (p: string) => files.get(p);
    expect(caseInsensitiveAt("/Users/me/proj", folding)).toBe(true);
    expect(caseInsensitiveAt("/users/me/proj", exact)).toBe(false);
    // the root has no letters: an entry of it is probed
    expect(caseInsensitiveAt("/", (p) => (p.toLowerCase() === "/users" ? { dev: 1, ino: 2 } : undefined), () => ["Users"])).toBe(true);
  });

  it("a matcher folds case on request (and always where its base folds)", () => {
    const m = compilePathPattern(".env", { cwd: proj, root: proj, behavior: "deny" });
    expect(m.test(path.join(proj, ".ENV"))).toBe(false);
    expect(m.test(path.join(proj, ".ENV"), true)).toBe(true);
    expect(m.test(path.join(proj, "sub", ".Env"), true)).toBe(true);
  });
});

describe("permissions.caseInsensitivePaths", () => {
  const cases: Array<[string, string | Record<string, unknown>, string]> = [
    ["Read", path.join(proj, ".ENV"), "deny"],
    ["Read", path.join(proj, "SECRETS", "prod.txt"), "deny"],
    ["Read", path.join(proj, "Secrets", "prod.txt"), "deny"],
    ["Bash", "cat .ENV", "deny"],
    ["Bash", "head -1 ./SECRETS/prod.txt", "deny"],
    ["Edit", { file_path: path.join(proj, ".Env"), old_string: "a", new_string: "b" }, "deny"],
  ];
  it.each(cases)("on: %s %j → %s", (tool, input, want) => {
    expect(decide(proj, fold, tool, input).behavior).toBe(want);
  });
  it.each(cases)("off, case-sensitive filesystem: %s %j is another file (not denied)", (tool, input) => {
    expect(decide(proj, deny, tool, input).behavior).not.toBe("deny");
  });

  it("protected paths fold too: .GIT/config is never auto-approved for writing in acceptEdits", () => {
    const input = { file_path: path.join(proj, ".GIT", "config"), content: "x" };
    expect(decide(proj, { caseInsensitivePaths: true }, "Write", input, "acceptEdits").behavior).toBe("ask");
    expect(decide(proj, {}, "Write", input, "acceptEdits").behavior).toBe("allow");
  });

  it("for real: Read refuses .ENV and Grep skips it and SECRETS/ with the option set in the config", async () => {
    const host = await createHost({ cwd: proj, config: { permissions: { ...fold } } as never });
    try {
      const r = await host.execute("Read", { file_path: ".ENV" }, { yes: true });
      expect(r.result.isError).toBe(true);
      expect(resultText(r.result)).not.toContain("UPPER-secret");
      const g = await host.execute("Grep", { pattern: "API_KEY", output_mode: "content" }, { yes: true });
      const text = resultText(g.result);
      expect(text).toContain("src/a.ts");
      for (const s of ["UPPER-secret", "lower-secret", "prod"]) expect(text).not.toContain(`API_KEY=${s}`);
      expect(text).toMatch(/3 files not shown: denied by rule "Read\(\.env\)"/);
    } finally {
      await host.close();
    }
    // the control: without the option (this filesystem is case-sensitive) .ENV is another file
    const open = await createHost({ cwd: proj, config: { permissions: { ...deny } } as never });
    try {
      const r = await open.execute("Read", { file_path: ".ENV" }, { yes: true });
      expect(resultText(r.result)).toContain("UPPER-secret");
    } finally {
      await open.close();
    }
  });
});
