/**
 * The package's runtime surface equals what its types declare: every value export of core/index.ts
 * (and so of types/core/index.d.ts) is a named export of index.mjs, and nothing else is.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as api from "../../core/index.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

function packageExports(specifier: string): string[] {
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", `const m = await import(${JSON.stringify(specifier)}); console.log(JSON.stringify(Object.keys(m)))`], { cwd: ROOT, encoding: "utf8" });
  return (JSON.parse(out) as string[]).filter((k) => k !== "default").sort();
}

describe("public API", () => {
  it("index.mjs exports exactly core/index.ts's value exports", () => {
    const declared = Object.keys(api).sort();
    expect(packageExports("toolhost")).toEqual(declared);
  });
  it("documented names load from the package (UsageError, loadConfig)", () => {
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", `import { UsageError, loadConfig, createHost } from "toolhost"; console.log(typeof UsageError, typeof loadConfig, typeof createHost)`], { cwd: ROOT, encoding: "utf8" });
    expect(out.trim()).toBe("function function function");
  });
  it("toolhost/testing exports exactly testing/index.ts's value exports", async () => {
    const declared = Object.keys(await import("../../testing/index.ts")).sort();
    expect(packageExports("toolhost/testing")).toEqual(declared);
  });
  it("require(\"toolhost\") says how to import it (the package is ESM-only)", () => {
    const out = execFileSync(process.execPath, ["-e", `try { require("toolhost") } catch (e) { console.log(e.message) }`], { cwd: ROOT, encoding: "utf8" });
    expect(out).toContain('toolhost is ESM-only: use `import { createHost } from "toolhost"`');
  });
  it("the npm package ships what the README links to (docs/) and every entry point", () => {
    const files = JSON.parse(execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT, encoding: "utf8" }))[0].files.map((f: { path: string }) => f.path);
    for (const f of ["docs/writing-a-plugin.md", "docs/permissions.md", "index.mjs", "index.cjs", "rules.mjs", "adapters.mjs", "testing.mjs", "testing/index.ts", "manifest.schema.json", "plugins/scaffold/template/package.json.tmpl"]) expect(files, f).toContain(f);
  });
});
