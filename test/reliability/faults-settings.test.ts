/**
 * "Allow always" persisted to .claude/settings.local.json (issue 12, item 3: every write toolhost owns reports its
 * failure once and keeps working): the write is atomic (the user's file is never left truncated or half written),
 * a failure is one warning + one logged error naming the file, and the approval still holds for the session.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createHost } from "../../core/index.ts";
import { tmpdir } from "../helpers.ts";

describe("persisting an approval to the settings file", () => {
  it("cannot write: reported once (warning + logger), the rule still applies to this session, nothing thrown", async () => {
    const dir = tmpdir("toolhost-persist-fail-");
    fs.writeFileSync(path.join(dir, ".claude"), "a file where the .claude directory should be");
    const errors: string[] = [];
    const h = await createHost({ cwd: dir, watch: false, logger: { error: (m) => errors.push(m), warn: () => {} } });
    try {
      for (const rule of ["Bash(touch a.txt)", "Bash(touch b.txt)"]) h.hooks.addPermissionRule.call({ behavior: "allow", rule, destination: "localSettings" });
      await h.rebuild("test");
      expect((await h.execute("Bash", { command: "touch a.txt" }, { dryRun: true })).decision).toBe("allow");
      expect((await h.execute("Bash", { command: "touch b.txt" }, { dryRun: true })).decision).toBe("allow");
      const warnings = h.problems().filter((p) => p.plugin === "permissions" && /could not save/.test(p.message));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.file).toBe(path.join(dir, ".claude", "settings.local.json"));
      expect(warnings[0]!.message).toContain("it applies to this session only");
      expect(errors.filter((e) => /could not save/.test(e))).toHaveLength(1);
      expect(fs.readFileSync(path.join(dir, ".claude"), "utf8")).toBe("a file where the .claude directory should be");
    } finally {
      await h.close();
    }
  });

  it("writes atomically: the file is replaced whole, keeping what it held, with no temp file left", async () => {
    const dir = tmpdir("toolhost-persist-ok-");
    fs.mkdirSync(path.join(dir, ".claude"));
    const file = path.join(dir, ".claude", "settings.local.json");
    fs.writeFileSync(file, JSON.stringify({ env: { KEEP: "1" }, permissions: { deny: ["Read(.env)"] } }));
    const h = await createHost({ cwd: dir, watch: false });
    try {
      h.hooks.addPermissionRule.call({ behavior: "allow", rule: "Bash(touch c.txt)", destination: "localSettings" });
      const v = JSON.parse(fs.readFileSync(file, "utf8"));
      expect(v).toEqual({ env: { KEEP: "1" }, permissions: { deny: ["Read(.env)"], allow: ["Bash(touch c.txt)"] } });
      expect(fs.readdirSync(path.join(dir, ".claude"))).toEqual(["settings.local.json"]);
    } finally {
      await h.close();
    }
  });
});
