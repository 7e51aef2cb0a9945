/**
 * CLI hygiene (issue 19, item 7): unknown flags and commands are usage errors with a "did you mean" and
 * never run anything; --version; `help <command>`; EPIPE-safe output; shell completion scripts that a
 * real bash accepts.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../contract/house.ts";

const BIN = path.join(ROOT, "bin/toolhost.mjs");
const run = (args: string[], cwd = ROOT) => spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: "utf8" });

describe("CLI hygiene", () => {
  it("a mistyped flag exits 3 with a did-you-mean and runs nothing", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "th-flags-"));
    const target = path.join(dir, "pwned");
    const r = run(["call", "Bash", JSON.stringify({ command: `touch ${target}` }), "--dryrun", "--yes", "--cwd", dir]);
    expect(r.status).toBe(3);
    expect(r.stderr).toContain('unknown flag --dryrun (did you mean "--dry-run"?)');
    expect(fs.existsSync(target)).toBe(false);
    // the same call spelled right does run (so the test can fail)
    const ok = run(["call", "Bash", JSON.stringify({ command: `touch ${target}` }), "--yes", "--cwd", dir]);
    expect(ok.status).toBe(0);
    expect(fs.existsSync(target)).toBe(true);
  });

  it("unknown short flags, values on boolean flags and plugin commands' flags are checked too", () => {
    expect(run(["tools", "-x"]).stderr).toContain("unknown flag -x");
    expect(run(["tools", "--json=yes"]).stderr).toContain("--json takes no value");
    const serve = run(["serve", "--htp", "0"]);
    expect(serve.status).toBe(3);
    expect(serve.stderr).toContain('unknown flag --htp (did you mean "--http"?)');
    expect(run(["search", "read file", "--limt", "3"]).stderr).toContain('(did you mean "--limit"?)');
  });

  it("a global flag's value before the command is not taken for the command", () => {
    const r = run(["--cwd", ROOT, "help", "call"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("Usage: toolhost call");
    expect(run(["--mode", "plan", "explain", "Write", "--json"]).stdout).toContain('"name": "Write"');
  });

  it("an unknown command exits 3 with a did-you-mean", () => {
    const r = run(["tool"]);
    expect(r.status).toBe(3);
    expect(r.stderr).toContain('unknown command "tool" (did you mean "tools"?)');
    expect(run(["help", "cal"]).stderr).toContain('(did you mean "call"?)');
  });

  it("--version and -v print the package version and exit 0", () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
    for (const flag of ["--version", "-v"]) {
      const r = run([flag]);
      expect(r.status).toBe(0);
      expect(r.stdout.trim()).toBe(`toolhost ${version}`);
    }
  });

  it("`help <command>` prints the same text as `<command> --help`, with flags and exit codes", () => {
    const a = run(["help", "call"]);
    expect(a.status).toBe(0);
    expect(a.stdout).toBe(run(["call", "--help"]).stdout);
    expect(a.stdout).toMatch(/Flags:\n {2}--dry-run/);
    expect(a.stdout).toMatch(/Exit codes:\n {2}0 +ran and succeeded/);
    expect(run(["help"]).stdout).toBe(run(["--help"]).stdout);
  });

  it("output into a closed pipe ends quietly (no EPIPE crash)", () => {
    const out = execFileSync("bash", ["-c", `set -o pipefail; node ${JSON.stringify(BIN)} --help | head -c 10 >/dev/null; node ${JSON.stringify(BIN)} tools | head -n 1 >/dev/null; echo "rc=$?"`], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    expect(out.trim()).toBe("rc=0");
  });

  it("completion scripts: bash accepts its script and completes commands and a command's flags", () => {
    const script = run(["completion", "bash"]);
    expect(script.status).toBe(0);
    const probe = `${script.stdout}
COMP_WORDS=(toolhost ca); COMP_CWORD=1; _toolhost; echo "cmds:\${COMPREPLY[*]}"
COMP_WORDS=(toolhost call --dr); COMP_CWORD=2; _toolhost; echo "flags:\${COMPREPLY[*]}"`;
    const out = execFileSync("bash", ["-c", probe], { encoding: "utf8" });
    expect(out).toContain("cmds:call");
    expect(out).toContain("flags:--dry-run");
    expect(run(["completion", "zsh"]).stdout).toContain("#compdef toolhost");
    expect(run(["completion", "fish"]).status).toBe(3);
  });
});
