/**
 * Critical paths (issue 13.3): removing /, a top-level directory, the home directory, the working
 * directory or one of its parents is never auto-approved in any mode — bypassPermissions and allow rules
 * included — through wrappers, shells, sudo/doas, xargs and find. Decide-only for the real critical paths
 * (HOME is a scratch directory here), plus real runs through the host's real Bash in a scratch tree that
 * prove the removal does not happen, and a control that proves an ordinary removal does.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost } from "../../core/index.ts";
import { decide, type Rules } from "./decide-helper.ts";

const scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "th-critical-")));
const home = path.join(scratch, "home", "me");
const cwd = path.join(scratch, "work", "proj", "app");
fs.mkdirSync(home, { recursive: true });
fs.mkdirSync(path.join(cwd, "build"), { recursive: true });
fs.writeFileSync(path.join(cwd, "build", "x.o"), "x");
const savedHome = process.env.HOME;
beforeAll(() => {
  process.env.HOME = home;
});
afterAll(() => {
  process.env.HOME = savedHome;
  fs.rmSync(scratch, { recursive: true, force: true });
});

type Want = "allow" | "ask" | "deny";
const MODES = ["default", "acceptEdits", "bypassPermissions"] as const;

/** Commands that remove a critical path: ask in every mode (deny in dontAsk), whatever allow rules say. */
const critical: string[] = [
  "rm -rf /",
  "rm -fr /",
  "rm -r -f /",
  "rm --recursive --force /",
  "rm -rf -- /",
  "rm -rf /*",
  "rm -rf /usr",
  "rm -rf /etc/",
  "rm -rf /home",
  "rm -rf ~",
  "rm -rf ~/",
  'rm -rf "$HOME"',
  "rm -rf $HOME/",
  "rm -rf ${HOME}",
  "rm -rf ~/*",
  "rm -rf ~root",
  "rm -rf .",
  "rm -rf ./",
  "rm -rf *",
  "rm -rf .*",
  "rm -rf ..",
  "rm -rf ../..",
  "rm -rf ../../..",
  `rm -rf ${cwd}`,
  `rm -rf ${cwd}/`,
  `rm -rf ${path.dirname(cwd)}`,
  'rm -rf "$PWD"',
  "rm -rf ~+",
  "cd / && rm -rf *",
  "cd ~ && rm -rf *",
  "cd .. && rm -rf .",
  "cd /usr; rm -rf ./*",
  "rmdir /usr",
  "timeout 5 rm -rf /",
  "env rm -rf .",
  "env FOO=1 rm -rf ~",
  "nice -n 5 rm -rf ..",
  "nohup rm -rf /",
  "time rm -rf /",
  "bash -c 'rm -rf /'",
  "sh -c 'cd / && rm -rf *'",
  "sudo rm -rf /",
  "sudo -u root rm -rf /var",
  "doas rm -rf /usr",
  "xargs rm -rf /",
  "eval 'rm -rf ~'",
  "find / -delete",
  "find ~ -type f -delete",
  "find . -delete",
  "find .. -exec rm -rf {} +",
  "sudo find / -name '*' -delete",
  "mv ~ /tmp/gone",
  "mv . ../elsewhere",
  "chmod -R 000 /",
  "chown -R nobody ~",
  "sudo chown -R nobody /usr",
  "echo ok && rm -rf /",
  "true; rm -rf /etc",
];

/** Near misses: ordinary removals inside the project, which the usual rules decide. */
const ordinary: Array<[string, string, Want]> = [
  ["rm -rf build", "bypassPermissions", "allow"],
  ["rm -rf ./build/*", "bypassPermissions", "allow"],
  ["rm -rf *.o", "bypassPermissions", "allow"],
  ["rm -rf /tmp/some-build-dir", "bypassPermissions", "allow"],
  ["rm -rf ~/.cache/thing", "bypassPermissions", "allow"],
  ["find . -name '*.o' -delete", "bypassPermissions", "allow"],
  ["find / -name passwd", "bypassPermissions", "allow"],
  ["mv * build/", "bypassPermissions", "allow"],
  ["chmod 755 .", "bypassPermissions", "allow"],
  ["ls src", "default", "allow"],
  ["rm -rf build", "default", "ask"],
  ["rm -rf $X", "bypassPermissions", "allow"],
  ['rm -rf "~"', "bypassPermissions", "allow"],
  ["rm -rf '$HOME'", "bypassPermissions", "allow"],
  ['rm -rf "*"', "bypassPermissions", "allow"],
];

describe("critical paths are never auto-approved", () => {
  it.each(critical.flatMap((c) => MODES.map((m) => [c, m] as const)))("%s (%s) asks", (cmd, mode) => {
    const d = decide(cwd, { allow: ["Bash(rm *)", "Bash(sudo *)", "Bash(find *)", "Bash"] }, "Bash", cmd, mode);
    expect(d.behavior, d.reason).toBe("ask");
    expect(d.rule).toBe("critical path");
    expect(d.explicit).toBe(true);
  });

  it.each(critical)("%s is denied in dontAsk mode", (cmd) => {
    expect(decide(cwd, {}, "Bash", cmd, "dontAsk").behavior).toBe("deny");
  });

  it("exec_command is covered too", () => {
    expect(decide(cwd, {}, "exec_command", "rm -rf ~", "bypassPermissions").behavior).toBe("ask");
  });

  it("a deny rule still denies (deny wins over the critical-path ask)", () => {
    const d = decide(cwd, { deny: ["Bash(rm -rf *)"] }, "Bash", "rm -rf /", "bypassPermissions");
    expect(d.behavior).toBe("deny");
  });

  it("plan mode still denies (not read-only)", () => {
    expect(decide(cwd, {}, "Bash", "rm -rf /", "plan").behavior).toBe("deny");
  });

  it("the reason names the command, the path and what it is", () => {
    const d = decide(cwd, {}, "Bash", "cd / && rm -rf *", "bypassPermissions");
    expect(d.reason).toContain("rm -rf *");
    expect(d.reason).toContain("everything in the filesystem root");
    expect(decide(cwd, {}, "Bash", "rm -rf ..", "bypassPermissions").reason).toContain("a parent of the working directory");
    expect(decide(cwd, {}, "Bash", 'rm -rf "$HOME"', "bypassPermissions").reason).toContain(`${home} (the home directory)`);
  });

  it.each(ordinary)("near miss %s (%s) → %s", (cmd, mode, want) => {
    expect(decide(cwd, {}, "Bash", cmd, mode).behavior).toBe(want);
  });
});

describe("for real: a critical removal does not happen, an ordinary one does", () => {
  async function bypassHost(dir: string) {
    return createHost({ cwd: dir, config: { permissions: { defaultMode: "bypassPermissions" } as never } });
  }

  it("rm -rf . / \"$PWD\" / .. / cd .. && rm -rf * in bypassPermissions leave the scratch tree in place", async () => {
    const root = path.join(scratch, "real");
    const dir = path.join(root, "a", "b");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "keep.txt"), "keep");
    fs.writeFileSync(path.join(root, "a", "sibling.txt"), "keep");
    const host = await bypassHost(dir);
    try {
      for (const cmd of ["rm -rf .", 'rm -rf "$PWD"', "rm -rf ..", "cd .. && rm -rf *", "timeout 5 rm -rf ..", "bash -c 'rm -rf ..'", "find .. -delete"]) {
        let asked = "";
        const o = await host.execute("Bash", { command: cmd }, { onAsk: (req) => ((asked = req.decision.reason ?? ""), "deny") });
        expect(asked, cmd).toMatch(/never auto-approved/);
        expect(o.result.isError, cmd).toBe(true);
        expect(fs.existsSync(path.join(dir, "keep.txt")), cmd).toBe(true);
        expect(fs.existsSync(path.join(root, "a", "sibling.txt")), cmd).toBe(true);
      }
      // the control: an ordinary removal in bypassPermissions runs without a question
      fs.mkdirSync(path.join(dir, "build"));
      let asked = false;
      const ok = await host.execute("Bash", { command: "rm -rf build" }, { onAsk: () => ((asked = true), "deny") });
      expect(ok.result.isError).toBeFalsy();
      expect(asked).toBe(false);
      expect(fs.existsSync(path.join(dir, "build"))).toBe(false);
    } finally {
      await host.close();
    }
  });
});
