import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { script, tmpDir } from "./helpers.ts";

const BIN = path.resolve(import.meta.dirname, "..", "..", "bin", "toolhost.mjs");
const CORE = path.resolve(import.meta.dirname, "..", "..", "core", "index.ts");

function cli(cwd: string, args: string[]): { code: number; out: any } {
  try {
    const out = execFileSync(process.execPath, [BIN, ...args], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    return { code: 0, out: JSON.parse(out) };
  } catch (e: any) {
    return { code: e.status, out: JSON.parse(e.stdout) };
  }
}

describe("toolhost call with a plugin that brings a tool and a Claude Code hook", () => {
  it("--json reports the hook's decision, rewrite and per-hook trace; --dry-run runs the hooks but not the tool", () => {
    const dir = tmpDir();
    const plug = path.join(dir, "plug");
    fs.mkdirSync(path.join(plug, ".claude-plugin"), { recursive: true });
    fs.writeFileSync(path.join(plug, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "plug", tools: ["./greet.ts"] }));
    fs.writeFileSync(
      path.join(plug, "greet.ts"),
      `import { defineTool } from ${JSON.stringify(CORE)};\nexport default defineTool({ name: "Greet", description: "greet", isReadOnly: true, inputSchema: { properties: { who: { type: "string" } } }, call: (i) => "hello " + i.who });\n`,
    );
    script(
      plug,
      "hooks/guard.mjs",
      `let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);\nif(j.tool_input.who==="mallory"){process.stderr.write("no greeting for mallory");process.exit(2)}\nconsole.log(JSON.stringify({hookSpecificOutput:{hookEventName:"PreToolUse",permissionDecision:"allow",updatedInput:{who:j.tool_input.who.toUpperCase()}}}))});\n`,
    );
    fs.writeFileSync(path.join(plug, "hooks", "hooks.json"), JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Greet", hooks: [{ type: "command", command: "node ${CLAUDE_PLUGIN_ROOT}/hooks/guard.mjs" }] }] } }));

    let r = cli(dir, ["call", "Greet", '{"who": "bob"}', "--json", "--plugin-dir", plug]);
    expect(r.code).toBe(0);
    expect(r.out.result.content[0].text).toBe("hello BOB");
    const t = r.out.trace.find((x: any) => x.stage === "hook.PreToolUse");
    expect(t).toMatchObject({ plugin: "plug", outcome: "allow", detail: { changed: ["who"], exitCode: 0 } });

    r = cli(dir, ["call", "Greet", '{"who": "mallory"}', "--json", "--plugin-dir", plug]);
    expect(r.code).toBe(2);
    expect(r.out.decision).toBe("deny");
    expect(r.out.reason).toContain("no greeting for mallory");

    r = cli(dir, ["call", "Greet", "{who: 'eve',}", "--json", "--dry-run", "--plugin-dir", plug]);
    expect(r.code).toBe(0);
    expect(r.out.executed).toBe(false);
    expect(r.out.trace.some((x: any) => x.stage === "hook.PreToolUse" && x.outcome === "allow")).toBe(true);
    expect(r.out.trace.some((x: any) => x.stage === "repairInput.detail")).toBe(true);
  });

  it("toolhost hooks --json lists every handler with its source", () => {
    const dir = tmpDir();
    fs.mkdirSync(path.join(dir, ".claude"));
    fs.writeFileSync(path.join(dir, ".claude", "settings.json"), JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "guard.sh", if: "Bash(rm *)", timeout: 5 }] }] } }));
    const plug = path.join(dir, "p");
    fs.mkdirSync(path.join(plug, "hooks"), { recursive: true });
    fs.writeFileSync(path.join(plug, "hooks", "hooks.json"), JSON.stringify({ hooks: { PostToolUse: [{ hooks: [{ type: "http", url: "http://127.0.0.1:9/x" }] }] } }));
    const r = cli(dir, ["hooks", "--json", "--plugin-dir", plug]);
    expect(r.code).toBe(0);
    expect(r.out).toEqual([
      expect.objectContaining({ event: "PreToolUse", matcher: "Bash", if: "Bash(rm *)", type: "command", command: "guard.sh", timeout: 5, plugin: "settings:project", file: path.join(dir, ".claude", "settings.json"), jsonPath: "/hooks/PreToolUse/0/hooks/0" }),
      expect.objectContaining({ event: "PostToolUse", matcher: "*", type: "http", command: "http://127.0.0.1:9/x", plugin: "p", file: path.join(plug, "hooks", "hooks.json"), jsonPath: "/hooks/PostToolUse/0/hooks/0" }),
    ]);
  });
});
