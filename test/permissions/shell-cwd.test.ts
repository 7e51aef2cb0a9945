import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createHost, type Host } from "../../core/index.ts";
import { tmpdir, writeTree } from "../helpers.ts";

let host: Host | undefined;
afterAll(async () => {
  await host?.close();
});

describe("a `cd` carried over between Bash calls", () => {
  it("is where path rules check a later command's relative paths", async () => {
    const root = writeTree(tmpdir(), { "secret/keep.txt": "x", "open/a.txt": "y", "toolhost.config.json": { permissions: { deny: ["Edit(./secret/**)"], allow: ["Bash(cd *)", "Bash(echo *)"] } } });
    host = await createHost({ cwd: root, config: { disabledPlugins: ["watch"] } });
    const cd = await host.execute("Bash", { command: "cd secret" }, { sessionId: "s" });
    expect(cd.status).toBe("ok");
    const write = await host.execute("Bash", { command: "echo pwned > keep.txt" }, { sessionId: "s" });
    expect(write.status).toBe("denied");
    expect(write.rule).toBe("Edit(./secret/**)");
    expect(fs.readFileSync(path.join(root, "secret/keep.txt"), "utf8")).toBe("x");
    // the same command in another session (still at the project root) writes a harmless file
    const other = await host.execute("Bash", { command: "echo fine > keep.txt" }, { sessionId: "t", yes: true });
    expect(other.status).toBe("ok");
    expect(fs.readFileSync(path.join(root, "keep.txt"), "utf8")).toBe("fine\n");
  });
});
