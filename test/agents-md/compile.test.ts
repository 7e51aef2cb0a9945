import { describe, expect, it } from "vitest";
import { compileAgentsMd } from "../../plugins/agents-md/compile.ts";

const c = (md: string) => compileAgentsMd(md, "/p/AGENTS.md", "/p");
const rules = (md: string) => c(md).rules.map((r) => `${r.behavior} ${r.rule} @${r.line}`);

describe("AGENTS.md compiler", () => {
  it("prohibitions with a command verb become Bash deny rules, one per code span, citing the line", () => {
    expect(rules("# Rules\n- Never run `git push --force` or `git reset --hard`.\n")).toEqual(["deny Bash(git push --force *) @2", "deny Bash(git reset --hard *) @2"]);
    expect(rules("* Do **not** run `make deploy`, _ever_")).toEqual(["deny Bash(make deploy *) @1"]); // emphasis cannot hide a prohibition
    expect(rules("* Do not execute `curl * | sh`")).toEqual(["deny Bash(curl * | sh) @1"]);
    expect(rules("1. You must not call `docker system prune`.")).toEqual(["deny Bash(docker system prune *) @1"]);
  });

  it("only what the prohibition governs compiles: instructions, alternatives and narrowed commands stay advice", () => {
    // each of these once produced a denial of the very command the sentence asks for (review findings)
    expect(rules("Never forget to run `npm test`.")).toEqual([]);
    expect(rules("Don't commit without running `pnpm lint` first.")).toEqual([]);
    expect(rules("Never run `git push --force`, use `git push --force-with-lease`.")).toEqual(["deny Bash(git push --force *) @1"]);
    expect(rules("You can run `npm test` but never run `npm publish`.")).toEqual(["deny Bash(npm publish *) @1"]);
    expect(rules("Never edit `package-lock.json` by hand — use `npm install`.")).toEqual(["deny Edit(package-lock.json) @1"]);
    expect(rules("Never use the `Bash` tool to read files; use `Read`.")).toEqual([]);
    expect(rules("Do not run `git push` to `main`.")).toEqual([]);
    expect(rules("Never run `git push --force`, `git reset --hard` or `rm -rf /`.")).toEqual(["deny Bash(git push --force *) @1", "deny Bash(git reset --hard *) @1", "deny Bash(rm -rf / *) @1"]);
    // "don't X without running Y" is no ban on X: a reminder to run Y before it (a commit here)
    const r = c("Don't commit without running `pnpm lint` first.");
    expect(r.rules).toEqual([]);
    expect(r.reminders.map((x) => [x.on, x.run])).toEqual([["commit", ["pnpm lint"]]]);
    expect(c("Don't merge without running `pnpm lint` first.").unenforced[0]!.why).toMatch(/"without" makes it a condition/);
    expect(c("Do not run `git push` to `main`.").unenforced[0]!.why).toMatch(/"git push" is narrowed by "to"/);
  });

  it("a lead-in ending with a colon governs the list under it, item by item, until the list ends", () => {
    const md = "Never run these commands:\n\n- `rm -rf /`\n- `git push --force` (rewrites history)\n- run tests often\n\nDon't edit the following files:\n1. `package-lock.json`\nSome prose.\n- `make deploy`\n\nAsk before running:\n- `npm publish`\n";
    expect(rules(md)).toEqual(["deny Bash(rm -rf / *) @3", "deny Bash(git push --force *) @4", "deny Edit(package-lock.json) @8", "ask Bash(npm publish *) @13"]);
    expect(c(md).rules[0]!.text).toBe("Never run these commands `rm -rf /`");
    expect(rules("Useful commands:\n- `npm test`\n")).toEqual([]);
  });

  it("edit and read verbs make path rules; tool names make tool rules", () => {
    expect(rules("- Don't edit anything in `generated/**`\n- Never read `.env` or `secrets/*.pem`\n- Never use the `WebFetch` tool\n- do not call `mcp__github__delete_repo`")).toEqual([
      "deny Edit(generated/**) @1",
      "deny Read(.env) @2",
      "deny Read(secrets/*.pem) @2",
      "deny WebFetch @3",
      "deny mcp__github__delete_repo @4",
    ]);
  });

  it("ask phrasings become ask rules", () => {
    expect(rules("- Ask before running `npm publish`.\n- Running `terraform apply` requires approval.\n- Get approval before you edit `migrations/**`.")).toEqual([
      "ask Bash(npm publish *) @1",
      "ask Bash(terraform apply *) @2",
      "ask Edit(migrations/**) @3",
    ]);
  });

  it("preferences deny the avoided command and carry the preferred one as a hint", () => {
    const r = c("- Use `pnpm` instead of `npm`.\n- Prefer `rg` over `grep -r`.\n- Instead of `yarn`, use `pnpm`.").rules;
    expect(r.map((x) => [x.rule, x.hint])).toEqual([
      ["Bash(npm *)", "use `pnpm` instead"],
      ["Bash(grep -r *)", "use `rg` instead"],
      ["Bash(yarn *)", "use `pnpm` instead"],
    ]);
  });

  it("post-edit reminders", () => {
    expect(c("- After changing `src/**/*.ts`, run `npm test` and `npm run lint`.").reminders).toEqual([
      { file: "/p/AGENTS.md", line: 1, text: "After changing `src/**/*.ts`, run `npm test` and `npm run lint`.", scope: "/p", paths: ["src/**/*.ts"], run: ["npm test", "npm run lint"], on: "edit", action: "run `npm test` and `npm run lint`." },
    ]);
    // a reminder after every edit is refused (it would fire on everything), and listed with why
    const every = c("Always run `make check` after any change.");
    expect(every.reminders).toEqual([]);
    expect(every.unenforced[0]).toMatchObject({ line: 1, kind: "every-edit" });
  });

  it("rule-like sentences that do not compile are listed as advice with the reason; plain prose is ignored", () => {
    const r = c("- Never `frobnicate` anything.\n- Keep functions small.\n- Never commit secrets.\nThe build is fast.");
    expect(r.rules).toEqual([]);
    expect(r.unenforced).toEqual([
      { file: "/p/AGENTS.md", line: 1, text: "Never `frobnicate` anything.", why: 'no run/edit/read verb before "frobnicate"', kind: "no-target" },
      { file: "/p/AGENTS.md", line: 2, text: "Keep functions small.", why: "about how code is written, not a tool call", kind: "style" },
      { file: "/p/AGENTS.md", line: 3, text: "Never commit secrets.", why: "names no command, file or tool to enforce", kind: "no-target" },
    ]);
  });

  it("explicit fenced rules: deny/ask in Claude Code grammar; allow and bad rules are problems with their line", () => {
    const r = c("Intro\n```toolhost\n# comment\ndeny Bash(rm -rf /*)\nask Edit(//etc/**)\nallow Bash(rm *)\ndeny Bash(\nnonsense\n```\n");
    expect(r.rules.map((x) => `${x.behavior} ${x.rule} @${x.line}`)).toEqual(["deny Bash(rm -rf /*) @4", "ask Edit(//etc/**) @5"]);
    expect(r.problems.map((p) => p.line)).toEqual([6, 7, 8]);
    expect(r.problems[0]!.why).toMatch(/allow rules are refused in AGENTS\.md/);
    expect(r.problems[1]!.why).toMatch(/closing "\)"/);
  });

  it("an unclosed fence is a problem naming its line; very long lines and span-heavy sentences are not compiled (and cost little)", () => {
    const r = c("- Never run `a1`.\n```toolhost\ndeny Bash(x)\n- Never run `b1`.\n");
    expect(r.problems.map((p) => [p.line, /never closed/.test(p.why)])).toContainEqual([2, true]);
    const long = "- Never run " + Array.from({ length: 8000 }, (_, i) => `\`c${i}\``).join(" ") + ".";
    const t0 = performance.now();
    const big = c(long + "\n" + "Never run `ok`. ".repeat(2000));
    expect(performance.now() - t0).toBeLessThan(5000); // a sanity bound, not a benchmark: it used to take 20 s
    expect(big.rules.some((x) => x.rule === "Bash(c1 *)")).toBe(false);
    expect(big.unenforced[0]!.why).toMatch(/longer than/);
  });

  it("CRLF line ends, NUL bytes and stray backticks neither crash nor shift line numbers", () => {
    expect(rules("# Rules\r\n- Never run `make nuke`.\r\n")).toEqual(["deny Bash(make nuke *) @2"]);
    expect(() => c("\u0000\u0001`\u0000 never run ` ``` `` `\n".repeat(50))).not.toThrow();
    expect(rules("- Never run `` `.\n- Never run `ok`.")).toEqual(["deny Bash(ok *) @2"]);
  });

  it("code inside other fenced blocks is not read as rules; duplicates compile once", () => {
    expect(rules("```sh\n# never run `rm -rf /`\n```\n- Never run `rm -rf /`.\n- Never run `rm -rf /`!")).toEqual(["deny Bash(rm -rf / *) @4"]);
  });
});
