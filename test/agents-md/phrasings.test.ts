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
  const hit = out.rules.find((r) => matchesRule(r.rule, k, { cwd: "/repo", rulesRoot: "/repo", behavior: r.behavior }));
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
});
