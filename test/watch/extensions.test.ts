/**
 * Hot reload follows every module extension a plugin may use (issue 12, item 4): `.mjs`, `.cjs`, `.js`
 * (CommonJS and under `"type": "module"`), `.ts`, `.mts` and `.cts`, for `tools` and `main` modules and
 * the helpers they import from the plugin folder — real chokidar on temp directories. Before the fix an
 * edited `.mjs`/`.cjs` module kept its old code, the rebuild reported success, and a broken edit was
 * neither reported nor applied. A module that still cannot be reloaded is reported (plugin and file).
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createHost, resultText, type Host, type ProblemReport } from "../../core/index.ts";
import { tmpProject, until, write } from "./helpers.ts";

const hosts: Host[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

interface Case {
  ext: string;
  cjs: boolean;
  typeModule?: boolean;
}
const CASES: Case[] = [
  { ext: "mjs", cjs: false },
  { ext: "cjs", cjs: true },
  { ext: "js", cjs: false, typeModule: true },
  { ext: "js", cjs: true },
  { ext: "ts", cjs: false },
  { ext: "mts", cjs: false },
  { ext: "cts", cjs: true },
];
const label = (c: Case) => `.${c.ext}${c.ext === "js" ? (c.cjs ? " (CommonJS)" : ' (type "module")') : ""}`;

function helper(c: Case, reply: string): string {
  return c.cjs ? `exports.REPLY = ${JSON.stringify(reply)};\n` : `export const REPLY = ${JSON.stringify(reply)};\n`;
}

/** A tools module (or a main module collecting one tool) answering `reply`, or the helper's REPLY when reply is undefined. */
function moduleText(c: Case, kind: "tools" | "main", reply?: string): string {
  const imp = reply !== undefined ? "" : c.cjs ? `const { REPLY } = require("./helper.${c.ext}");\n` : `import { REPLY } from "./helper.${c.ext}";\n`;
  const value = reply !== undefined ? JSON.stringify(reply) : "REPLY";
  const tool = `{ name: "p1_x", description: "d", inputSchema: { type: "object" }, call: () => ${value} }`;
  const body =
    kind === "tools"
      ? tool
      : `{ name: "p1", apply(ctx) { ctx.hooks.build.tap("p1", (b) => { b.hooks.collect.tapPromise("p1", async (col) => { col.add({ ...${tool}, origin: "plugin", plugin: "p1" }); }); }); } }`;
  return imp + (c.cjs ? (kind === "tools" ? `exports.tool = ${body};\n` : `module.exports = ${body};\n`) : kind === "tools" ? `export const tool = ${body};\n` : `export default ${body};\n`);
}

async function start(cwd: string): Promise<{ host: Host; failed: ProblemReport[][] }> {
  const failed: ProblemReport[][] = [];
  const host = await createHost({ cwd, watch: true, debounceMs: 30, onAsk: () => "allow", config: { plugins: ["./plugins/p1"] }, dataHome: path.join(cwd, ".data") });
  hosts.push(host);
  host.hooks.rebuildFailed.tap("test", (_i, problems) => void failed.push(problems));
  return { host, failed };
}

async function text(host: Host): Promise<string> {
  const o = await host.execute("p1_x", {});
  return o.status === "ok" ? resultText(o.result) : `<${o.status}>`;
}

describe("watch: every module extension reloads", () => {
  for (const kind of ["tools", "main"] as const) {
    for (const c of CASES) {
      it(`${kind} module ${label(c)}: edits of it and of a helper it imports run; a broken edit is reported and the last good code serves`, async () => {
        const cwd = tmpProject();
        const p1 = path.join(cwd, "plugins/p1");
        const file = path.join(p1, `${kind}.${c.ext}`);
        if (c.typeModule) write(path.join(p1, "package.json"), JSON.stringify({ type: "module" }));
        write(path.join(p1, ".claude-plugin/plugin.json"), JSON.stringify(kind === "tools" ? { name: "p1", tools: [`./tools.${c.ext}`] } : { name: "p1", main: `./main.${c.ext}` }));
        write(path.join(p1, `helper.${c.ext}`), helper(c, "h1"));
        write(file, moduleText(c, kind));
        const { host, failed } = await start(cwd);
        expect(await text(host)).toBe("h1");
        write(path.join(p1, `helper.${c.ext}`), helper(c, "h2"));
        await until(async () => (await text(host)) === "h2", 15_000, "the edited helper to run");
        write(file, moduleText(c, kind, "direct"));
        await until(async () => (await text(host)) === "direct", 15_000, "the edited module to run");
        const nFailed = failed.length;
        write(file, `${c.cjs ? "module.exports =" : "export default"} {{ broken\n`);
        const problems = await until(() => failed[nFailed], 15_000, "the broken edit to be reported");
        expect(problems.find((p) => p.file === file)).toMatchObject({ plugin: "p1", file, severity: "error" });
        expect(await text(host)).toBe("direct");
        write(file, moduleText(c, kind, "fixed"));
        await until(async () => (await text(host)) === "fixed", 15_000, "the fixed module to run");
      });
    }
  }

  it("a tools module caught empty mid-write (truncated, not yet written) keeps the last good pool instead of dropping its tools", async () => {
    const cwd = tmpProject();
    const p1 = path.join(cwd, "plugins/p1");
    const file = path.join(p1, "tools.mjs");
    write(path.join(p1, ".claude-plugin/plugin.json"), JSON.stringify({ name: "p1", tools: ["./tools.mjs"] }));
    write(file, moduleText({ ext: "mjs", cjs: false }, "tools", "v1"));
    const { host, failed } = await start(cwd);
    fs.truncateSync(file, 0);
    const problems = await until(() => failed[0], 15_000, "the failed rebuild");
    expect(problems.find((p) => p.file === file)).toMatchObject({ plugin: "p1", file, severity: "error" });
    expect(problems.find((p) => p.file === file)!.message).toMatch(/empty/);
    expect(await text(host)).toBe("v1");
    write(file, moduleText({ ext: "mjs", cjs: false }, "tools", "v2"));
    await until(async () => (await text(host)) === "v2", 15_000, "the written module");
  });

  it("a module the loader cannot reload (here: a tools module inside the plugin's node_modules, loaded natively) is reported, not passed off as reloaded", async () => {
    const cwd = tmpProject();
    const p1 = path.join(cwd, "plugins/p1");
    const file = path.join(p1, "node_modules/dep/tools.mjs");
    write(path.join(p1, ".claude-plugin/plugin.json"), JSON.stringify({ name: "p1", tools: ["./node_modules/dep/tools.mjs"] }));
    write(file, moduleText({ ext: "mjs", cjs: false }, "tools", "v1"));
    write(path.join(p1, "other.json"), "{}");
    const { host, failed } = await start(cwd);
    expect(await text(host)).toBe("v1");
    write(file, moduleText({ ext: "mjs", cjs: false }, "tools", "v2"));
    // node_modules is not watched: a change elsewhere in the plugin makes the rebuild re-import it.
    write(path.join(p1, "other.json"), `{"n": 1}`);
    const problems = await until(() => failed[0], 15_000, "the failed reload");
    expect(problems.find((p) => p.file === file)).toMatchObject({ plugin: "p1", file, severity: "error" });
    expect(problems.find((p) => p.file === file)!.message).toMatch(/could not reload .*tools\.mjs/);
    expect(fs.existsSync(file)).toBe(true);
    expect(await text(host)).toBe("v1");
  });
});
