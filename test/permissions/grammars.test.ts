/**
 * Program grammars for rules (issue 13 item 2): a deny/ask rule matches the command however it is
 * spelled — git's global options, curl's valued options in any spelling and position, flag clusters
 * and long names, force in every spelling, wrappers. Each case is also checked with the rule
 * removed (the command must then not be denied), so a case cannot pass for the wrong reason.
 */
import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { decide, type BashCase } from "./decide-helper.ts";
import { tempProject } from "./helpers.ts";

const cwd = tempProject({ "README.md": "r", "f.txt": "f", "build/x": "x" });
afterAll(() => fs.rmSync(cwd, { recursive: true, force: true }));

const push = { deny: ["Bash(git push *)"] };
const force = { deny: ["Bash(git push --force *)"] };
const hard = { deny: ["Bash(git reset --hard *)"] };
const co = { deny: ["Bash(git checkout -- *)"] };
const branchD = { deny: ["Bash(git branch -D *)"] };
const post = { deny: ["Bash(curl -X POST *)"] };
const rmrf = { deny: ["Bash(rm -rf *)"] };
const rm = { deny: ["Bash(rm *)"] };

/** [rules, command, expected, mode?] — the expected decision with the rule in force. */
const cases: BashCase[] = [
  // git global options before the subcommand
  [push, "git push origin main", "deny"],
  [push, "git -C . push", "deny"],
  [push, "git -C . push origin main", "deny"],
  [push, "git --git-dir=.git push", "deny"],
  [push, "git --git-dir .git push", "deny"],
  [push, "git --work-tree=. push", "deny"],
  [push, "git -c user.name=x push", "deny"],
  [push, "git --no-pager push", "deny"],
  [push, "git -P push", "deny"],
  [push, "git -p push", "deny"],
  [push, "git --no-optional-locks -C . -c a.b=c push -u origin HEAD", "deny"],
  [push, "/usr/bin/git -C . push", "deny"],
  [hard, "git -C . reset --hard HEAD~1", "deny"],
  [hard, "git --no-pager reset --hard", "deny"],
  [hard, "git reset HEAD~1 --hard", "deny"],
  [co, "git checkout -- f.txt", "deny"],
  [co, "git -C . checkout -- f.txt", "deny"],
  [co, "git checkout HEAD -- f.txt", "deny"],
  [co, "git checkout main -- f.txt", "deny"],
  [branchD, "git branch -D old", "deny"],
  [branchD, "git -C . branch -D old", "deny"],
  [branchD, "git branch --delete --force old", "deny"],
  [branchD, "git branch -d -f old", "deny"],
  [branchD, "git branch -df old", "deny"],
  [branchD, "git branch --del --forc old", "deny"],
  [branchD, "git --no-pager branch -D old", "deny"],
  // force in every spelling
  [force, "git push -f origin main", "deny"],
  [force, "git push --force origin main", "deny"],
  [force, "git push origin main --force", "deny"],
  [force, "git push --force-with-lease origin main", "deny"],
  [force, "git push --force-with-lease=main:abc origin main", "deny"],
  [force, "git push --force-if-includes origin main", "deny"],
  [force, "git push origin +main", "deny"],
  [force, "git push origin +HEAD:main", "deny"],
  [force, "git -C . push -uf origin main", "deny"],
  [{ deny: ["Bash(git push -f *)"] }, "git push --force origin main", "deny"],
  [{ deny: ["Bash(git push --delete *)"] }, "git push origin :old", "deny"],
  // curl: valued options in every spelling and position
  [post, "curl -X POST https://api.example.com", "deny"],
  [post, "curl -XPOST https://api.example.com", "deny"],
  [post, "curl --request POST https://api.example.com", "deny"],
  [post, "curl --request=POST https://api.example.com", "deny"],
  [post, "curl https://api.example.com -X POST", "deny"],
  [post, "curl -s https://api.example.com -XPOST -H 'a: b'", "deny"],
  [post, "curl -sSL -X POST https://api.example.com", "deny"],
  [post, "curl -X post https://api.example.com", "deny"],
  [{ deny: ["Bash(curl -X POST https://api.example.com/*)"] }, "curl https://api.example.com/v1 --request POST", "deny"],
  [{ deny: ["Bash(curl --request POST *)"] }, "curl -XPOST x", "deny"],
  // rm/chmod/chown/cp/mv: clusters and long names
  [rmrf, "rm -rf build", "deny"],
  [rmrf, "rm -fr build", "deny"],
  [rmrf, "rm -r -f build", "deny"],
  [rmrf, "rm -Rf build", "deny"],
  [rmrf, "rm --recursive --force build", "deny"],
  [rmrf, "rm --recursive -f build", "deny"],
  [rmrf, "rm --rec --for build", "deny"],
  [rmrf, "rm build -rf", "deny"],
  [rmrf, "rm -rfv build", "deny"],
  [{ deny: ["Bash(rm --recursive --force *)"] }, "rm -fr build", "deny"],
  [{ deny: ["Bash(chmod -R *)"] }, "chmod --recursive 777 build", "deny"],
  [{ deny: ["Bash(chmod -R 777 *)"] }, "chmod 777 -R build", "deny"],
  [{ deny: ["Bash(chown -R *)"] }, "chown --recursive me build", "deny"],
  [{ deny: ["Bash(cp -r *)"] }, "cp -R build /tmp/x", "deny"],
  [{ deny: ["Bash(cp -r *)"] }, "cp --recursive build /tmp/x", "deny"],
  [{ deny: ["Bash(mv -f *)"] }, "mv --force a b", "deny"],
  // wrappers: sudo/doas, env, timeout/nice/nohup/stdbuf/time/watch/command/builtin/exec
  [rmrf, "sudo rm -fr build", "deny"],
  [rmrf, "sudo -u root rm -fr build", "deny"],
  [rmrf, "sudo --user=root rm -fr build", "deny"],
  [rmrf, "sudo --user root rm -fr build", "deny"],
  [rmrf, "sudo -E -- rm -fr build", "deny"],
  [rmrf, "doas -u root rm -fr build", "deny"],
  [rmrf, "env rm -fr build", "deny"],
  [rmrf, "env -i A=1 rm -fr build", "deny"],
  [rmrf, "env -u HOME rm -fr build", "deny"],
  [rmrf, "env --unset HOME rm -fr build", "deny"],
  [rmrf, "env -- rm -fr build", "deny"],
  [rmrf, "timeout 5 rm -fr build", "deny"],
  [rmrf, "timeout --signal KILL 5 rm -fr build", "deny"],
  [rmrf, "timeout -k 1 5 rm -fr build", "deny"],
  [rmrf, "nice rm -fr build", "deny"],
  [rmrf, "nice -n 5 rm -fr build", "deny"],
  [rmrf, "nice --adjustment 5 rm -fr build", "deny"],
  [rmrf, "nohup rm -fr build", "deny"],
  [rmrf, "stdbuf -o L rm -fr build", "deny"],
  [rmrf, "stdbuf --output L rm -fr build", "deny"],
  [rmrf, "time rm -fr build", "deny"],
  [rmrf, "time -p rm -fr build", "deny"],
  [rmrf, "watch rm -fr build", "deny"],
  [rmrf, "watch -n 1 rm -fr build", "deny"],
  [rmrf, "watch --interval 1 rm -fr build", "deny"],
  [rmrf, "command rm -fr build", "deny"],
  [rmrf, "builtin rm -fr build", "deny"],
  [rmrf, "exec rm -fr build", "deny"],
  [rmrf, "exec -a name rm -fr build", "deny"],
  [push, "sudo git -C . push", "deny"],
  [push, "timeout 5 git --no-pager push", "deny"],
  [push, "env GIT_TRACE=1 git -C . push", "deny"],
  // npm/pnpm/yarn/npx exec, find, xargs, parallel
  [rm, "npx rm x", "deny"],
  [rm, "npx -y rm x", "deny"],
  [rm, "npx --yes rm x", "deny"],
  [rm, "npx -p pkg rm x", "deny"],
  [rm, "npx -c 'rm x'", "deny"],
  [rm, "npm exec -- rm x", "deny"],
  [rm, "npm exec --yes -- rm x", "deny"],
  [rm, "npm x rm x", "deny"],
  [rm, "npm exec -c 'rm x'", "deny"],
  [rm, "pnpm exec rm x", "deny"],
  [rm, "pnpm dlx rm x", "deny"],
  [rm, "yarn exec rm x", "deny"],
  [rm, "yarn dlx rm x", "deny"],
  [rmrf, "find . -name x -exec rm -fr {} +", "deny"],
  [rmrf, "find build -exec rm --recursive --force {} \\;", "deny"],
  [rmrf, "ls | xargs rm -fr", "deny"],
  [rmrf, "ls | xargs -0 rm -fr", "deny"],
  [rmrf, "ls | xargs --max-args 1 rm -fr", "deny"],
  [rmrf, "ls | xargs -n1 -P4 rm -fr", "deny"],
  [rmrf, "parallel rm -rf ::: build", "deny"],
  [rmrf, "parallel -j2 rm -fr ::: build", "deny"],
  [rmrf, "parallel 'rm -rf {}' ::: build", "deny"],
  // no over-reach: other commands are not hit
  [push, "git pull", "ask"],
  [push, "git -C . status", "ask"],
  [force, "git push origin main", "ask"],
  [branchD, "git branch -d old", "ask"],
  [co, "git checkout main", "ask"],
  [post, "curl https://api.example.com", "ask"],
  [post, "curl -X GET https://api.example.com", "ask"],
  [post, "curl -G -d q=1 https://api.example.com", "ask"],
  [post, "curl -d a=1 https://api.example.com", "ask"],
  [rmrf, "rm -r build", "ask"],
  [rmrf, "rm -f f.txt", "ask"],
];

describe("program grammars: a deny rule matches the command however it is spelled", () => {
  it.each(cases.map((c) => [`${JSON.stringify(c[0].deny)} · ${c[1]}`, c] as const))("%s", (_n, c) => {
    const [rules, command, want, mode] = c;
    const d = decide(cwd, rules, "Bash", command, mode);
    expect({ behavior: d.behavior, reason: d.reason }).toMatchObject({ behavior: want });
    // Without the rule the command is not denied: the deny above came from the rule.
    if (want === "deny") expect(decide(cwd, {}, "Bash", command, mode).behavior).not.toBe("deny");
  });
});
