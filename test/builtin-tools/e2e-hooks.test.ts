/**
 * A real Claude Code–format plugin (.claude-plugin/plugin.json + hooks/hooks.json with command hooks)
 * applied to the built-in tools end to end through `toolhost call`. Needs the command-hooks plugin.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tmpDir } from "./helpers.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const hasHooks = fs.existsSync(path.join(ROOT, "plugins/command-hooks/index.ts"));

let dir: string;
let pluginDir: string;

beforeAll(() => {
  dir = tmpDir("th-e2e-");
  pluginDir = path.join(dir, "plugin");
  fs.mkdirSync(path.join(pluginDir, ".claude-plugin"), { recursive: true });
  fs.mkdirSync(path.join(pluginDir, "hooks"), { recursive: true });
  fs.writeFileSync(path.join(pluginDir, ".claude-plugin/plugin.json"), JSON.stringify({ name: "guard", version: "1.0.0", description: "blocks rm -rf, reports writes" }));
  fs.writeFileSync(
    path.join(pluginDir, "hooks/hooks.json"),
    JSON.stringify({
      hooks: {
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh" }] }],
        PostToolUse: [{ matcher: "Write|Edit", hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/hooks/post.sh" }] }],
      },
    }),
  );
  // the usual Claude Code guard: read the event JSON on stdin, exit 2 with a reason on stderr to block
  fs.writeFileSync(path.join(pluginDir, "hooks/guard.sh"), `#!/bin/sh\ninput=$(cat)\ncase "$input" in\n  *'rm -rf'*) echo "rm -rf is not allowed here" >&2; exit 2;;\nesac\nexit 0\n`, { mode: 0o755 });
  fs.writeFileSync(
    path.join(pluginDir, "hooks/post.sh"),
    `#!/bin/sh\nexec node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);console.log(JSON.stringify({hookSpecificOutput:{hookEventName:"PostToolUse",additionalContext:"post-hook saw "+j.tool_name+" "+j.tool_input.file_path+" type="+(j.tool_response&&j.tool_response.type)+" content="+JSON.stringify(j.tool_response&&j.tool_response.content)}}))})'\n`,
    { mode: 0o755 },
  );
  fs.writeFileSync(path.join(dir, "victim.txt"), "still here\n");
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function call(tool: string, input: unknown) {
  const r = spawnSync(process.execPath, [path.join(ROOT, "bin/toolhost.mjs"), "call", tool, JSON.stringify(input), "--json", "--yes", "--plugin-dir", pluginDir, "--cwd", dir], {
    encoding: "utf8",
    cwd: dir,
    timeout: 60_000,
  });
  let json: { status: string; reason: string | null; result: { content: Array<{ text?: string }>; isError: boolean } } | undefined;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    /* leave undefined; the assertion shows stdout/stderr */
  }
  return { code: r.status, json, stdout: r.stdout, stderr: r.stderr, text: json?.result.content.map((c) => c.text ?? "").join("\n") ?? "" };
}

describe.skipIf(!hasHooks)("Claude Code plugin hooks on the built-in tools (toolhost call)", () => {
  it("a PreToolUse Bash hook that exits 2 blocks the command, which never runs", () => {
    const r = call("Bash", { command: "rm -rf victim.txt" });
    expect(r.json, r.stdout + r.stderr).toBeDefined();
    expect(r.code).toBe(2);
    expect(r.json!.status).toBe("blocked");
    expect(r.text + (r.json!.reason ?? "")).toContain("rm -rf is not allowed here");
    expect(fs.existsSync(path.join(dir, "victim.txt"))).toBe(true);
  });

  it("the same hook lets other commands through", () => {
    const r = call("Bash", { command: "cat victim.txt" });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.text).toContain("still here");
  });

  it("a PostToolUse Write|Edit hook sees the absolute file_path and tool_response, and adds context", () => {
    const r = call("Write", { file_path: "notes/new.md", content: "# hi\n" });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(fs.readFileSync(path.join(dir, "notes/new.md"), "utf8")).toBe("# hi\n");
    expect(r.text).toContain(`post-hook saw Write ${path.join(dir, "notes/new.md")} type=create content="# hi\\n"`);
    const e = call("Edit", { file_path: "notes/other.md", old_string: "", new_string: "x\n" });
    expect(e.text).toContain(`post-hook saw Edit ${path.join(dir, "notes/other.md")}`);
  });
});
