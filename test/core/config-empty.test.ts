/**
 * A config file rewritten in place (truncated, then written) can be read by a watcher's rebuild while it is
 * empty. Read as "no config", that rebuild succeeded without the config's plugins and MCP servers (the soak's
 * "broken config" fault under load: calls then got "No such tool"). An empty file is read again before it is
 * taken as empty; one that stays empty is still no config and no problem.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../core/index.ts";
import { tmpdir } from "../helpers.ts";

describe("an empty toolhost config file", () => {
  it("being rewritten in place: the content written a moment later is read, not an empty config", async () => {
    const dir = tmpdir();
    const file = path.join(dir, "toolhost.config.json");
    fs.writeFileSync(file, "{}");
    await loadConfig({ cwd: dir }); // cosmiconfig imported: the read below comes within a millisecond or two
    fs.writeFileSync(file, "");
    setTimeout(() => fs.writeFileSync(file, JSON.stringify({ permissions: { deny: ["Bash(rm *)"] } })), 15);
    const r = await loadConfig({ cwd: dir });
    expect(r.file).toBe(file);
    expect(r.problems).toEqual([]);
    expect(r.config.permissions?.deny).toEqual(["Bash(rm *)"]);
  });

  it("that stays empty is no config and no problem", async () => {
    const dir = tmpdir();
    fs.writeFileSync(path.join(dir, "toolhost.config.json"), "");
    const r = await loadConfig({ cwd: dir });
    expect(r.problems).toEqual([]);
    expect(r.config.permissions).toBeUndefined();
  });
});
