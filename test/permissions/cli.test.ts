/** `toolhost call --dry-run --json` as a real child process, in a temp project with .claude/settings.json. */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tempProject } from "./helpers.ts";

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "bin", "toolhost.mjs");

const dir = tempProject({
  ".claude/settings.json": JSON.stringify({ permissions: { deny: ["Bash(rm *)", "Read(.env)", "WebSearch"], ask: ["Bash(git push *)"], allow: ["Bash(npm test)"] } }),
  ".env": "SECRET=1",
  "plug/toolhost.plugin.json": JSON.stringify({ name: "fake-tools", tools: ["./tools.mjs"] }),
  "plug/tools.mjs": `
    const schema = (props, required) => ({ type: "object", properties: props, required, additionalProperties: false });
    export const bash = { name: "Bash", description: "shell", inputSchema: schema({ command: { type: "string" } }, ["command"]), call: () => "ran" };
    export const read = { name: "Read", description: "read", isReadOnly: true, inputSchema: schema({ file_path: { type: "string" } }, ["file_path"]), call: () => "read" };
    export const search = { name: "WebSearch", description: "search", inputSchema: schema({ query: { type: "string" } }, ["query"]), call: () => "found" };
  `,
});

function call(args: string[]): Promise<{ code: number; json: any; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, "call", ...args, "--json", "--cwd", dir, "--plugin-dir", path.join(dir, "plug")], { timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? ((err as { code?: number }).code ?? 1) : 0;
      let json: any;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = { unparsed: stdout };
      }
      resolve({ code: typeof code === "number" ? code : 1, json, stderr });
    });
  });
}

describe("toolhost call --dry-run --json", () => {
  it("reports deny with exit code 2, the rule, the plugin and the file", async () => {
    const r = await call(["Bash", JSON.stringify({ command: "git status && ls | xargs rm -f" }), "--dry-run"]);
    expect(r.code).toBe(2);
    expect(r.json).toMatchObject({ decision: "deny", executed: false, rule: "Bash(rm *)", plugin: "settings:project", file: path.join(dir, ".claude", "settings.json") });
    expect(r.json.reason).toMatch(/deny rule "Bash\(rm \*\)"/);
  });

  it("reports a Read deny reached through cat", async () => {
    const r = await call(["Bash", JSON.stringify({ command: "cat ./src/../.env" }), "--dry-run"]);
    expect(r.code).toBe(2);
    expect(r.json).toMatchObject({ decision: "deny", rule: "Read(.env)" });
  });

  it("reports allow with exit code 0 and does not run the tool", async () => {
    const r = await call(["Bash", JSON.stringify({ command: "npm test" }), "--dry-run"]);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ decision: "allow", executed: false, status: "dry-run", rule: "Bash(npm test)" });
  });

  it("reports ask as not approved (exit 2) without a terminal, and allow with --yes", async () => {
    const r = await call(["Bash", JSON.stringify({ command: "git push origin main" }), "--dry-run"]);
    expect(r.code).toBe(2);
    expect(r.json).toMatchObject({ decision: "ask", status: "not-approved", rule: "Bash(git push *)" });
    const y = await call(["Bash", JSON.stringify({ command: "git push origin main" }), "--dry-run", "--yes"]);
    expect(y.code).toBe(0);
    expect(y.json).toMatchObject({ decision: "ask", status: "dry-run" });
  });

  it("a blanket-denied tool is not in the pool: exit 2 naming the rule", async () => {
    const r = await call(["WebSearch", JSON.stringify({ query: "x" }), "--dry-run"]);
    expect(r.code).toBe(2);
    expect(r.json).toMatchObject({ decision: "deny", rule: "WebSearch", plugin: "settings:project" });
  });

  it("sanity: the settings file exists where the CLI looks", () => {
    expect(fs.existsSync(path.join(dir, ".claude", "settings.json"))).toBe(true);
  });
});

describe("toolhost check", () => {
  it("fails (exit 1) on a rule example that does not hold, naming file, path, rule and example", async () => {
    const proj = tempProject({
      ".claude/settings.json": JSON.stringify({ permissions: { deny: ["Bash(rm -rf *)"], tests: [{ rule: "Bash(rm -rf *)", match: ["rm -fr /", "rm -r /"] }] } }),
    });
    const r = await new Promise<{ code: number; out: string }>((resolve) =>
      execFile(process.execPath, [BIN, "check", "--json", "--cwd", proj], { timeout: 60_000 }, (err, stdout) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout })),
    );
    expect(r.code).toBe(1);
    const j = JSON.parse(r.out);
    expect(j.errors).toHaveLength(1);
    expect(j.errors[0]).toMatchObject({ plugin: "settings:project", file: path.join(proj, ".claude", "settings.json"), path: "/permissions/tests/0/match/1" });
    expect(j.errors[0].message).toMatch(/deny rule "Bash\(rm -rf \*\)" should match "rm -r \/"/);
  });
});
