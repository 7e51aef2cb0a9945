/**
 * The lsp plugin against a real typescript-language-server on a temp TypeScript project, loaded
 * through the example plugin (plugins/lsp/examples/typescript) exactly as a user would with
 * --plugin-dir. One host for the whole file: the server starts once (a few seconds).
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, resultText, type Host } from "../../core/index.ts";
import { children, alive, editFile, editPlugin } from "./helpers.ts";
import { REPO, tmpdir, writeTree } from "../helpers.ts";

const EXAMPLE = path.join(REPO, "plugins", "lsp", "examples", "typescript");

const MATH = `export interface Shape {
  area(): number;
}

export class Square implements Shape {
  constructor(private readonly side: number) {}
  area(): number {
    return this.side * this.side;
  }
}

/** Adds two numbers. */
export function add(a: number, b: number): number {
  return a + b;
}
`;

const MAIN = `import { add, Square } from "./math";

export function total(): number {
  const s = new Square(2);
  return add(s.area(), 1);
}

export const answer: number = add(40, 2);
`;

const serverPids = () => children(process.pid).filter((c) => c.cmd.includes("typescript-language-server"));

describe("lsp plugin with typescript-language-server", () => {
  let host: Host;
  let proj: string;
  const run = async (input: Record<string, unknown>) => {
    const o = await host.execute("LSP", input, { yes: true });
    return { ...o, text: resultText(o.result) };
  };
  const edit = (file: string, old_string: string, new_string: string) => editFile(host, file, old_string, new_string);

  beforeAll(async () => {
    // The example plugin names the binary on $PATH, as a user's install would provide it.
    process.env.PATH = `${path.join(REPO, "node_modules", ".bin")}${path.delimiter}${process.env.PATH}`;
    const root = tmpdir("toolhost-lsp-");
    proj = path.join(root, "proj");
    writeTree(proj, {
      "tsconfig.json": { compilerOptions: { strict: true, target: "ES2022", module: "ESNext", moduleResolution: "Bundler", noEmit: true }, include: ["src"] },
      "src/math.ts": MATH,
      "src/main.ts": MAIN,
      "notes.xyz": "hello\n",
      "data.ccc": "x\n",
      "thing.foo": "x\n",
    });
    // Broken configs (sorted after typescript-lsp, so its ".ts" claim loses).
    writeTree(path.join(root, "bad"), {
      ".claude-plugin/plugin.json": { name: "zz-bad-lsp" },
      ".lsp.json": {
        nocommand: { extensionToLanguage: { ".aaa": "a" } },
        badext: { command: "x", extensionToLanguage: { bbb: "b", ".": "c" } },
        badargs: { command: "x", args: "--stdio", extensionToLanguage: { ".ccc": "c" } },
        missing: { command: "definitely-not-installed-lsp-9f3", extensionToLanguage: { ".foo": "foo", ".ts": "typescript" }, restartOnCrsh: false },
      },
    });
    host = await createHost({ cwd: proj, pluginDirs: [EXAMPLE, path.join(root, "bad")], plugins: [editPlugin], lsp: { diagnosticsWaitMs: 8000, diagnosticsSettleMs: 800 } });
  });

  afterAll(async () => {
    await host?.close();
  });

  it("contributes the LSP tool lazily and reports invalid servers by plugin, file and JSON path", () => {
    const tool = host.pool.byName.get("LSP")!;
    expect(tool).toMatchObject({ origin: "lsp", plugin: "lsp", isReadOnly: true, isConcurrencySafe: true });
    expect(serverPids()).toEqual([]); // building the pool starts nothing
    const bad = host.problems().filter((p) => p.plugin === "zz-bad-lsp");
    expect(bad[0]?.file).toMatch(/bad[\\/]\.lsp\.json$/);
    const at = (p: string) => bad.filter((x) => x.path === p);
    expect(at("/nocommand/command")[0]).toMatchObject({ severity: "error", message: expect.stringMatching(/needs "command".*skipped/) });
    expect(at("/badext/extensionToLanguage/bbb")[0]).toMatchObject({ severity: "error", message: expect.stringContaining('must start with "."') });
    expect(at("/badext/extensionToLanguage/.")[0]?.severity).toBe("error");
    expect(at("/badargs/args")[0]?.severity).toBe("error");
    expect(at("/missing/restartOnCrsh")[0]).toMatchObject({ severity: "warning", message: expect.stringContaining('did you mean "restartOnCrash"') });
    expect(at("/missing/command")[0]?.message).toContain("Executable not found in $PATH");
    expect(at("/missing/extensionToLanguage/.ts")[0]).toMatchObject({ severity: "warning", message: expect.stringContaining("plugin:typescript-lsp:typescript") });
  });

  it("navigates real files: definition, references, hover, symbols, implementation, call hierarchy", async () => {
    const def = await run({ operation: "goToDefinition", filePath: "src/main.ts", line: 5, character: 10 });
    expect(def.status).toBe("ok");
    expect(def.text).toContain("src/math.ts:13:17: export function add(a: number, b: number): number {");
    expect(def.result.structuredContent).toMatchObject({ operation: "goToDefinition", file: "src/main.ts", results: [{ file: "src/math.ts", line: 13, character: 17 }] });

    const refs = await run({ operation: "findReferences", filePath: "src/math.ts", line: 13, character: 17 });
    expect(refs.text).toMatch(/^Found 4 references in 2 files/);
    expect(refs.text).toContain("src/main.ts\n  1:10: import { add, Square }");

    const hover = await run({ operation: "hover", filePath: "src/main.ts", line: 5, character: 10 });
    expect(hover.text).toContain("add(a: number, b: number): number");
    expect(hover.text).toContain("Adds two numbers.");

    const syms = await run({ operation: "documentSymbol", filePath: "src/math.ts", line: 1, character: 1 });
    expect(syms.text).toContain("- Square (Class) 5:14");
    expect(syms.text).toContain("  - area (Method) 7:3");
    expect(syms.text).toContain("- add (Function) 13:17");

    const ws = await run({ operation: "workspaceSymbol", filePath: "src/main.ts", line: 1, character: 1, query: "Square" });
    expect(ws.text).toContain('matching "Square"');
    expect(ws.text).toContain("Square (Class) src/math.ts:5:1");

    const impl = await run({ operation: "goToImplementation", filePath: "src/math.ts", line: 1, character: 18 });
    expect(impl.text).toContain("src/math.ts:5:14: export class Square implements Shape {");

    const incoming = await run({ operation: "incomingCalls", filePath: "src/math.ts", line: 13, character: 17 });
    expect(incoming.text).toContain("Incoming calls to add (Function) src/math.ts:13:17");
    expect(incoming.text).toMatch(/total \(Function\) src\/main\.ts:3:17.*call site 5:10/);

    const past = await run({ operation: "hover", filePath: "src/main.ts", line: 99, character: 1 });
    expect(past).toMatchObject({ status: "tool-error", text: expect.stringContaining("line 99 is past the end of src/main.ts (9 lines)") });
  });

  it("answers files without a working server with clear errors and keeps working", async () => {
    const xyz = await run({ operation: "hover", filePath: "notes.xyz", line: 1, character: 1 });
    expect(xyz.status).toBe("tool-error");
    expect(xyz.text).toContain("No LSP server available for file type: .xyz");
    // A skipped (invalid) server claims no extensions.
    expect((await run({ operation: "hover", filePath: "data.ccc", line: 1, character: 1 })).text).toContain("No LSP server available for file type: .ccc");
    const missing = await run({ operation: "hover", filePath: "thing.foo", line: 1, character: 1 });
    expect(missing.status).toBe("tool-error");
    expect(missing.text).toMatch(/plugin:zz-bad-lsp:missing cannot start: Executable not found in \$PATH: "definitely-not-installed-lsp-9f3"/);
    expect((await run({ operation: "hover", filePath: "src/main.ts", line: 5, character: 10 })).status).toBe("ok");
  });

  it("adds new diagnostics after an edit, and none once the error is fixed", async () => {
    const broken = await edit("src/math.ts", "return a + b;", 'return "oops";');
    expect(broken.status).toBe("ok");
    expect(broken.text).toMatch(/LSP diagnostics: Found 1 new diagnostic issue in 1 file/);
    expect(broken.text).toMatch(/src\/math\.ts:14:3 error \[2322\] Type 'string' is not assignable to type 'number'/);

    // The same error stays: an unrelated edit reports nothing new.
    const other = await edit("src/math.ts", "/** Adds two numbers. */", "/** Adds two numbers (sum). */");
    expect(other.text).not.toContain("LSP diagnostics: Found");

    const fixed = await edit("src/math.ts", 'return "oops";', "return a + b;");
    expect(fixed.status).toBe("ok");
    expect(fixed.text).not.toContain("LSP diagnostics");
    // Cross-file: breaking a signature shows the new errors in the caller.
    const sig = await edit("src/math.ts", "export function add(a: number, b: number)", "export function add(a: number, b: number, c: number)");
    expect(sig.text).toMatch(/Found 2 new diagnostic issues in 1 file/);
    expect(sig.text).toContain("src/main.ts:5:10 error [2554]");
  });

  it("keeps an unchanged server across rebuilds and leaves no process after close", async () => {
    const before = serverPids();
    expect(before).toHaveLength(1);
    const grandchildren = children(before[0]!.pid).map((c) => c.pid);
    expect(grandchildren.length).toBeGreaterThan(0); // tsserver
    const r = await host.rebuild("test");
    expect(r.ok).toBe(true);
    expect((await run({ operation: "hover", filePath: "src/main.ts", line: 5, character: 10 })).status).toBe("ok");
    expect(serverPids().map((c) => c.pid)).toEqual(before.map((c) => c.pid));

    await host.close();
    for (const pid of [before[0]!.pid, ...grandchildren]) expect(alive(pid), `process ${pid} still alive`).toBe(false);
    expect(serverPids()).toEqual([]);
  });
});
