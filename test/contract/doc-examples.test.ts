/**
 * The TypeScript examples in the README and docs/ compile as written, strictly, against the package as a consumer
 * imports it (`from "toolhost"`, `"toolhost/rules"`, `"toolhost/testing"`): a ```ts block that imports toolhost is
 * an example a user will paste (issue 19, item 8: `onAsk: async (req) => "allow"` used to fail a strict check).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./house.ts";

const DOCS = ["README.md", ...fs.readdirSync(path.join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];

function examples(): Array<{ name: string; code: string }> {
  const out: Array<{ name: string; code: string }> = [];
  for (const doc of DOCS) {
    const text = fs.readFileSync(path.join(ROOT, doc), "utf8");
    for (const m of text.matchAll(/```ts\n([\s\S]*?)```/g)) {
      if (!/from "toolhost(\/[a-z]+)?"/.test(m[1]!)) continue;
      const line = text.slice(0, m.index).split("\n").length;
      out.push({ name: `${doc.replace(/[/.]/g, "_")}_${line}`, code: m[1]! });
    }
  }
  return out;
}

describe("documentation examples", () => {
  it("every ```ts example that imports toolhost type-checks strictly as a consumer's module", () => {
    const found = examples();
    expect(found.length).toBeGreaterThanOrEqual(3);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "th-doc-examples-"));
    fs.mkdirSync(path.join(dir, "node_modules/@types"), { recursive: true });
    fs.symlinkSync(ROOT, path.join(dir, "node_modules/toolhost"));
    fs.symlinkSync(path.join(ROOT, "node_modules/@types/node"), path.join(dir, "node_modules/@types/node"));
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module" }));
    const compilerOptions = { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, skipLibCheck: true, types: ["node"], lib: ["ES2023"], noUnusedLocals: false };
    const files = found.map((e) => `${e.name}.ts`);
    // each example is its own module: `export {}` keeps top-level names apart
    for (const e of found) fs.writeFileSync(path.join(dir, `${e.name}.ts`), `${e.code}\nexport {};\n`);
    fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files }));
    const r = spawnSync(process.execPath, [path.join(ROOT, "node_modules/typescript/bin/tsc"), "-p", dir], { encoding: "utf8" });
    expect(r.stdout + r.stderr, `examples in ${dir}`).toBe("");
    expect(r.status).toBe(0);
  }, 120_000);
});
