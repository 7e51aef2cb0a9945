/**
 * The permission mode from configuration: Claude Code's `permissions.defaultMode` in .claude/settings*.json
 * (local over project; a repo-committed project file may not escalate), toolhost config, createHost's
 * option, and `disableBypassPermissionsMode`. Real files in temp dirs, the real bundled plugins.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createHost, type Host } from "../../core/index.ts";
import { runCli } from "../helpers.ts";

const dirs: string[] = [];
const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function project(files: Record<string, unknown>): string {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "th-mode-")));
  dirs.push(d);
  for (const [rel, v] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(d, rel)), { recursive: true });
    fs.writeFileSync(path.join(d, rel), JSON.stringify(v));
  }
  return d;
}
async function host(cwd: string, mode?: string): Promise<Host> {
  const h = await createHost({ cwd, mode });
  hosts.push(h);
  return h;
}
const local = (m: unknown) => ({ ".claude/settings.local.json": { permissions: { defaultMode: m } } });
const proj = (m: unknown, extra: Record<string, unknown> = {}) => ({ ".claude/settings.json": { permissions: { defaultMode: m, ...extra } } });

describe("permission mode from settings and config", () => {
  it("no setting: default mode, source default", async () => {
    const h = await host(project({}));
    expect(h.mode).toBe("default");
    expect(h.modeSource).toEqual({ mode: "default", source: "default" });
  });

  it("settings.local.json defaultMode applies (plan removes write tools) and names its file", async () => {
    const d = project(local("plan"));
    const h = await host(d);
    expect(h.mode).toBe("plan");
    expect(h.modeSource).toEqual({ mode: "plan", source: "settings:local", file: path.join(d, ".claude/settings.local.json"), path: "/permissions/defaultMode" });
    expect(h.explain("Write")).toMatchObject({ status: "excluded", rule: "mode: plan" });
  });

  it("local outranks project; a non-escalating project mode applies", async () => {
    expect((await host(project({ ...proj("plan"), ...local("acceptEdits") }))).mode).toBe("acceptEdits");
    expect((await host(project(proj("plan")))).mode).toBe("plan");
    expect((await host(project(proj("dontAsk")))).mode).toBe("dontAsk");
  });

  it("a repo-committed project file may not escalate: bypassPermissions / acceptEdits are ignored with a warning naming file and field", async () => {
    for (const m of ["bypassPermissions", "acceptEdits"]) {
      const d = project(proj(m));
      const h = await host(d);
      expect(h.mode).toBe("default");
      const w = h.problems().find((p) => p.path === "/permissions/defaultMode");
      expect(w).toMatchObject({ plugin: "settings:project", file: path.join(d, ".claude/settings.json"), severity: "warning" });
      expect(w!.message).toContain(`"${m}"`);
      expect(w!.message).toContain("settings.local.json");
    }
  });

  it("manual is default; auto and unknown names are reported and ignored", async () => {
    expect((await host(project(local("manual")))).mode).toBe("default");
    const a = await host(project(local("auto")));
    expect(a.mode).toBe("default");
    expect(a.problems().some((p) => /"auto".*not supported/.test(p.message))).toBe(true);
    const u = await host(project(local("yolo")));
    expect(u.problems().some((p) => /unknown defaultMode "yolo"/.test(p.message) && p.severity === "warning")).toBe(true);
  });

  it("a config file found in the project ranks like project settings: below settings.local, and it may not escalate", async () => {
    const d = project({ ...local("plan"), "toolhost.config.json": { permissions: { defaultMode: "dontAsk" } } });
    expect((await host(d)).modeSource).toMatchObject({ mode: "plan", source: "settings:local" });
    const alone = await host(project({ "toolhost.config.json": { permissions: { defaultMode: "dontAsk" } } }));
    expect(alone.modeSource).toMatchObject({ mode: "dontAsk", source: "config", path: "/permissions/defaultMode" });
    for (const cfg of [{ "toolhost.config.json": { mode: "bypassPermissions" } }, { "package.json": { name: "x", toolhost: { permissions: { defaultMode: "bypassPermissions" } } } }]) {
      const h = await host(project(cfg));
      expect(h.mode).toBe("default");
      expect(h.problems().some((p) => p.plugin === "config" && /ignored \(a checked-in file may not loosen/.test(p.message))).toBe(true);
    }
  });

  it("createHost's mode, its inline config and an explicit config file outrank settings", async () => {
    const d = project({ ...local("plan"), "elsewhere.json": { mode: "acceptEdits" } });
    expect((await host(d, "dontAsk")).modeSource).toEqual({ mode: "dontAsk", source: "option" });
    const inline = await createHost({ cwd: d, config: { permissions: { defaultMode: "bypassPermissions" } } });
    hosts.push(inline);
    expect(inline.modeSource).toMatchObject({ mode: "bypassPermissions", source: "config" });
    const explicit = await createHost({ cwd: d, configFile: "elsewhere.json" });
    hosts.push(explicit);
    expect(explicit.modeSource).toMatchObject({ mode: "acceptEdits", source: "config", file: path.join(d, "elsewhere.json") });
  });

  it("disableBypassPermissionsMode refuses bypass from an option and from setMode, naming the file", async () => {
    const d = project(proj("plan", { disableBypassPermissionsMode: "disable" }));
    const h = await host(d, "bypassPermissions");
    expect(h.mode).toBe("default");
    expect(h.problems().some((p) => /bypassPermissions mode is disabled/.test(p.message) && p.file === path.join(d, ".claude/settings.json"))).toBe(true);
    expect(() => h.setMode("bypassPermissions")).toThrow(/disabled by \/permissions\/disableBypassPermissionsMode in .*settings\.json/);
    h.setMode("plan");
    expect(h.modeSource).toEqual({ mode: "plan", source: "setMode" });
  });

  it("an unknown mode from createHost is kept (plugins may define modes) but warned about", async () => {
    const h = await host(project({}), "yolo");
    expect(h.mode).toBe("yolo");
    expect(h.problems().some((p) => /unknown permission mode "yolo"/.test(p.message) && p.severity === "warning")).toBe(true);
  });

  it("the mode is chosen once: editing the settings later does not switch a running host", async () => {
    const d = project(local("plan"));
    const h = await host(d);
    fs.writeFileSync(path.join(d, ".claude/settings.local.json"), JSON.stringify({ permissions: { defaultMode: "acceptEdits" } }));
    await h.rebuild("settings edited");
    expect(h.mode).toBe("plan");
  });

  it("toolhost tools --json reports the mode and its source", async () => {
    const d = project(local("plan"));
    const r = await runCli(["tools", "--json", "--cwd", d]);
    expect(r.json().mode).toEqual({ name: "plan", source: "settings:local", file: path.join(d, ".claude/settings.local.json"), path: "/permissions/defaultMode" });
    const t = await runCli(["tools", "--cwd", d]);
    expect(t.stdout).toContain("mode plan (from settings:local");
  });
});
