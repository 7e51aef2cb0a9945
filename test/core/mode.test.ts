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

  it("toolhost config outranks settings; createHost's mode outranks both", async () => {
    const d = project({ ...local("plan"), "toolhost.config.json": { permissions: { defaultMode: "dontAsk" } } });
    const h = await host(d);
    expect(h.modeSource).toMatchObject({ mode: "dontAsk", source: "config", path: "/permissions/defaultMode" });
    const o = await host(d, "acceptEdits");
    expect(o.modeSource).toEqual({ mode: "acceptEdits", source: "option" });
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
