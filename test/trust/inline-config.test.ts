/**
 * Issue 14, config provenance: the embedder's inline config (createHost({ config })) and a toolhost config file
 * found in the project are two sources, both plugin "config". Each rule names its true origin (the file's path,
 * or "createHost({ config })") in explain, the rules service and the problems; and trust applies per source: in
 * an untrusted workspace the project file's allow rules wait, the inline config's (the user's) apply at once.
 * Real hosts running real Bash calls.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createHost, type Host } from "../../core/index.ts";
import { INLINE_CONFIG } from "../../core/manifest/config.ts";
import { tmpdir, writeJson } from "../helpers.ts";

const hosts: Host[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

type Rule = { behavior: string; rule: string; plugin: string; file?: string; path: string };
/** The rules in force (the permissions plugin's "permissions.rules" service, what `toolhost rules` prints). */
const rulesOf = (h: Host): Rule[] =>
  h.service<{ current(): { rules: Array<{ behavior: string; source: string; plugin: string; file?: string; jsonPath: string }> } }>("permissions.rules")!
    .current()
    .rules.map((r) => ({ behavior: r.behavior, rule: r.source, plugin: r.plugin, file: r.file, path: r.jsonPath }));
/** Which config rule decided a call: the outcome names the rule text; the rules in force say where it came from. */
const originOf = (h: Host, o: { rule?: string; plugin?: string }) => rulesOf(h).filter((r) => r.plugin === o.plugin && r.rule === o.rule).map((r) => r.file);

function project(): { dir: string; file: string } {
  const dir = tmpdir("toolhost-inline-cfg-");
  const file = writeJson(path.join(dir, "toolhost.config.json"), { permissions: { allow: ["Bash(touch project.txt)", "Bash(touch both.txt)"], deny: ["Bash(touch denied.txt)"] } });
  return { dir, file };
}

async function host(dir: string, trustWorkspace: boolean): Promise<Host> {
  const h = await createHost({ cwd: dir, trustWorkspace, config: { permissions: { allow: ["Bash(touch inline.txt)", "Bash(touch both.txt)"] } } });
  hosts.push(h);
  return h;
}

describe("createHost({ config }) beside a project toolhost.config.json", { timeout: 60_000 }, () => {
  it("untrusted workspace: the inline allow rule applies, the project file's waits; its deny applies", async () => {
    const { dir, file } = project();
    const h = await host(dir, false);
    const inline = await h.execute("Bash", { command: "touch inline.txt" });
    expect(inline.decision).toBe("allow");
    expect(inline.executed).toBe(true);
    expect(fs.existsSync(path.join(dir, "inline.txt"))).toBe(true);
    expect(inline).toMatchObject({ plugin: "config", rule: "Bash(touch inline.txt)" });
    expect(originOf(h, inline)).toEqual([INLINE_CONFIG]);
    // the same text in both: the inline copy applies, and says it is the inline one
    const both = await h.execute("Bash", { command: "touch both.txt" });
    expect(both.executed).toBe(true);
    expect(originOf(h, both)).toEqual([INLINE_CONFIG]);
    // the project file's allow rule waits for trust: asked, and with no one to ask, not run
    const proj = await h.execute("Bash", { command: "touch project.txt" });
    expect(proj.executed).toBe(false);
    expect(proj.decision).toBe("ask");
    expect(fs.existsSync(path.join(dir, "project.txt"))).toBe(false);
    const denied = await h.execute("Bash", { command: "touch denied.txt" });
    expect(denied.decision).toBe("deny");
    expect(denied.file).toBe(file);

    const rules = rulesOf(h).filter((r) => r.plugin === "config");
    expect(rules).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ behavior: "allow", rule: "Bash(touch inline.txt)", file: INLINE_CONFIG, path: "/permissions/allow/0" }),
        expect.objectContaining({ behavior: "allow", rule: "Bash(touch both.txt)", file: INLINE_CONFIG, path: "/permissions/allow/1" }),
        expect.objectContaining({ behavior: "deny", rule: "Bash(touch denied.txt)", file, path: "/permissions/deny/0" }),
      ]),
    );
    // nothing of the inline config is reported as the file's, and the file's allow rules are not in force
    expect(rules.filter((r) => r.file === file).map((r) => r.rule)).toEqual(["Bash(touch denied.txt)"]);
    // the warning names the two withheld project rules, not the inline ones
    const warn = h.problems().find((p) => p.plugin === "trust" && /not applied: 2 allow rules/.test(p.message));
    expect(warn?.file).toBe(file);
    expect(warn?.message).toContain('"Bash(touch project.txt)", "Bash(touch both.txt)"');
    expect(warn?.message).not.toContain("inline.txt");
  });

  it("trusted workspace: both apply, and explain names each rule's true origin", async () => {
    const { dir, file } = project();
    const h = await host(dir, true);
    const proj = await h.execute("Bash", { command: "touch project.txt" });
    expect(proj.executed).toBe(true);
    expect(originOf(h, proj)).toEqual([file]);
    const inline = await h.execute("Bash", { command: "touch inline.txt" });
    expect(inline.executed).toBe(true);
    expect(originOf(h, inline)).toEqual([INLINE_CONFIG]);
    expect(originOf(h, { plugin: "config", rule: "Bash(touch both.txt)" }).sort()).toEqual([INLINE_CONFIG, file].sort());
    const grants = h.explain("Bash").grants ?? [];
    expect(grants).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ rule: "Bash(touch inline.txt)", plugin: "config", file: INLINE_CONFIG, path: "/permissions/allow/0", applies: expect.stringMatching(/^yes/) }),
        expect.objectContaining({ rule: "Bash(touch both.txt)", plugin: "config", file: INLINE_CONFIG, path: "/permissions/allow/1" }),
        expect.objectContaining({ rule: "Bash(touch project.txt)", plugin: "config", file, path: "/permissions/allow/0" }),
        expect.objectContaining({ rule: "Bash(touch both.txt)", plugin: "config", file, path: "/permissions/allow/1" }),
      ]),
    );
    expect(grants.filter((g) => g.plugin === "config")).toHaveLength(4);
  });

  it("an inline config alone is labelled, never a toolhost.config.json that does not exist; a bad inline value names it", async () => {
    const dir = tmpdir("toolhost-inline-only-");
    const h = await createHost({ cwd: dir, config: { permissions: { allow: ["Bash(touch alone.txt)"] } } });
    hosts.push(h);
    expect(fs.existsSync(path.join(dir, "toolhost.config.json"))).toBe(false);
    expect(rulesOf(h).find((r) => r.rule === "Bash(touch alone.txt)")).toMatchObject({ plugin: "config", file: INLINE_CONFIG });
    const bad = await createHost({ cwd: dir, config: { permissions: { allow: "Bash" } as never } });
    hosts.push(bad);
    expect(bad.problems().find((p) => p.plugin === "config" && p.severity === "error")).toMatchObject({ file: INLINE_CONFIG, path: expect.stringContaining("/permissions") });
  });
});
