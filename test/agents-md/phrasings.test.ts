/**
 * The phrasings issue 17 lists (missed most by the first compiler), each with the calls it must and must
 * not catch, checked with the permissions plugin's matcher (the same one the plugin enforces with).
 */
import { describe, expect, it } from "vitest";
import { matchesRule } from "../../lib/rules/match.ts";
import { compileAgentsMd, type Compiled } from "../../plugins/agents-md/compile.ts";
import { reminderFires } from "../../plugins/agents-md/remind.ts";
import { parseCall } from "./evaluate.ts";

const c = (md: string) => compileAgentsMd(md, "/repo/AGENTS.md", "/repo");
/** What the compiled file does to a call: "deny", "ask", "remind" or "" (nothing). */
function effect(out: Compiled, call: string): string {
  const k = parseCall(call);
  // (deny wins over ask, as in the permission decision)
  const hits = out.rules.filter((r) => matchesRule(r.rule, k, { cwd: "/repo", rulesRoot: "/repo", behavior: r.behavior }));
  const hit = hits.find((r) => r.behavior === "deny") ?? hits[0];
  if (hit) return hit.behavior;
  return out.reminders.some((r) => reminderFires(r, k.toolName, k.input, "/repo")) ? "remind" : "";
}
function expectEffects(md: string, want: Record<string, string>): Compiled {
  const out = c(md);
  expect(Object.fromEntries(Object.keys(want).map((k) => [k, effect(out, k)]))).toEqual(want);
  return out;
}

describe("AGENTS.md phrasings (issue 17)", () => {
  it("asks: unless explicitly asked, ask before, ask the user before, a table cell", () => {
    expectEffects("- Do not run `make e2e` unless explicitly asked.\n- Ask before adding dependencies.\n| `make bench` | don't run unless asked |\n", {
      "Bash: make e2e": "ask",
      "Bash: uv add requests": "ask",
      "Bash: make bench --quick": "ask",
      "Bash: make test": "",
    });
    // "do not ask for approval to run it" grants, it does not ask
    expect(c("Run `just fmt` after Rust code changes; do not ask for approval to run it.").rules).toEqual([]);
  });

  it("generated files: a passive lead-in over a list, 'is auto-generated', 'is GENERATED', '(they are generated)'", () => {
    const out = expectEffects("These files are produced by `make gen` and must not be edited:\n\n- `api/types.gen.ts`\n- `api/client.gen.ts`\n\n`x.d.ts` is auto-generated.\n\nAny file under `fixtures/*/` is GENERATED.\n", {
      "Edit: api/types.gen.ts": "deny",
      "Write: api/client.gen.ts": "deny",
      "Edit: src/x.d.ts": "deny", // a bare file name matches at any depth, as in Claude Code
      "Edit: src/y.d.ts": "",
      "Edit: fixtures/a/b.json": "deny",
      "Edit: api/server.ts": "",
    });
    expect(out.rules.find((r) => r.rule === "Edit(api/types.gen.ts)")!.line).toBe(3);
  });

  it("flag and argument bans match the flag in any position of its command", () => {
    expectEffects("- Never build with `--release`.\n- Never use `--amend`.\n- Never push `main`.\n", {
      "Bash: cargo build --release": "deny",
      "Bash: cargo run --release --bin x": "deny",
      "Bash: git commit --amend -m x": "deny",
      "Bash: git commit -m x --amend": "deny",
      "Bash: git push origin main": "deny",
      "Bash: git push origin feature": "",
      "Bash: cargo build": "",
    });
  });

  it("reminders triggered by words, scoped to the kinds named; before committing; after running a command", () => {
    const out = expectEffects("- After changing Go code, run `go fmt ./...`.\n- Run `make lint` before committing.\n- After running `afl-cmin`, run `./sanitize.sh`.\n", {
      "Edit: pkg/server.go": "remind",
      "Edit: README.txt": "",
      "Bash: git commit -m x": "remind",
      "Bash: afl-cmin -i a -o b -- bin": "remind",
      "Bash: git status": "",
    });
    expect(out.reminders.map((r) => r.on)).toEqual(["edit", "commit", "command"]);
    // a reminder after every edit is refused, and says so
    expect(c("Run `make check` after every change.").unenforced[0]!.kind).toBe("every-edit");
  });

  it("plain-word bans and verbs outside the old list", () => {
    expectEffects("- Never create a PR.\n- Only uv, never pip.\n- Never run git push --force\n- Don't read .env\n- Do not delete anything in public/\n- Never force-push, amend, or squash unless asked.\n", {
      "Bash: gh pr create --fill": "deny",
      "Bash: pip install x": "deny",
      "Bash: uv pip list": "",
      "Bash: git push -f origin main": "deny",
      "Read: .env": "deny",
      "Edit: public/index.html": "deny",
      "Bash: git merge --squash feature": "ask",
      "Bash: git commit --amend": "ask",
      "Bash: git push origin feature": "",
    });
  });

  it("alternatives all compile, placeholders become wildcards; 'yarn, not npm'", () => {
    const out = expectEffects("- Use `bun <file>` instead of `node <file>` or `ts-node <file>`.\n- yarn, not npm\n", {
      "Bash: node x.js": "deny",
      "Bash: ts-node x.ts": "deny",
      "Bash: bun x.ts": "",
      "Bash: npm install": "deny",
      "Bash: yarn install": "",
    });
    expect(out.rules[0]!.hint).toBe("use `bun <file>` instead");
  });

  it("label-colon bans, bans in a heading, pronoun bans", () => {
    expectEffects("- **NO force pushes**: `git push --force`\n- FORBIDDEN: `pip install`\n\n## Never run `terraform destroy`\n\nThe generated clients live in `gen/`. Do not edit them directly.\n", {
      "Bash: git push --force origin x": "deny",
      "Bash: pip install x": "deny",
      "Bash: terraform destroy -auto-approve": "deny",
      "Edit: gen/client.ts": "deny",
      "Edit: src/client.ts": "",
    });
  });

  it("the seed's patterns: 'when writing to {path}, also {action}' and 'keep {path} immutable' / 'do not modify {path}'", () => {
    const out = expectEffects("- When writing to `config/schema.json`, also update `docs/config.md`.\n- Keep `migrations/` immutable.\n- Do not modify `vendor/lib.js`.\n", {
      "Edit: config/schema.json": "remind",
      "Edit: config/other.json": "",
      "Write: migrations/001.sql": "deny",
      "Edit: vendor/lib.js": "deny",
    });
    expect(out.reminders[0]!.action).toMatch(/also update/);
  });

  it("precision: style advice never becomes a rule; a rule that blocks what the file says to do is a conflict; an exception on the next line is kept", () => {
    const out = c("- Prefer `const` over `let`.\n- Never bare `rm`.\n- Do not use `.white()`.\n- **FORBIDDEN** `except Exception:` - unless in top-level handlers\n- Never run `rm -rf`.\n  Except `rm -rf build/` which is fine.\n");
    expect(out.rules).toEqual([]);
    expect(out.unenforced.find((u) => u.kind === "conflict")).toMatchObject({ line: 5, why: expect.stringContaining("rm -rf build/") });
    expect(out.unenforced.every((u) => u.kind && u.kind !== "unclassified")).toBe(true);
  });

  // phrasings added from the 23 tuning files of 2026-12-03 (real lines, see docs/agents-md.md)
  it("reminders before a push or a pull request, actions in words, 'do not X without Y', 'every PR needs a changeset'", () => {
    const out = expectEffects(
      "4. **Format your code before pushing.**\n- When submitting a PR, you **MUST** read the template and fill it out.\n- DO NOT submit a PR without running the full test suite.\n- **Required**: Every PR modifying production code needs a changeset\n",
      { "Bash: git push origin my-branch": "remind", "Bash: gh pr create --fill": "remind", "Bash: git commit -m x": "", "Bash: git status": "" },
    );
    expect(out.reminders.map((r) => r.before)).toEqual([["Bash(git push *)"], ["Bash(gh pr create *)"], ["Bash(gh pr create *)"], ["Bash(gh pr create *)"]]);
    // "check / ensure / run the relevant tests" names nothing to do: guidance, not a reminder
    expect(c("Before proposing a PR, check for overlapping open PRs.").reminders).toEqual([]);
    expect(c("- Run the relevant tests and checks locally before pushing.").reminders).toEqual([]);
  });

  it("reminders after an edit with the action in words, 'changes to P require Q', a bare 'Do Not' heading over plain items", () => {
    expectEffects(
      "All pages must be registered in `docs.json`. When adding a page, add its path (without `.mdx` extension) to the appropriate group.\n\n- Dependencies: updates to client-side deps in `pyproject.toml` require parallel changes in `client/pyproject.toml`\n\n## Do Not\n\n- Add new dependencies without running `pnpm update-references`\n",
      { "Write: v3/concepts/new.mdx": "remind", "Edit: pyproject.toml": "remind", "Edit: packages/ai/package.json": "remind", "Edit: src/index.ts": "" },
    );
    // a trigger that does not lead: the path is the action's, not the trigger's
    expect(c("- Update docs/examples when API behavior changes (at minimum `app-server/README.md`).").reminders).toEqual([]);
  });

  it("asks: 'without a manual approval', 'without explicit instructions from a human', 'Only amend if the user says so'; 'Never `git push`'", () => {
    expectEffects(
      "You cannot create a pull request, issue or leave a comment without a manual approval of your operator.\n\n**Never amend commits.** Always create a new commit. Only amend if the user explicitly says so.\n\n**Never `git push` without an explicit instruction to push.**\n\nDO NOT try to bypass it by creating draft PRs.\n",
      {
        "Bash: gh pr create --fill": "ask",
        "Bash: gh issue create --title x": "ask",
        "Bash: gh pr comment 1 --body hi": "ask",
        "Bash: git commit --amend --no-edit": "ask",
        "Bash: git push origin fix": "ask",
        "Bash: gh pr create --draft --fill": "deny",
        "Bash: git commit -m x": "",
        "Bash: gh pr view 1": "",
      },
    );
    // a comment in code is not a comment on GitHub; "an open PR" is no action
    expect(c("- Comments explain why; do not add comments that merely restate code.\n- Never amend commits, even when iterating on an open PR.").rules.map((r) => r.rule)).toEqual(["Bash(git commit --amend *)"]);
  });

  it("flags and programs in words, fence comments, staging secrets, lists under one verb", () => {
    expectEffects(
      "Use **tox** for testing (not pytest directly):\n\n- Ensure pnpm is used (not npm/yarn)\n- **Never skip pre-commit hooks** (`--no-verify`) — fix the underlying issue instead\n- Never commit API keys, tokens, private keys, `.env` files, or customer data.\n\n```bash\ncargo build                    # build. never build with --release\n```\n\n```\nproject/\n├── src/                # sources\n└── uv.lock             # Lockfile (auto-generated, do not edit manually)\n```\n",
      {
        "Bash: pytest tests/test_basics.py": "deny",
        "Bash: uv run tox -e py3.14-common": "",
        "Bash: npm install": "deny",
        "Bash: yarn add lodash": "deny",
        "Bash: pnpm install": "",
        "Bash: git commit --no-verify -m x": "deny",
        "Bash: git add -f .env": "deny",
        "Bash: git add src/index.ts": "",
        "Bash: cargo build --release": "deny",
        "Bash: cargo build": "",
        "Edit: uv.lock": "deny",
        "Edit: src/main.py": "",
      },
    );
  });

  it("precision: programs that are English words, third-person verbs, 'by default', narrowed lists, exceptions under a lead-in, files the file says to write", () => {
    const out = c(
      "- Do not make a provider's optional dependency mandatory.\n- A passing typecheck never proves `dist` is fresh.\n- Do not use `--log-cli-level` by default.\n- Never use unix-only commands like `rm -rf` or `cp -r` in package.json scripts.\n\n## Auto-generated content — do not edit\n\n- `v3/examples/` — generated from examples\n- `v3/api-ref/events/` is **hand-authored** and should be edited directly\n\n- Create reproduction scripts in `repros/` directory.\n- DO NOT delete files from `repros/` directory unless asked\n",
    );
    expect(out.rules.map((r) => `${r.behavior} ${r.rule}`)).toEqual(["deny Edit(v3/examples/**)", "ask Bash(rm *repros/*)"]);
    expect(out.unenforced.every((u) => u.kind && u.kind !== "unclassified")).toBe(true);
  });

  it("table cells keep their narrowing words, flags in prose, hooks, 'without asking', forward lead-ins, 'autonomously', kinds of change", () => {
    expectEffects(
      "| `just brand` | never run in CI |\n| `make bench` | never run locally without asking |\n| `*.snap` | never edit by hand |\n\n- Never build with --release.\n- Never bypass the pre-commit hook.\n- Do not autonomously open issues or pull requests.\n- Update `docs/cli.mdx` when you change `src/cli.ts`.\n- After Rust changes, run `cargo clippy`.\n\nNever edit the following files.\n\n- `gen/a.ts`\n- `gen/b.ts`\n",
      {
        "Bash: just brand": "",
        "Bash: make bench": "ask",
        "Edit: tests/__snapshots__/x.snap": "deny",
        "Bash: cargo run --release --bin x": "deny",
        "Bash: git commit --no-verify -m x": "deny",
        "Bash: gh pr create --fill": "ask",
        "Bash: gh issue create --title x": "ask",
        "Edit: src/cli.ts": "remind",
        "Edit: crates/ide/src/lib.rs": "remind",
        "Edit: gen/b.ts": "deny",
        "Edit: src/other.ts": "",
      },
    );
    // "can be run without asking" grants; "where it's defined" is no referent
    expect(c("Project-specific tests can be run without asking the user.").rules).toEqual([]);
    expect(c("UI element values are accessed through `.value`.\nYou cannot access a UI element's value in the same cell where it's defined.").rules).toEqual([]);
  });
  it("precision: a pronoun stands for one kind of target, or the line stays advice", () => {
    // "them" after a sentence naming a source, a command and an output: which files?
    const amb = expectEffects("- Change `src/cli.ts`, run `pnpm gen` and commit `docs/cli.md`. Never edit them by hand.\n", { "Edit: src/cli.ts": "", "Edit: docs/cli.md": "" });
    expect(amb.unenforced.some((u) => /referent is ambiguous/.test(u.why))).toBe(true);
    // "that file" is the last path of the sentence before
    expectEffects("- Run `pnpm -C docs run cli-table` and commit the regenerated `docs/cli.md`; never edit that file by hand.\n", { "Edit: docs/cli.md": "deny", "Bash: pnpm -C docs run cli-table": "" });
  });
  it("reminders: the run clause after a description, commands in parentheses after the trigger, 'if you ever create a PR', a lead-in trigger over a checklist; 'instead of amending'", () => {
    // (the fence under the paragraph is what "these" runs)
    expectEffects("The committed clients must match the generator — CI fails on any diff, so run these and commit the result whenever you touch `templates/`.\n\n```bash\ngo run ./tools/generate\n```\n", {
      "Edit: templates/client.ts.tmpl": "remind",
      "Edit: src/server.go": "",
    });
    const paren = expectEffects("- Rebase from `main` before committing (`git fetch origin && git rebase origin/main`)\n", { "Bash: git commit -m fix": "remind", "Bash: git status": "" });
    expect(paren.reminders[0]!.run).toEqual(["git fetch origin && git rebase origin/main"]);
    expectEffects("- If you ever create a PR, you should be sure to check the formatting first with `npm run format` and `npm run lint`.\n", { "Bash: gh pr create --fill": "remind", "Bash: git commit -m x": "" });
    const list = expectEffects("Before opening a PR, **all of these must pass**:\n\n1. `pnpm run format` - Auto-format code\n2. `pnpm run lint` - Check code style\n", { "Bash: gh pr create --fill": "remind", "Bash: pnpm run format": "" });
    expect(list.reminders.map((r) => [r.line, r.run[0]])).toEqual([[3, "pnpm run format"], [4, "pnpm run lint"]]);
    // a description that ends in a colon is no trigger
    expect(c("These commands are useful:\n\n- `pnpm run format`\n").reminders).toEqual([]);
    expectEffects("- **Never force push.** Always create new commits instead of amending.\n", { "Bash: git commit --amend -m x": "deny", "Bash: git push --force": "deny", "Bash: git commit -m x": "" });
    // "prefer … rather than rebasing" is a preference; an action that is no git verb bans nothing
    expect(c("Prefer a merge commit rather than rebasing.\nUse a new file instead of editing.").rules).toEqual([]);
  });
  it("nothing dropped silently: a leading condition then an imperative, 'require', an item under a ban lead-in", () => {
    const kinds = (md: string) => c(md).unenforced.map((u) => [u.line, u.kind]);
    expect(kinds("When creating or moving files, update the relevant `DEPS.list` file.\n")).toEqual([[1, "guidance"]]);
    expect(kinds("Worker code in `src/runtime/` is loaded from `dist/`, so runtime changes also require rebuilding `vitest`.\n")).toEqual([[1, "guidance"]]);
    expect(kinds("Ask first:\n\n- Changes that affect demo, examples, or CI.\n")).toEqual([[1, "guidance"], [3, "no-target"]]);
    // a description stays out of the list
    expect(kinds("The router lives in `src/router.ts`.\n")).toEqual([]);
  });
  it("round of 2026-12-04 (bun, airflow, electron docs): 'only push after running X', 'until', participles after 'instead of', sources after 'generated from', env-prefixed told commands", () => {
    expectEffects("**ONLY** push up changes after running `bun bd test <file>` and ensuring your tests pass.\n", { "Bash: git push origin claude/x": "remind", "Bash: git commit -m x": "" });
    expectEffects("Don't push until `make lint` is clean.\n", { "Bash: git push": "remind" });
    expect(c("Never push until asked.").reminders).toEqual([]);
    expectEffects("Keep your branch rebased instead of merged.\n", { "Bash: git merge main": "deny", "Bash: git rebase main": "" });
    // a merge in a plain ban has an object the call does not show ("never merge directly" into `master`)
    expect(c("`master` = last released state — never merge directly").rules).toEqual([]);
    // what "generated from `x`" names is the source
    expect(c("Many files are auto-generated from `.classes.ts` and other sources.").rules).toEqual([]);
    expectEffects("`api.d.ts` is generated from `schema.json`.\n", { "Edit: api.d.ts": "deny", "Edit: schema.json": "" });
    // a command the file tells the agent to run, behind an environment assignment and with a placeholder, is a conflict for the ban
    const out = c("- Never use `bun test` directly.\n- Verify your test fails with `USE_SYSTEM_BUN=1 bun test <file>`.\n");
    expect(out.rules).toEqual([]);
    expect(out.unenforced.find((u) => u.kind === "conflict")).toMatchObject({ line: 1, why: expect.stringContaining("USE_SYSTEM_BUN=1 bun test <file>") });
  });
  it("round of 2026-12-04 (zod, turborepo): 'ask before generating new files', an update lead-in over a sub-list that names the files", () => {
    expectEffects("- Ask before generating new files\n", { "Write: src/new.ts": "ask", "Edit: src/old.ts": "" });
    const md = "- **[ARCHITECTURE.md](./ARCHITECTURE.md)** - Update when changing core `turbo run` components:\n  - Run builder, task graph\n  - Any files in `crates/lib/src/run/` or `crates/cache/`\n\n- **[CONTRIBUTING.md](./CONTRIBUTING.md)** - Update when changing:\n  - Build process or development setup\n";
    const out = expectEffects(md, { "Edit: crates/lib/src/run/builder.rs": "remind", "Edit: crates/cache/src/lib.rs": "remind", "Edit: crates/lib/src/cli.rs": "" });
    expect(out.reminders.map((r) => r.line)).toEqual([1]);
    // a lead-in whose list names no file stays advice; an action through a pronoun names nothing
    expect(out.unenforced.some((u) => u.line === 5)).toBe(true);
    expect(c("Run it when you change:\n- `src/agents/` (library code).\n").reminders).toEqual([]);
  });
  it("nothing dropped silently, the net: negative forms, normative statements, bare imperatives, a trigger with a command, items under a heading of rules", () => {
    const lines = (md: string) => {
      const out = c(md);
      return [...new Set([...out.rules.map((r) => r.line), ...out.reminders.map((r) => r.line), ...out.unenforced.map((u) => u.line)])].sort((a, b) => a - b);
    };
    // (constructed sentences, one shape each: none carries a word of the old list and none starts with one of its verbs)
    const md = [
      "Agents mustn't touch the release scripts.",
      "No force pushes to shared branches.",
      "Only use the Makefile targets for builds.",
      "Bump the minor version for breaking changes.",
      "Files in the output folder are auto-generated.",
      "Before committing: `make lint-all`.",
      "`make docs` — regenerate after API changes.",
      "Tests cannot hit the network.",
      "",
      "## Boundaries",
      "",
      "- Production credentials stay out of the repository.",
      "- `site/`: built documentation output.",
      "",
      "## Project layout",
      "",
      "- The router lives in the core package.",
    ].join("\n");
    expect(lines(md)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 12]);
    // listing is all the net does: it adds no rule
    expect(c(md).unenforced.every((u) => u.kind && u.kind !== "unclassified")).toBe(true);
  });
});
