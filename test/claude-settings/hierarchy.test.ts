/**
 * Claude Code's settings hierarchy (issue 15 item 3): managed → --settings → local → project → user
 * ($CLAUDE_CONFIG_DIR), lists merged, provenance kept in explain, `toolhost hooks` and traces. Every test
 * uses its own scratch CLAUDE_CONFIG_DIR and managed folder (this file runs in its own forked process).
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHost, type Host } from "../../core/index.ts";
import { runCli, tmpdir, writeTree } from "../helpers.ts";
import { script } from "../hooks/helpers.ts";

let home: string;
let managed: string;
let project: string;
const saved = { CLAUDE_CONFIG_DIR: process.env.CLAUDE_CONFIG_DIR, TOOLHOST_MANAGED_SETTINGS_DIR: process.env.TOOLHOST_MANAGED_SETTINGS_DIR };
const hosts: Host[] = [];

beforeEach(() => {
  home = tmpdir("toolhost-cchome-");
  managed = tmpdir("toolhost-managed-");
  project = tmpdir("toolhost-layers-");
  process.env.CLAUDE_CONFIG_DIR = home;
  process.env.TOOLHOST_MANAGED_SETTINGS_DIR = managed;
});
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
  process.env.CLAUDE_CONFIG_DIR = saved.CLAUDE_CONFIG_DIR;
  process.env.TOOLHOST_MANAGED_SETTINGS_DIR = saved.TOOLHOST_MANAGED_SETTINGS_DIR;
});

async function host(extra: Record<string, unknown> = {}): Promise<Host> {
  const h = await createHost({ cwd: project, debounceMs: 5, trustWorkspace: true, ...extra });
  hosts.push(h);
  return h;
}

/** A hook that appends its layer name to `log` and prints nothing. */
function logHook(dir: string, log: string, name: string): string {
  return script(dir, `${name}.sh`, `#!/bin/sh\ncat > /dev/null\necho ${name} >> '${log}'\n`);
}

const settingsWith = (hook: string, extra: Record<string, unknown> = {}) => ({
  ...extra,
  hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: hook }] }] },
});

describe("settings layers", () => {
  it("every layer's hooks run (lists merge), each with its layer and file in `hooks` and the trace", async () => {
    const log = path.join(project, "hook.log");
    const layers = ["managed", "flag", "local", "project", "user"];
    const hooks = Object.fromEntries(layers.map((l) => [l, logHook(home, log, l)]));
    writeTree(managed, { "managed-settings.json": settingsWith(hooks.managed!) });
    const flagFile = writeTree(tmpdir(), { "ci.json": settingsWith(hooks.flag!) });
    writeTree(project, { ".claude/settings.local.json": settingsWith(hooks.local!), ".claude/settings.json": settingsWith(hooks.project!) });
    writeTree(home, { "settings.json": settingsWith(hooks.user!) });
    const h = await host({ settings: path.join(flagFile, "ci.json") });
    const out = await h.execute("Bash", { command: "true" }, { onAsk: () => "allow" });
    expect(out.status).toBe("ok");
    expect(fs.readFileSync(log, "utf8").trim().split("\n").sort()).toEqual([...layers].sort());
    const traced = out.trace.filter((t) => t.stage === "hook.PreToolUse").map((t) => [t.plugin, (t.detail as { file: string }).file]);
    expect(traced).toEqual([
      ["settings:user", path.join(home, "settings.json")],
      ["settings:project", path.join(project, ".claude/settings.json")],
      ["settings:local", path.join(project, ".claude/settings.local.json")],
      ["settings:flag", path.join(flagFile, "ci.json")],
      ["settings:managed", path.join(managed, "managed-settings.json")],
    ]);
  });

  it("rules of every layer apply with provenance in explain; a managed deny beats a user allow", async () => {
    writeTree(managed, { "managed-settings.json": { permissions: { deny: ["Bash(curl *)"] } }, "managed-settings.d/10-extra.json": { permissions: { deny: ["Bash(wget *)"] } } });
    writeTree(home, { "settings.json": { permissions: { allow: ["Bash(curl *)", "Bash(mkdir *)"] } } });
    const h = await host({ settings: JSON.stringify({ permissions: { allow: ["Bash(touch *)"] } }) });
    expect((await h.execute("Bash", { command: "curl http://127.0.0.1:9" })).status).toBe("denied");
    expect((await h.execute("Bash", { command: "wget http://127.0.0.1:9" })).status).toBe("denied");
    expect((await h.execute("Bash", { command: "mkdir user-allowed" })).status).toBe("ok");
    expect((await h.execute("Bash", { command: "touch flag-allowed" })).status).toBe("ok");
    expect((await h.execute("Bash", { command: "rmdir user-allowed" })).status).toBe("not-approved");
    const grants = h.explain("Bash").grants ?? [];
    const g = (rule: string) => grants.find((x) => x.rule === rule);
    expect(g("Bash(mkdir *)")).toMatchObject({ plugin: "settings:user", file: path.join(home, "settings.json") });
    expect(g("Bash(touch *)")).toMatchObject({ plugin: "settings:flag", file: "--settings" });
    const denied = await h.execute("Bash", { command: "wget x" });
    expect(denied.plugin).toBe("settings:managed");
    expect(denied.file).toBe(path.join(managed, "managed-settings.d", "10-extra.json"));
  });

  it("allowManagedPermissionRulesOnly in managed settings: only managed rules apply; each other layer's ignored rules are a warning naming its file", async () => {
    writeTree(managed, { "managed-settings.json": { allowManagedPermissionRulesOnly: true, permissions: { allow: ["Bash(touch *)"] } } });
    writeTree(home, { "settings.json": { permissions: { allow: ["Bash(mkdir *)"] } } });
    writeTree(project, { ".claude/settings.json": { permissions: { allow: ["Bash(cp *)"] } }, ".claude/settings.local.json": { permissions: { deny: ["Bash(touch *)"] } } });
    const h = await host();
    expect((await h.execute("Bash", { command: "touch managed-allowed" })).status).toBe("ok");
    expect((await h.execute("Bash", { command: "mkdir user-allowed" })).status).toBe("not-approved");
    expect((await h.execute("Bash", { command: "cp a b" })).status).toBe("not-approved");
    const w = h.problems().filter((p) => /allowManagedPermissionRulesOnly/.test(p.message)).map((p) => `${p.plugin} ${p.file}`);
    expect(w.sort()).toEqual([`settings:local ${path.join(project, ".claude/settings.local.json")}`, `settings:project ${path.join(project, ".claude/settings.json")}`, `settings:user ${path.join(home, "settings.json")}`]);
    // Elsewhere than in managed settings the switch changes nothing.
    fs.rmSync(path.join(managed, "managed-settings.json"));
    writeTree(project, { ".claude/settings.json": { allowManagedPermissionRulesOnly: true, permissions: { allow: ["Bash(cp *)"] } } });
    const h2 = await host();
    expect((await h2.execute("Bash", { command: "mkdir user-allowed-2" })).status).toBe("ok");
  });

  it("mode precedence: managed over --settings over local over project over user; the user file may switch on acceptEdits", async () => {
    writeTree(home, { "settings.json": { permissions: { defaultMode: "acceptEdits" } } });
    expect((await host()).modeSource).toMatchObject({ mode: "acceptEdits", source: "settings:user" });
    writeTree(project, { ".claude/settings.local.json": { permissions: { defaultMode: "plan" } } });
    expect((await host()).modeSource).toMatchObject({ mode: "plan", source: "settings:local" });
    expect((await host({ settings: { permissions: { defaultMode: "dontAsk" } } })).modeSource).toMatchObject({ mode: "dontAsk", source: "settings:flag" });
    writeTree(managed, { "managed-settings.json": { permissions: { defaultMode: "default", disableBypassPermissionsMode: "disable" } } });
    const h = await host({ settings: { permissions: { defaultMode: "dontAsk" } } });
    expect(h.modeSource).toMatchObject({ mode: "default", source: "settings:managed" });
    expect(() => h.setMode("bypassPermissions")).toThrow(/managed-settings\.json/);
  });

  it("an untrusted workspace withholds the project's allow rules and hooks, never the user's or the admin's", async () => {
    const log = path.join(project, "hook.log");
    writeTree(home, { "settings.json": settingsWith(logHook(home, log, "user"), { permissions: { allow: ["Bash(mkdir *)"] } }) });
    writeTree(project, { ".claude/settings.json": settingsWith(logHook(home, log, "project"), { permissions: { allow: ["Bash(touch *)"] } }) });
    const h = await host({ trustWorkspace: false });
    expect((await h.execute("Bash", { command: "mkdir made-dir" })).status).toBe("ok");
    expect((await h.execute("Bash", { command: "touch made-file" })).status).toBe("not-approved");
    expect(fs.readFileSync(log, "utf8").trim().split("\n")).toEqual(["user", "user"]);
  });

  it("CLI: --settings (file or JSON) and CLAUDE_CONFIG_DIR reach `hooks --json` with layer and file; a bad --settings names itself", async () => {
    const hook = logHook(home, path.join(project, "x.log"), "user");
    writeTree(home, { "settings.json": settingsWith(hook) });
    const env = { CLAUDE_CONFIG_DIR: home, TOOLHOST_MANAGED_SETTINGS_DIR: managed };
    const r = await runCli(["hooks", "--json", "--cwd", project, "--settings", JSON.stringify(settingsWith("echo flag"))], { env });
    expect(r.code).toBe(0);
    const rows = r.json<Array<{ plugin: string; file: string; command: string }>>();
    expect(rows.map((x) => [x.plugin, x.file, x.command])).toEqual([
      ["settings:user", path.join(home, "settings.json"), hook],
      ["settings:flag", "--settings", "echo flag"],
    ]);
    const bad = await runCli(["tools", "--json", "--cwd", project, "--settings", "{not json"], { env });
    expect(bad.json<{ errors: Array<{ plugin: string; message: string }> }>().errors).toContainEqual(expect.objectContaining({ plugin: "settings:flag", message: expect.stringMatching(/--settings is neither a file nor valid JSON/) }));
  });
});

describe("disableAllHooks and allowManagedHooksOnly (Claude Code's hook switches)", () => {
  const layers = ["managed", "local", "project", "user"];
  function setup(switches: Partial<Record<string, Record<string, unknown>>>): { log: string } {
    const log = path.join(project, "hook.log");
    const hooks = Object.fromEntries(layers.map((l) => [l, logHook(home, log, l)]));
    writeTree(managed, { "managed-settings.json": settingsWith(hooks.managed!, switches.managed) });
    writeTree(project, { ".claude/settings.local.json": settingsWith(hooks.local!, switches.local), ".claude/settings.json": settingsWith(hooks.project!, switches.project) });
    writeTree(home, { "settings.json": settingsWith(hooks.user!, switches.user) });
    return { log };
  }
  async function ran(log: string): Promise<string[]> {
    const h = await host();
    const out = await h.execute("Bash", { command: "true" }, { onAsk: () => "allow" });
    expect(out.status).toBe("ok");
    return fs.existsSync(log) ? fs.readFileSync(log, "utf8").trim().split("\n").filter(Boolean).sort() : [];
  }

  it("disableAllHooks outside managed settings turns off every hook but the managed ones; the strongest layer that sets it wins", async () => {
    let { log } = setup({ project: { disableAllHooks: true } });
    expect(await ran(log)).toEqual(["managed"]);
    const env = { CLAUDE_CONFIG_DIR: home, TOOLHOST_MANAGED_SETTINGS_DIR: managed };
    const r = await runCli(["hooks", "--json", "--cwd", project], { env });
    const rows = r.json<Array<{ plugin: string; runs: string }>>();
    expect(rows.find((x) => x.plugin === "settings:managed")!.runs).not.toMatch(/^not run/);
    expect(rows.find((x) => x.plugin === "settings:user")!.runs).toBe(`not run: disableAllHooks is true in ${path.join(project, ".claude/settings.json")} (only managed settings' hooks still run)`);
    fs.rmSync(log, { force: true });
    ({ log } = setup({ user: { disableAllHooks: true }, local: { disableAllHooks: false } }));
    expect(await ran(log)).toEqual([...layers].sort());
  });

  it("in managed settings: disableAllHooks turns off every hook, allowManagedHooksOnly all but the managed ones; allowManagedHooksOnly elsewhere is ignored", async () => {
    let { log } = setup({ managed: { disableAllHooks: true } });
    expect(await ran(log)).toEqual([]);
    fs.rmSync(log, { force: true });
    ({ log } = setup({ managed: { allowManagedHooksOnly: true } }));
    expect(await ran(log)).toEqual(["managed"]);
    fs.rmSync(log, { force: true });
    ({ log } = setup({ project: { allowManagedHooksOnly: true } }));
    expect(await ran(log)).toEqual([...layers].sort());
  });
});
