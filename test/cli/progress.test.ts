/**
 * Progress on long steps (issue 19 item 7): a step a plugin announces with `ctx.step` (an MCP server starting,
 * a language server, an install) shows on a terminal once it has run for a second, and not at all when stderr
 * is piped. The real cases run the CLI with a stdio MCP server that takes 1.8 s to start — in a pseudo-terminal
 * (util-linux `script`) and piped.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { stepProgress, type StatusLine } from "../../lib/progress.ts";
import { main } from "../../core/cli/main.ts";
import { createHost, definePlugin } from "../../core/index.ts";
import type { StepEvent } from "../../core/index.ts";
import { ROOT } from "../contract/house.ts";
import { SERVERS } from "../mcp/helpers.ts";

const BIN = path.join(ROOT, "bin/toolhost.mjs");

function recorder(): StatusLine & { shown: string[]; clears: number } {
  const r = { shown: [] as string[], clears: 0, show: (t: string) => void r.shown.push(t), clear: () => void r.clears++ };
  return r;
}

/** A project whose config starts the quirky MCP server with a slow start. */
function slowProject(delayMs: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "th-progress-"));
  const server = { command: process.execPath, args: [SERVERS.quirky], env: { QUIRKY_MODE: "slow-start", QUIRKY_DELAY: String(delayMs) } };
  fs.writeFileSync(path.join(dir, "toolhost.config.json"), JSON.stringify({ mcpServers: { slowpoke: server } }));
  return dir;
}

describe("stepProgress", () => {
  it("shows only steps still running after the delay, one line, and clears it when they end", () => {
    let t = 0;
    const line = recorder();
    const p = stepProgress(line, { delayMs: 1000, intervalMs: 1e9, now: () => t });
    const ev = (id: number, phase: "start" | "end", label = `step ${id}`): StepEvent => ({ id, plugin: "x", label, phase });
    p.onStep(ev(1, "start", "quick"));
    t = 500;
    p.onStep(ev(1, "end", "quick"));
    expect(line.shown).toEqual([]); // a step under a second never shows
    expect(line.clears).toBe(0);
    p.onStep(ev(2, "start", "starting MCP server a"));
    p.onStep(ev(3, "start", "starting MCP server b"));
    t = 2600;
    p.onStep(ev(4, "start", "late"));
    p.onStep(ev(4, "end", "late")); // an end redraws the line from what still runs
    expect(line.shown.at(-1)).toMatch(/^. starting MCP server a… 2s \(\+1 more\)$/);
    p.onStep(ev(2, "end"));
    expect(line.shown.at(-1)).toMatch(/starting MCP server b… 2s$/);
    p.onStep(ev(3, "end"));
    expect(line.clears).toBe(1);
    p.close();
  });

  it("ctx.step reaches HostOptions.onStep with a paired start and end", async () => {
    const events: StepEvent[] = [];
    const plugin = definePlugin({
      name: "stepper",
      apply(ctx) {
        const done = ctx.step("warming a cache");
        done(false);
        done(true); // a second call is ignored
      },
    });
    const host = await createHost({ cwd: ROOT, bundled: false, plugins: [plugin], onStep: (e) => events.push(e) });
    await host.close();
    expect(events.map((e) => [e.plugin, e.label, e.phase, e.ok])).toEqual([
      ["stepper", "warming a cache", "start", undefined],
      ["stepper", "warming a cache", "end", false],
    ]);
    expect(events[0]!.id).toBe(events[1]!.id);
    expect(typeof events[1]!.ms).toBe("number");
  });
});

describe("the CLI on a slow MCP server", () => {
  it("draws the step on the status line of a terminal io and clears it before the command ends", async () => {
    const dir = slowProject(1800);
    const line = recorder();
    const out: string[] = [];
    const io = { out: (t: string) => void out.push(t), err: () => {}, isTTY: true, readLine: async () => "", status: line };
    const code = await main(["tools", "--cwd", dir], io);
    expect(code).toBe(0);
    expect(out.join("\n")).toContain("mcp__slowpoke__echo");
    expect(line.shown.some((s) => s.includes("starting MCP server slowpoke"))).toBe(true);
    expect(line.clears).toBeGreaterThanOrEqual(1);
  }, 30_000);

  it("in a real pseudo-terminal the line appears on stderr; piped, stderr has none of it", () => {
    const dir = slowProject(1800);
    const cmd = [process.execPath, BIN, "tools", "--cwd", dir].map((a) => `'${a}'`).join(" ");
    const tty = spawnSync("script", ["-qec", cmd, "/dev/null"], { encoding: "utf8", env: { ...process.env, TERM: "xterm" }, timeout: 30_000 });
    expect(tty.status).toBe(0);
    expect(tty.stdout).toContain("starting MCP server slowpoke");
    expect(tty.stdout).toContain("\x1b[2K"); // drawn in place, then cleared
    expect(tty.stdout).toContain("mcp__slowpoke__echo");
    const piped = spawnSync(process.execPath, [BIN, "tools", "--cwd", dir], { encoding: "utf8", timeout: 30_000 });
    expect(piped.status).toBe(0);
    expect(piped.stdout).toContain("mcp__slowpoke__echo");
    expect(piped.stderr).not.toContain("starting MCP server");
    expect(piped.stderr).not.toContain("\x1b[2K");
  }, 60_000);
});
