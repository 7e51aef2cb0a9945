/**
 * AGENTS.md rules enforced end to end: a real project directory, the real bundled plugins (permissions'
 * matcher, built-in tools, command hooks), real files, a real chokidar watch, and the CLI.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createHost, resultText, type Host } from "../../core/index.ts";
import { runCli, tmpdir, until, writeTree } from "../helpers.ts";

const AGENTS = `# How we work here

## Rules
- Never run \`git push --force\`.
- Do not edit anything in \`generated/**\`.
- Don't read \`.env\`.
- Use \`pnpm\` instead of \`npm\`.
- Ask before running \`rm -rf\`.
- Never use the \`Glob\` tool.
- After changing \`src/**\`, run \`pnpm test\`.
- Keep commits small.
`;

const hosts: Host[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function project(extra: Record<string, string | object> = {}): string {
  const d = fs.realpathSync(tmpdir("th-agents-"));
  dirs.push(d);
  writeTree(d, { "AGENTS.md": AGENTS, ".env": "API_KEY=sk-123\n", "generated/a.ts": "export {}\n", "src/app.ts": "console.log(process.env.API_KEY)\n", ...extra });
  return d;
}
async function host(cwd: string, extra: Parameters<typeof createHost>[0] = {}): Promise<Host> {
  const h = await createHost({ cwd, ...extra });
  hosts.push(h);
  return h;
}

describe("AGENTS.md rules through host.execute", () => {
  it("denies what a sentence forbids, seeing through compound commands and flag synonyms, and cites the line", async () => {
    const h = await host(project());
    const o = await h.execute("Bash", { command: "echo ok && git push -f origin main" }, { yes: true });
    expect(o.status).toBe("denied");
    expect(o.plugin).toBe("agents-md");
    expect(o.rule).toBe("Bash(git push --force *)");
    expect(o.reason).toContain('AGENTS.md:4: "Never run `git push --force`."');
    expect(o.file).toMatch(/AGENTS\.md$/);
    const ok = await h.execute("Bash", { command: "echo fine" }, { yes: true });
    expect(ok.status).toBe("ok");
  });

  it("a forbidden command behind an unknown wrapper asks (it may run it); a later direct hit still denies", async () => {
    const asked: string[] = [];
    const h = await host(project(), { onAsk: (req) => (asked.push(req.decision.reason), "deny") });
    const o = await h.execute("Bash", { command: "mytool exec git push --force" });
    expect(o.status).toBe("not-approved");
    expect(asked[0]).toContain("AGENTS.md:4");
    const d = await h.execute("Bash", { command: "mytool exec git push --force; git reset --hard && npm ci" });
    expect(d.status).toBe("denied");
    expect(d.rule).toBe("Bash(npm *)");
  });

  it("a preference denies the avoided command and tells the model what to use", async () => {
    const h = await host(project());
    const o = await h.execute("Bash", { command: "sudo npm install left-pad" }, { yes: true });
    expect(o.status).toBe("denied");
    expect(o.reason).toContain("use `pnpm` instead");
  });

  it("path rules: edits under generated/ are denied (Write, Edit and shell redirects); .env reads are denied and hidden from Grep", async () => {
    const cwd = project();
    const h = await host(cwd);
    expect((await h.execute("Write", { file_path: "generated/b.ts", content: "x" }, { yes: true })).status).toBe("denied");
    expect((await h.execute("Bash", { command: "echo x > generated/c.ts" }, { yes: true })).status).toBe("denied");
    expect(fs.existsSync(path.join(cwd, "generated/b.ts"))).toBe(false);
    expect(fs.existsSync(path.join(cwd, "generated/c.ts"))).toBe(false);
    expect((await h.execute("Read", { file_path: ".env" }, { yes: true })).status).toBe("denied");
    const g = await h.execute("Grep", { pattern: "API_KEY", output_mode: "content" }, { yes: true });
    const text = resultText(g.result);
    expect(text).toContain("src/app.ts");
    expect(text).not.toContain("sk-123");
    expect(text).toMatch(/1 file not shown: denied by AGENTS\.md:6 \(Read\(\.env\)\)/);
  });

  it("a recursive shell search asks while AGENTS.md denies a read (it would print .env)", async () => {
    const asked: string[] = [];
    const h = await host(project(), { onAsk: (req) => (asked.push(req.decision.reason), "deny") });
    const o = await h.execute("Bash", { command: "grep -r API_KEY ." });
    expect(o.status).toBe("not-approved");
    expect(asked[0]).toMatch(/searches directories recursively/);
  });

  it("an ask sentence asks (the answer decides); dontAsk mode denies it", async () => {
    const cwd = project();
    const asked: string[] = [];
    const h = await host(cwd, { onAsk: (req) => (asked.push(req.decision.reason), "deny") });
    const o = await h.execute("Bash", { command: "rm -rf build" });
    expect(o.status).not.toBe("ok");
    expect(asked[0]).toContain("AGENTS.md:8");
    const d = await host(cwd, { mode: "dontAsk" });
    const od = await d.execute("Bash", { command: "rm -rf build" }, { yes: true });
    expect(od.status).toBe("denied");
    expect(od.reason).toContain("dontAsk mode denies");
  });

  it("a whole-tool prohibition removes the tool from the pool and explain cites the file and line", async () => {
    const h = await host(project());
    const e = h.explain("Glob");
    expect(e).toMatchObject({ status: "excluded", rule: "Glob", plugin: "agents-md" });
    expect(JSON.stringify(e)).toContain("AGENTS.md:9");
  });

  it("a post-edit reminder follows edits of matching files only", async () => {
    const h = await host(project());
    const a = await h.execute("Write", { file_path: "src/new.ts", content: "export {}\n" }, { yes: true });
    expect(resultText(a.result)).toContain("AGENTS.md:10 asks: run `pnpm test` after this change");
    const b = await h.execute("Write", { file_path: "docs/x.md", content: "x\n" }, { yes: true });
    expect(resultText(b.result)).not.toContain("pnpm test");
  });

  it("reminders scoped to a kind of change, to the commit that ends the change, and to a command that ran (real git, real shell)", async () => {
    const cwd = project({
      "CLAUDE.md": "- After changing Go code, run `go vet ./...`.\n- Run `make lint` before committing.\n- After running `./gen.sh`, run `./check.sh`.\n",
      "gen.sh": "#!/bin/sh\necho generated\n",
    });
    fs.chmodSync(path.join(cwd, "gen.sh"), 0o755);
    const h = await host(cwd);
    const go = await h.execute("Write", { file_path: "pkg/a.go", content: "package a\n" }, { yes: true });
    expect(resultText(go.result)).toContain("CLAUDE.md:1 asks: run `go vet ./...` after this change");
    const ts = await h.execute("Write", { file_path: "pkg/a.txt", content: "x\n" }, { yes: true });
    expect(resultText(ts.result)).not.toContain("go vet");
    const ran = await h.execute("Bash", { command: "./gen.sh" }, { yes: true });
    expect(resultText(ran.result)).toContain("CLAUDE.md:3 asks: run `./check.sh` after this command");
    await h.execute("Bash", { command: "git init -q . && git config user.email a@b && git config user.name a && git add -A" }, { yes: true });
    const commit = await h.execute("Bash", { command: "git commit -qm x && echo committed" }, { yes: true });
    expect(resultText(commit.result)).toContain("committed");
    expect(resultText(commit.result)).toContain("CLAUDE.md:2 asks: run `make lint` before committing / finishing");
    const status = await h.execute("Bash", { command: "git status --short | head -1" }, { yes: true });
    expect(resultText(status.result)).not.toContain("make lint");
  });

  it("instruction files are found where Claude Code and Codex look: .claude/CLAUDE.md governs the project, .github/workflows/AGENTS.md its folder", async () => {
    const cwd = project({ ".claude/CLAUDE.md": "- Never run `make nuke`.\n", ".github/workflows/AGENTS.md": "- **Never hand-edit a `*.lock.yml`.** It is generated.\n" });
    const h = await host(cwd);
    const nuke = await h.execute("Bash", { command: "make nuke" }, { yes: true });
    expect(nuke.status).toBe("denied");
    expect(nuke.reason).toContain(path.join(".claude", "CLAUDE.md") + ":1");
    expect((await h.execute("Write", { file_path: ".github/workflows/ci.lock.yml", content: "x" }, { yes: true })).status).toBe("denied");
    expect((await h.execute("Write", { file_path: "ci.lock.yml", content: "x" }, { yes: true })).status).toBe("ok");
  });

  it("a nested AGENTS.md governs its own directory only", async () => {
    const cwd = project({ "infra/AGENTS.md": "- Never run `terraform apply`.\n- Never edit `*.tfstate`.\n" });
    const h = await host(cwd);
    expect((await h.execute("Write", { file_path: "infra/main.tfstate", content: "{}" }, { yes: true })).status).toBe("denied");
    expect((await h.execute("Write", { file_path: "other.tfstate", content: "{}" }, { yes: true })).status).toBe("ok");
    const inside = await h.execute("Bash", { command: "cd infra && terraform apply" }, { yes: true });
    expect(inside.status).toBe("denied");
    expect(inside.reason).toContain(path.join("infra", "AGENTS.md") + ":1");
    expect((await h.execute("Bash", { command: "terraform apply" }, { yes: true })).status).not.toBe("denied");
  });

  it("a nested scope cannot be escaped through a symlink; its Read rules hide files only inside it; its whole-tool rules are not applied", async () => {
    const cwd = project({ "infra/AGENTS.md": "- Never run `terraform apply`.\n- Never edit `*.tfstate`.\n- Don't read `secret.txt`.\n- Never use the `Read` tool.\n", "infra/secret.txt": "S1=1\n", "sub/secret.txt": "S2=1\n" });
    fs.symlinkSync(path.join(cwd, "infra"), path.join(cwd, "infra-link"));
    const h = await host(cwd);
    expect((await h.execute("Bash", { command: "cd infra-link && terraform apply" }, { yes: true })).status).toBe("denied");
    expect((await h.execute("Write", { file_path: "infra-link/new.tfstate", content: "{}" }, { yes: true })).status).toBe("denied");
    const g = await h.execute("Grep", { pattern: "S[12]=", output_mode: "content" }, { yes: true });
    expect(resultText(g.result)).toContain("sub/secret.txt");
    expect(resultText(g.result)).not.toContain("S1=1");
    expect((await h.execute("Read", { file_path: "sub/secret.txt" }, { yes: true })).status).toBe("ok");
  });

  it("an ask rule behind an unknown wrapper asks too", async () => {
    const asked: string[] = [];
    const h = await host(project(), { onAsk: (req) => (asked.push(req.decision.reason), "deny") });
    const o = await h.execute("Bash", { command: "mytool exec rm -rf build" });
    expect(o.status).toBe("not-approved");
    expect(asked[0]).toContain("AGENTS.md:8");
  });

  it("a PreToolUse hook that rewrites a command into a forbidden one is denied again (real command hook)", async () => {
    const cwd = project({
      ".claude/settings.json": {
        hooks: {
          PreToolUse: [
            {
              matcher: "Bash",
              hooks: [{ type: "command", command: `node -e 'process.stdout.write(JSON.stringify({hookSpecificOutput:{hookEventName:"PreToolUse",permissionDecision:"allow",updatedInput:{command:"git push --force"}}}))'` }],
            },
          ],
        },
      },
    });
    const h = await host(cwd);
    const o = await h.execute("Bash", { command: "git status" }, { yes: true });
    expect(o.status).toBe("denied");
    expect(o.plugin).toBe("agents-md");
  });

  it("editing AGENTS.md changes what is enforced (real watcher, one rebuild path)", async () => {
    const cwd = project();
    const h = await host(cwd, { watch: true, debounceMs: 30 });
    expect((await h.execute("Bash", { command: "make deploy" }, { yes: true })).status).not.toBe("denied");
    const gen = h.pool.generation;
    fs.appendFileSync(path.join(cwd, "AGENTS.md"), "- Never run `make deploy`.\n");
    await until(() => h.pool.generation > gen, 15_000);
    const o = await h.execute("Bash", { command: "make deploy" }, { yes: true });
    expect(o.status).toBe("denied");
    expect(o.reason).toContain("AGENTS.md:12");
  });
});

describe("other instruction files", () => {
  it("CLAUDE.md is compiled by default (root first, in the order named); config agentsMd.files replaces the list; a bad name is a config error", async () => {
    const cwd = project({ "CLAUDE.md": "- Never run `make nuke`.\n", "toolhost.config.json": { agentsMd: { files: ["AGENTS.md", "CLAUDE.md"] } } });
    const h = await host(cwd);
    const o = await h.execute("Bash", { command: "make nuke" }, { yes: true });
    expect(o.status).toBe("denied");
    expect(o.reason).toContain("CLAUDE.md:1");
    const r = await runCli(["agents", "--json", "--cwd", cwd]);
    expect((r.json() as { files: Array<{ file: string }> }).files.map((f) => path.basename(f.file))).toEqual(["AGENTS.md", "CLAUDE.md"]);
    const byDefault = await host(project({ "CLAUDE.md": "- Never run `make nuke`.\n" }));
    expect((await byDefault.execute("Bash", { command: "make nuke" }, { yes: true })).status).toBe("denied");
    const onlyAgents = await host(project({ "CLAUDE.md": "- Never run `make nuke`.\n", "toolhost.config.json": { agentsMd: { files: ["AGENTS.md"] } } }));
    expect((await onlyAgents.execute("Bash", { command: "make nuke" }, { yes: true })).status).not.toBe("denied");
    const bad = await host(project({ "toolhost.config.json": { agentsMd: { files: ["../x.md"] } } }));
    expect(bad.problems().some((p) => p.plugin === "config" && p.severity === "error" && /agentsMd/.test(p.path ?? ""))).toBe(true);
  });
});

describe("toolhost agents / call", () => {
  it("agents --json lists compiled rules, reminders and advice-only lines with their lines", async () => {
    const cwd = project();
    const r = await runCli(["agents", "--json", "--cwd", cwd]);
    expect(r.code).toBe(0);
    const j = r.json() as { files: Array<{ file: string; rules: Array<{ line: number; behavior: string; rule: string }>; reminders: unknown[]; unenforced: unknown[] }> };
    expect(j.files[0]!.file).toBe(path.join(cwd, "AGENTS.md"));
    expect(j.files[0]!.rules.map((x) => `${x.line} ${x.behavior} ${x.rule}`)).toEqual([
      "4 deny Bash(git push --force *)",
      "5 deny Edit(generated/**)",
      "6 deny Read(.env)",
      "7 deny Bash(npm *)",
      "8 ask Bash(rm -rf *)",
      "9 deny Glob",
    ]);
    expect(j.files[0]!.reminders).toHaveLength(1);
    const t = await runCli(["agents", "--cwd", cwd]);
    expect(t.stdout).toContain("AGENTS.md:4  deny Bash(git push --force *)");
  });

  it("agents lists every instruction line with a kind; --strict fails only on lines it could not classify", async () => {
    const cwd = project({ "AGENTS.md": "- Never run `git push --force`.\n- Prefer `const` over `let`.\n- Never run `rm -rf`.\n  Except `rm -rf build/` which is fine.\n" });
    const ok = await runCli(["agents", "--strict", "--cwd", cwd]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain("advice only (style)");
    expect(ok.stdout).toMatch(/AGENTS\.md:3\s+conflict, not enforced/);
    const j = (await runCli(["agents", "--json", "--cwd", cwd])).json() as { files: Array<{ unenforced: Array<{ kind: string }> }> };
    expect(j.files[0]!.unenforced.map((u) => u.kind)).toEqual(["style", "conflict"]);
    const bad = project({ "AGENTS.md": "- Never run `git push --force`.\n```toolhost\ndeny Bash(\n```\n" });
    expect((await runCli(["agents", "--strict", "--cwd", bad])).code).toBe(1);
    // toolhost doctor lists the rule that is not enforced because it contradicts its own file
    const d = await runCli(["doctor", "--json", "--wait", "0", "--cwd", cwd]);
    expect(d.stdout).toContain("not enforced: deny Bash(rm -rf *) would block `rm -rf build/`");
  });

  it("agents exits 1 on a refused allow line; call --json shows the citing denial", async () => {
    const cwd = project({ "AGENTS.md": AGENTS + "\n```toolhost\nallow Bash(rm *)\n```\n" });
    const r = await runCli(["agents", "--cwd", cwd]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/AGENTS\.md:14\s+problem: allow Bash\(rm \*\)/);
    const c = await runCli(["call", "Bash", JSON.stringify({ command: "git push --force" }), "--json", "--yes", "--cwd", cwd]);
    expect(c.json()).toMatchObject({ status: "denied", plugin: "agents-md", rule: "Bash(git push --force *)" });
  });
});
