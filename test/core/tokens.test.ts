/** lib/tokens.ts: token counts are cached on disk across runs, and a broken or unwritable cache only costs the count. */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(__dirname, "../..");
const JITI = path.join(ROOT, "node_modules/jiti/lib/jiti.cjs");
function count(home: string): number {
  const code = `require(${JSON.stringify(JITI)})(${JSON.stringify(path.join(ROOT, "x.js"))}).import(${JSON.stringify(path.join(ROOT, "lib/tokens.ts"))}).then((m) => console.log(m.toolTokens({ name: "Echo", description: "echo a text back", inputSchema: { type: "object", properties: { text: { type: "string" } } } })))`;
  return Number(execFileSync(process.execPath, ["-e", code], { env: { ...process.env, TOOLHOST_HOME: home }, encoding: "utf8" }).trim());
}

describe("token counts across runs", () => {
  it("the second process reads the count from the cache file; a garbage file is replaced, a read-only home still counts", () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "toolhost-tokens-"));
    const first = count(home);
    expect(first).toBeGreaterThan(10);
    const file = path.join(home, "cache", "tokens-o200k.json");
    const cached = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, number>;
    expect(Object.values(cached)).toEqual([first]);
    // The file is what the second run reads: a planted value proves it (and that no tokenizer ran).
    fs.writeFileSync(file, JSON.stringify(Object.fromEntries(Object.keys(cached).map((k) => [k, 7]))));
    expect(count(home)).toBe(7);
    fs.writeFileSync(file, "not json{");
    expect(count(home)).toBe(first);
    expect(Object.values(JSON.parse(fs.readFileSync(file, "utf8")))).toEqual([first]);
    const ro = fs.mkdtempSync(path.join(os.tmpdir(), "toolhost-tokens-ro-"));
    fs.chmodSync(ro, 0o500);
    expect(count(path.join(ro, "home"))).toBe(first);
  });
});
