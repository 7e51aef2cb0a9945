/**
 * PostToolBatch hooks (Claude Code: once per parallel batch) on host.executeBatch: real command hooks in
 * .claude/settings.json, real built-in tools.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createHost, resultText, type Host } from "../../core/index.ts";
import { tmpdir, writeTree } from "../helpers.ts";

const hosts: Host[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

// prints additionalContext naming every call it saw (tool names, ids and whether each had a response)
const SUMMARY = `node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);const c=j.tool_calls.map(t=>t.tool_name+"#"+t.tool_use_id+(t.tool_response?"+":"-")).join(",");console.log(JSON.stringify({hookSpecificOutput:{hookEventName:"PostToolBatch",additionalContext:"batch saw "+c+" in "+j.hook_event_name}}))})'`;

async function project(hooks: unknown[]): Promise<Host> {
  const cwd = fs.realpathSync(tmpdir("th-batch-"));
  dirs.push(cwd);
  writeTree(cwd, { "a.txt": "A\n", "b.txt": "B\n", ".claude/settings.json": { hooks: { PostToolBatch: [{ hooks }] } } });
  const h = await createHost({ cwd });
  hosts.push(h);
  return h;
}
const batch = [
  { name: "Read", input: { file_path: "a.txt" }, toolUseId: "t1" },
  { name: "Read", input: { file_path: "b.txt" }, toolUseId: "t2" },
];

describe("PostToolBatch hooks", () => {
  it("run once after the batch, see every call with its id and response, and add context after the last result", async () => {
    const h = await project([{ type: "command", command: SUMMARY }]);
    const out = await h.executeBatch(batch, { yes: true });
    expect(out.map((o) => o.status)).toEqual(["ok", "ok"]);
    expect(resultText(out[1]!.result)).toContain("batch saw Read#t1+,Read#t2+ in PostToolBatch");
    expect(resultText(out[0]!.result)).not.toContain("batch saw");
    expect(out[1]!.batchStop).toBeUndefined();
    expect(out[1]!.trace.some((t) => t.stage === "hook.PostToolBatch")).toBe(true);
  });

  it("exit 2 or decision block asks the loop to stop (batchStop with the reason); a single execute fires nothing", async () => {
    const h = await project([{ type: "command", command: "echo 'tests are red: stop and fix' >&2; exit 2" }]);
    const out = await h.executeBatch(batch, { yes: true });
    expect(out[1]!.batchStop).toBe("tests are red: stop and fix");
    const one = await h.execute("Read", { file_path: "a.txt" }, { yes: true });
    expect(one.batchStop).toBeUndefined();
    const j = await project([{ type: "command", command: `echo '{"decision":"block","reason":"quota reached"}'` }]);
    expect((await j.executeBatch(batch, { yes: true }))[1]!.batchStop).toBe("quota reached");
  });

  it("a crashing hook is a non-blocking error unless onFailure: block", async () => {
    const soft = await project([{ type: "command", command: "exit 1" }]);
    expect((await soft.executeBatch(batch, { yes: true }))[1]!.batchStop).toBeUndefined();
    const hard = await project([{ type: "command", command: "exit 1", onFailure: "block" }]);
    expect((await hard.executeBatch(batch, { yes: true }))[1]!.batchStop).toMatch(/onFailure is "block"/);
  });
});
