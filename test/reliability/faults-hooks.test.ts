/**
 * A command hook that leaves a child in the background (issue 12, item 5): the hook is read until its
 * process exits, not until its pipes close, so `sleep 19.3 & echo started` does not make the call wait
 * 19.3 s (the Bash tool answers the same pattern at once); what the hook printed before it exited
 * still counts; a hook that times out has its whole process group killed.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Host } from "../../core/index.ts";
import { alive } from "../helpers.ts";
import { hooksConfig, hostWith, script, text, tmpDir } from "../hooks/helpers.ts";

const hosts: Host[] = [];
const pids: number[] = [];
afterEach(async () => {
  for (const p of pids.splice(0)) {
    try {
      process.kill(p, "SIGKILL");
    } catch {
      /* gone */
    }
  }
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

const hookTrace = (o: { trace: Array<{ stage: string }> }, event = "PreToolUse") => o.trace.filter((t) => t.stage === `hook.${event}`) as Array<{ outcome?: string; detail?: any }>;

describe("a hook's background child does not stall the call", () => {
  it("sleep 19.3 & echo started: the call answers while the sleep still runs, with the hook's output", async () => {
    const dir = tmpDir();
    const pidFile = path.join(dir, "bg.pid");
    const hook = script(dir, "bg.sh", `#!/bin/sh\ncat >/dev/null\nsleep 19.3 &\necho $! > ${pidFile}\necho started\n`);
    const json = script(dir, "bg-json.sh", `#!/bin/sh\ncat >/dev/null\nsleep 19.3 &\necho $! >> ${pidFile}\necho '{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"from the hook"}}'\n`);
    const host = await hostWith(dir, { config: { hooks: hooksConfig("PreToolUse", [{ command: hook }, { command: json }]) } });
    hosts.push(host);
    const o = await host.execute("Echo", { text: "x" }, { yes: true });
    const bg = fs.readFileSync(pidFile, "utf8").trim().split("\n").map(Number);
    pids.push(...bg);
    // the background sleeps outlive the call: the call did not wait for them
    expect(bg.every(alive), "the call returned only after the background sleep ended").toBe(true);
    expect(o.status).toBe("ok");
    const [a, b] = hookTrace(o);
    expect(a!.outcome).toBe("ok");
    expect(b!.outcome).toBe("ok");
    expect(text(o)).toContain("from the hook");
  });

  it("a hook that times out with a background child: the whole process group is killed", async () => {
    const dir = tmpDir();
    const pidFile = path.join(dir, "bg.pid");
    const hook = script(dir, "hang.sh", `#!/bin/sh\ncat >/dev/null\nsleep 30 &\necho $! > ${pidFile}\nsleep 30\n`);
    const host = await hostWith(dir, { config: { hooks: hooksConfig("PreToolUse", [{ command: hook, timeout: 1 }]) } });
    hosts.push(host);
    const o = await host.execute("Echo", { text: "x" }, { yes: true });
    expect(o.status).toBe("ok");
    expect(hookTrace(o)[0]!.outcome).toBe("timeout");
    const bg = Number(fs.readFileSync(pidFile, "utf8"));
    pids.push(bg);
    await new Promise((r) => setTimeout(r, 200));
    expect(alive(bg)).toBe(false);
  });
});
