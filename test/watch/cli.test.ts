/** `toolhost watch --json` as a real child process on a temp project. */
import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { makePlugin, tmpProject, toolModule, until, write } from "./helpers.ts";

const BIN = path.resolve(__dirname, "..", "..", "bin", "toolhost.mjs");

describe("toolhost watch", () => {
  it("prints one JSON line per generation (tools and rules diff) or failure, and stops cleanly on SIGTERM", async () => {
    const cwd = tmpProject();
    const p1 = path.join(cwd, "plugins/p1");
    makePlugin(p1, "p1", ["p1_a"]);
    write(path.join(cwd, "toolhost.config.json"), JSON.stringify({ plugins: ["./plugins/p1"] }));
    const child = spawn(process.execPath, [BIN, "watch", "--json", "--cwd", cwd], { stdio: ["ignore", "pipe", "pipe"] });
    const lines: Array<Record<string, any>> = [];
    let buf = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      buf += d.toString();
      let i;
      while ((i = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (line.trim()) lines.push(JSON.parse(line));
      }
    });
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    try {
      const first = await until(() => lines.find((l) => l.event === "generation"), 30_000, "the first generation");
      expect(first).toMatchObject({ generation: 1, reason: "startup" });
      expect(first.added).toContain("p1_a");

      write(path.join(p1, "tools.ts"), toolModule(["p1_a", "p1_b"], "v2", "changed description"));
      const g2 = await until(() => lines.find((l) => l.event === "generation" && l.added.includes("p1_b")), 15_000, "p1_b added");
      expect(g2.changed).toEqual(["p1_a"]);
      expect(g2.fingerprintChanged).toBe(true);

      write(path.join(cwd, ".claude/settings.json"), JSON.stringify({ permissions: { deny: ["p1_b"] } }));
      const g3 = await until(() => lines.find((l) => l.event === "generation" && l.rules.added.length), 15_000, "a rules change");
      expect(g3.rules.added).toEqual(["deny p1_b [settings:project]"]);

      const manifest = path.join(p1, ".claude-plugin/plugin.json");
      write(manifest, `{ "name": "p1", `);
      const f = await until(() => lines.find((l) => l.event === "failed"), 15_000, "the failure");
      expect(f.problems[0]).toMatchObject({ plugin: "p1", file: manifest, path: "/" });
      expect(f.serving).toBe(g3.generation);
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
    expect(lines.at(-1)).toEqual({ event: "stopped", signal: "SIGTERM" });
    expect(stderr).toContain("failed; keeping generation");
  });

  it("reports hook handler changes (a settings hook edit is not \"no tool or rule changes\")", async () => {
    const cwd = tmpProject();
    const p1 = path.join(cwd, "plugins/p1");
    makePlugin(p1, "p1", ["p1_a"]);
    write(path.join(cwd, "toolhost.config.json"), JSON.stringify({ plugins: ["./plugins/p1"] }));
    const child = spawn(process.execPath, [BIN, "watch", "--json", "--cwd", cwd], { stdio: ["ignore", "pipe", "ignore"] });
    const lines: Array<Record<string, any>> = [];
    let buf = "";
    child.stdout.on("data", (d: Buffer) => {
      buf += d.toString();
      const parts = buf.split("\n");
      buf = parts.pop() ?? "";
      for (const line of parts) if (line.trim()) lines.push(JSON.parse(line));
    });
    const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    try {
      await until(() => lines.find((l) => l.event === "generation"), 30_000, "the first generation");
      const hooks = { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./guard.sh", if: "Bash(rm *)" }] }] };
      write(path.join(cwd, ".claude/settings.json"), JSON.stringify({ hooks }));
      const g = await until(() => lines.find((l) => l.event === "generation" && l.hooks?.added.length), 15_000, "a hooks change");
      expect(g.hooks).toEqual({ added: ["PreToolUse Bash ./guard.sh if Bash(rm *) [settings:project]"], removed: [] });
      write(path.join(cwd, ".claude/settings.json"), JSON.stringify({}));
      const g2 = await until(() => lines.find((l) => l.event === "generation" && l.hooks?.removed.length), 15_000, "a hook removed");
      expect(g2.hooks.removed).toEqual(g.hooks.added);
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  });
});
