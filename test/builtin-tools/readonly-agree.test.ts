/**
 * Bash's own read-only answer (isReadOnly, checkPermissions) and the permissions plugin's (plan mode,
 * read-only auto-approval) come from one analyser, lib/rules: these commands once got different answers.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flag } from "../../core/index.ts";
import { factsFor } from "../../lib/rules/facts.ts";
import { isReadOnlyCall } from "../../plugins/permissions/decide.ts";
import { hostIn, tmpDir, type Host } from "./helpers.ts";

let dir: string;
let host: Host;
beforeAll(async () => {
  dir = tmpDir();
  host = await hostIn(dir);
});
afterAll(async () => {
  await host.close();
});

const parserRead = (command: string) => isReadOnlyCall({ toolName: "Bash", input: { command }, cwd: dir, mode: "plan" }, factsFor({ toolName: "Bash", input: { command }, cwd: dir }));

describe("one read-only analyser", () => {
  const once = [
    'grep "a b" src', "ls 'my dir'", "cat a.txt | grep -c x", "ls\npwd", "git -C /tmp status", "git -c core.pager=sh log",
    "tree -o out.txt", "rg --pre ./x.sh TODO", "cat $(echo x)", "echo hi > f", "echo hi > /dev/null", "ls && rm x", "find . -exec rm {} +",
  ];
  it("Bash.isReadOnly equals the permissions plugin's answer", () => {
    const bash = host.pool.byName.get("Bash")!;
    for (const command of once) expect(flag(bash.isReadOnly, { command }), command).toBe(parserRead(command));
  });

  it("Bash.checkPermissions never allows what the parser calls a write", () => {
    const bash = host.pool.byName.get("Bash")!;
    const word = fc.constantFrom("ls", "cat", "rm", "echo", "grep", "tree", "rg", "git", "find", "-o", "--pre", "x", "a.txt", "status", "push", "-delete", "$(rm x)", "'q r'", "../up", "~/s", "/etc/passwd");
    const sep = fc.constantFrom(" ", " | ", " && ", "; ", " > ", " 2>&1 ");
    const command = fc.array(fc.tuple(word, sep), { minLength: 1, maxLength: 6 }).map((xs) => xs.map(([w, s]) => w + s).join("").trim());
    fc.assert(
      fc.property(command, (c) => {
        expect(flag(bash.isReadOnly, { command: c }), c).toBe(parserRead(c));
        if (bash.checkPermissions!({ command: c }, { cwd: dir, mode: "default" })?.behavior === "allow") expect(parserRead(c), c).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
