/**
 * A real `transcript_path` (issue 15 item 6): without a transcript of the embedder's, toolhost writes one
 * in Claude Code's JSONL format while hooks are loaded, so a hook that reads the conversation finds the
 * call it is asked about (its tool_use line is written before PreToolUse hooks run) and the results before
 * it; the embedder's own transcript is passed through and never written. Compared with the format Claude
 * Code 2.1.328 wrote (test/conformance/events/basic.json). Real hook processes.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Host } from "../../core/index.ts";
import { hostWith, hooksConfig, script, tmpDir } from "./helpers.ts";

const basic = JSON.parse(fs.readFileSync(path.resolve(__dirname, "../conformance/events/basic.json"), "utf8"));
const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
});

/** A hook that copies the transcript it is given (at the moment it runs) next to its stdin. */
function snapshotHook(dir: string): string {
  return script(path.join(dir, "bin"), "snap.sh", `#!/bin/sh\nn=$(ls '${dir}' | grep -c '^snap\\..*\\.json$')\ncat > '${dir}/snap.'$n'.json'\nt=$(node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")).transcript_path)' '${dir}/snap.'$n'.json')\ncp "$t" '${dir}/snap.'$n'.jsonl' 2>/dev/null || true\n`);
}
const lines = (f: string) => fs.readFileSync(f, "utf8").trim().split("\n").map((l) => JSON.parse(l));

describe("transcript_path", () => {
  it("names a Claude Code–format transcript that already holds this call's tool_use and the earlier results", async () => {
    const dir = tmpDir();
    const h = await hostWith(dir, { config: { hooks: hooksConfig("PreToolUse", [{ command: snapshotHook(dir) }]) } });
    hosts.push(h);
    await h.execute("Echo", { text: "first" }, { sessionId: "sess-1", toolUseId: "toolu_first", yes: true });
    await h.execute("Echo", { text: "second" }, { sessionId: "sess-1", toolUseId: "toolu_second", yes: true });
    const stdin = JSON.parse(fs.readFileSync(path.join(dir, "snap.1.json"), "utf8"));
    expect(stdin.transcript_path).toBe(path.join(process.env.TOOLHOST_HOME!, "projects", dir.replace(/[^A-Za-z0-9]/g, "-"), "sess-1.jsonl"));
    const seen = lines(path.join(dir, "snap.1.jsonl"));
    expect(seen.map((l) => [l.type, l.message.content[0].type])).toEqual([["assistant", "tool_use"], ["user", "tool_result"], ["assistant", "tool_use"]]);
    expect(seen[2].message.content[0]).toEqual({ type: "tool_use", id: "toolu_second", name: "Echo", input: { text: "second" } });
    expect(seen[1].message.content[0]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_first", is_error: false });
    expect(seen[1].parentUuid).toBe(seen[0].uuid);
    // Every field toolhost writes is one Claude Code writes on the same kind of line.
    const cc = basic.transcript as Array<Record<string, unknown>>;
    const ccKeys = (type: string, has: string) => new Set(cc.filter((l) => l.type === type && JSON.stringify(l.message).includes(has)).flatMap((l) => Object.keys(l)));
    for (const [l, has] of [[seen[0], "tool_use"], [seen[1], "tool_result"]] as const) for (const k of Object.keys(l)) expect(ccKeys(l.type, has), k).toContain(k);
  });

  it("session events: UserPromptSubmit's prompt after its hooks, Stop's last message before them", async () => {
    const dir = tmpDir();
    const hook = snapshotHook(dir);
    const h = await hostWith(dir, { config: { hooks: { ...hooksConfig("UserPromptSubmit", [{ command: hook }]), ...hooksConfig("Stop", [{ command: hook }]) } } });
    hosts.push(h);
    await h.event("UserPromptSubmit", { prompt: "fix it" }, { sessionId: "s2" });
    await h.event("Stop", { lastAssistantMessage: "fixed" }, { sessionId: "s2" });
    expect(fs.existsSync(path.join(dir, "snap.0.jsonl"))).toBe(false); // the prompt is written after UserPromptSubmit's hooks, as Claude Code does
    expect(basic.hooks["UserPromptSubmit-0"]).toBeDefined();
    expect(lines(path.join(dir, "snap.1.jsonl")).map((l) => l.message.content)).toEqual(["fix it", [{ type: "text", text: "fixed" }]]);
  });

  it("the embedder's transcript is passed through and never written; no hooks, no transcript", async () => {
    const dir = tmpDir();
    const mine = path.join(dir, "agent-transcript.jsonl");
    const h = await hostWith(dir, { transcriptPath: (id: string) => `${mine}#${id}`, config: { hooks: hooksConfig("PreToolUse", [{ command: snapshotHook(dir) }]) } });
    hosts.push(h);
    await h.execute("Echo", { text: "x" }, { sessionId: "s3", yes: true });
    expect(JSON.parse(fs.readFileSync(path.join(dir, "snap.0.json"), "utf8")).transcript_path).toBe(`${mine}#s3`);
    expect(fs.existsSync(path.join(process.env.TOOLHOST_HOME!, "projects", dir.replace(/[^A-Za-z0-9]/g, "-")))).toBe(false);
    const quiet = tmpDir();
    const q = await hostWith(quiet);
    hosts.push(q);
    await q.execute("Echo", { text: "x" }, { sessionId: "s4" });
    expect(fs.existsSync(path.join(process.env.TOOLHOST_HOME!, "projects", quiet.replace(/[^A-Za-z0-9]/g, "-")))).toBe(false);
  });
});
