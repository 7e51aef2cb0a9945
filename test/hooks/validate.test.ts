/**
 * Hook events and matcher groups are the command-hooks plugin's knowledge (issue 11: no feature knowledge in
 * core): core reads a hooks map as written, and command-hooks' validateManifest tap checks it in every source —
 * a plugin's manifest or hooks.json, the toolhost config, .claude/settings.json.
 */
import { describe, expect, it } from "vitest";
import path from "node:path";
import { createHost, loadPlugin } from "../../core/index.ts";
import { checkHookMaps } from "../../plugins/command-hooks/validate.ts";
import { tmpdir, writeTree } from "../helpers.ts";

const good = [{ hooks: [{ type: "command", command: "true" }] }];

describe("hook maps checked by command-hooks", () => {
  it("reports every malformed field of a group by JSON path, in the file it came from", () => {
    const root = writeTree(tmpdir(), { ".claude-plugin/plugin.json": { name: "p" }, "hooks/hooks.json": { hooks: { PreToolUse: [{ matcher: 5, hooks: [{ type: "command", command: "x", timeout: "10" }] }] } } });
    const lp = loadPlugin({ kind: "plugin-dir", path: root }, { projectDir: root });
    expect(lp.failed).toBe(false); // core reads it as written
    const errors = checkHookMaps(lp).filter((p) => p.severity === "error");
    expect(errors.map((p) => p.path).sort()).toEqual(["/hooks/PreToolUse/0/hooks/0/timeout", "/hooks/PreToolUse/0/matcher"]);
    expect(errors[0]!.file).toBe(path.join(root, "hooks/hooks.json"));
    expect(lp.components.hooks[0]!.value).toEqual({}); // and dropped
  });

  it("an unknown event warns with a did-you-mean and is dropped; the known one stays", async () => {
    const root = writeTree(tmpdir(), { ".claude-plugin/plugin.json": { name: "p", hooks: { PreTooluse: good, PreToolUse: good } } });
    const host = await createHost({ cwd: root, pluginDirs: [root] });
    try {
      const w = host.problems().filter((p) => p.severity === "warning").map((p) => `${p.plugin} ${p.path}: ${p.message}`);
      expect(w).toContain('p /hooks/PreTooluse: unknown hook event "PreTooluse" is ignored (did you mean "PreToolUse"?)');
      const lp = host.plugins.find((p) => p.id === "p")!;
      expect(lp.failed).toBe(false);
      expect(Object.keys(lp.components.hooks[0]!.value)).toEqual(["PreToolUse"]);
    } finally {
      await host.close();
    }
  }, 180_000); // the first host of the file pays the import of every bundled plugin

  it("an event named like an Object.prototype key (toString, constructor, __proto__) is an unknown event, not a known one", () => {
    // JSON.parse makes "__proto__" an own key; HOOK_EVENTS was a plain object, so these read as known events
    // (the "toString" handler was listed as "not run: undefined").
    const json = `{"name":"p","hooks":{"toString":${JSON.stringify(good)},"constructor":${JSON.stringify(good)},"__proto__":${JSON.stringify(good)},"PreToolUse":${JSON.stringify(good)}}}`;
    const root = writeTree(tmpdir(), { ".claude-plugin/plugin.json": JSON.parse(json) });
    const lp = loadPlugin({ kind: "plugin-dir", path: root }, { projectDir: root });
    const w = checkHookMaps(lp).map((p) => `${p.path}: ${p.message}`);
    for (const e of ["toString", "constructor", "__proto__"]) expect(w.some((m) => m.startsWith(`/hooks/${e}: unknown hook event "${e}" is ignored`))).toBe(true);
    expect(Object.keys(lp.components.hooks[0]!.value)).toEqual(["PreToolUse"]);
  });

  it("a malformed matcher group is an error naming the file and JSON path, and the plugin does not load", async () => {
    const root = writeTree(tmpdir(), { ".claude-plugin/plugin.json": { name: "q" }, "hooks/hooks.json": { hooks: { PostToolUse: [{ matcher: "Edit" }] } } });
    const host = await createHost({ cwd: root, pluginDirs: [root] });
    try {
      const e = host.problems().find((p) => p.plugin === "q" && p.severity === "error")!;
      expect(e.file?.endsWith("hooks/hooks.json")).toBe(true);
      expect(`${e.path}: ${e.message}`).toBe('/hooks/PostToolUse/0: is missing required field "hooks"');
      expect(host.plugins.some((p) => p.id === "q")).toBe(false);
    } finally {
      await host.close();
    }
  });

  it("the toolhost config and .claude/settings.json are checked the same way", async () => {
    const root = writeTree(tmpdir(), {
      "toolhost.config.json": { hooks: { PostToolUze: good } },
      ".claude/settings.json": { hooks: { SessionStrat: good, Stop: good } },
    });
    const host = await createHost({ cwd: root });
    try {
      const w = host.problems().map((p) => `${p.plugin} ${p.path}: ${p.message}`);
      expect(w).toContain('config /hooks/PostToolUze: unknown hook event "PostToolUze" is ignored (did you mean "PostToolUse"?)');
      expect(w.some((m) => m.includes('/hooks/SessionStrat: unknown hook event "SessionStrat" is ignored (did you mean "SessionStart"?)'))).toBe(true);
      const settings = host.plugins.find((p) => p.kind === "settings" && p.manifestFile?.endsWith("settings.json"))!;
      expect(Object.keys(settings.components.hooks[0]!.value)).toEqual(["Stop"]);
    } finally {
      await host.close();
    }
  });

  it("without the command-hooks plugin nothing checks hook events (core has no list of them)", async () => {
    const root = writeTree(tmpdir(), { ".claude-plugin/plugin.json": { name: "r", hooks: { PreTooluse: good } } });
    const host = await createHost({ cwd: root, pluginDirs: [root], bundled: false });
    try {
      expect(host.problems().some((p) => p.message.includes("hook event"))).toBe(false);
      expect(Object.keys(host.plugins.find((p) => p.id === "r")!.components.hooks[0]!.value)).toEqual(["PreTooluse"]);
    } finally {
      await host.close();
    }
  });
});
