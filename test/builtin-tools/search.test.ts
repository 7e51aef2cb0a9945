import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compilePattern, matchLines } from "../../plugins/builtin-tools/grep.ts";
import { hostIn, run, tmpDir, write, type Host } from "./helpers.ts";

let dir: string;
let host: Host;
const touch = (f: string, secondsAgo: number) => {
  const t = new Date(Date.now() - secondsAgo * 1000);
  fs.utimesSync(path.join(dir, f), t, t);
};

beforeAll(async () => {
  dir = tmpDir();
  write(dir, ".gitignore", "dist/\n*.log\n!keep.log\n");
  write(dir, "src/a.ts", "export const alpha = 1;\nexport function needle() {}\n");
  write(dir, "src/b.tsx", "import { needle } from './a';\nneedle();\n");
  write(dir, "src/deep/c.py", "def needle():\n    return 'Needle'\n");
  write(dir, "src/deep/.gitignore", "secret.ts\n");
  write(dir, "src/deep/secret.ts", "needle in an ignored file\n");
  write(dir, "dist/out.js", "needle in build output\n");
  write(dir, "node_modules/pkg/index.js", "needle in a dependency\n");
  write(dir, "debug.log", "needle in a log\n");
  write(dir, "keep.log", "needle kept by negation\n");
  write(dir, "image.bin", Buffer.concat([Buffer.from("needle"), Buffer.from([0, 1, 2])]));
  write(dir, "README.md", "# needle docs\n");
  touch("src/a.ts", 300);
  touch("src/b.tsx", 200);
  touch("src/deep/c.py", 100);
  touch("README.md", 400);
  touch("keep.log", 500);
  host = await hostIn(dir);
});
afterAll(async () => {
  await host.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("Glob", () => {
  it("matches, newest first, skipping gitignored files, .git and node_modules", async () => {
    const r = await run(host, "Glob", { pattern: "**/*" });
    const files = r.text.split("\n");
    expect(files).toContain(path.join(dir, "src/a.ts"));
    expect(files).toContain(path.join(dir, "keep.log"));
    for (const gone of ["dist/out.js", "node_modules/pkg/index.js", "debug.log", "src/deep/secret.ts"]) expect(files).not.toContain(path.join(dir, gone));
    const order = ["src/deep/c.py", "src/b.tsx", "src/a.ts", "README.md"].map((f) => files.indexOf(path.join(dir, f)));
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it("supports path, braces, and top-level-only patterns", async () => {
    const r = await run(host, "Glob", { pattern: "**/*.{ts,tsx}", path: "src" });
    expect(r.text.split("\n").sort()).toEqual([path.join(dir, "src/a.ts"), path.join(dir, "src/b.tsx")]);
    expect(r.o.input).toMatchObject({ path: path.join(dir, "src") });
    const top = await run(host, "Glob", { pattern: "*.md" });
    expect(top.text).toBe(path.join(dir, "README.md"));
    const sub = await run(host, "Glob", { pattern: "src/deep/*.py" });
    expect(sub.text).toBe(path.join(dir, "src/deep/c.py"));
  });

  it("caps at 100 with a note of how many were omitted", async () => {
    for (let i = 0; i < 130; i++) write(dir, `many/f${i}.txt`, "x");
    const r = await run(host, "Glob", { pattern: "many/*.txt" });
    expect(r.text.split("\n").filter((l) => l.startsWith("/"))).toHaveLength(100);
    expect(r.text).toMatch(/100 most recently modified of 130 matching files; 30 omitted/);
  });

  it("says so when nothing matches, and errors on a missing path", async () => {
    expect((await run(host, "Glob", { pattern: "**/*.nothing" })).text).toMatch(/No files found/);
    const miss = await run(host, "Glob", { pattern: "*", path: "srcc" });
    expect(miss.isError).toBe(true);
    expect(miss.text).toContain(path.join(dir, "src"));
  });
});

describe("Grep", () => {
  it("files_with_matches by default, respecting .gitignore (nested, negated), skipping binaries", async () => {
    const r = await run(host, "Grep", { pattern: "needle", head_limit: 0 });
    const files = r.text.split("\n").filter((l) => l.startsWith("/"));
    expect(r.text).toMatch(/^Found 5 files/);
    expect(files.sort()).toEqual(["README.md", "keep.log", "src/a.ts", "src/b.tsx", "src/deep/c.py"].map((f) => path.join(dir, f)).sort());
  });

  it("content mode: path:line:text with context and -- separators", async () => {
    const r = await run(host, "Grep", { pattern: "needle", path: "src", output_mode: "content", "-B": 1, type: "ts" });
    expect(r.text.split("\n")).toEqual(["src/a.ts-1-export const alpha = 1;", "src/a.ts:2:export function needle() {}", "--", "src/b.tsx:1:import { needle } from './a';", "src/b.tsx:2:needle();"]);
    const noN = await run(host, "Grep", { pattern: "alpha", output_mode: "content", "-n": false });
    expect(noN.text).toBe("src/a.ts:export const alpha = 1;");
  });

  it("count mode, -i, glob and type filters", async () => {
    const r = await run(host, "Grep", { pattern: "NEEDLE", "-i": true, output_mode: "count", glob: "*.py" });
    expect(r.text).toContain("src/deep/c.py:2");
    expect(r.text).toMatch(/Found 2 matching lines across 1 file/);
    const py = await run(host, "Grep", { pattern: "needle", type: "py" });
    expect(py.text).toMatch(/^Found 1 file\n/);
    const neg = await run(host, "Grep", { pattern: "needle", glob: "!*.{ts,tsx}", path: "src" });
    expect(neg.text).toMatch(/^Found 1 file\n.*c\.py/);
    const bad = await run(host, "Grep", { pattern: "x", type: "cobol" });
    expect(bad.o.status).toBe("invalid-input");
    expect(bad.text).toMatch(/unknown file type "cobol". Known types: .*rust/);
  });

  it("auto-expands a few matching files with their lines", async () => {
    const r = await run(host, "Grep", { pattern: "alpha" });
    expect(r.text).toContain("Matching lines");
    expect(r.text).toContain("src/a.ts:1:export const alpha = 1;");
    const many = await run(host, "Grep", { pattern: "needle" });
    expect(many.text).not.toContain("Matching lines");
  });

  it("multiline lets patterns span lines", async () => {
    const single = await run(host, "Grep", { pattern: "needle\\(\\):\\n\\s+return", output_mode: "content" });
    expect(single.text).toBe("No files found");
    const multi = await run(host, "Grep", { pattern: "needle\\(\\):.\\s+return", multiline: true, output_mode: "content" });
    expect(multi.text.split("\n")).toEqual(["src/deep/c.py:1:def needle():", "src/deep/c.py:2:    return 'Needle'"]);
  });

  it("head_limit and offset page through results with a note", async () => {
    for (let i = 0; i < 20; i++) write(dir, `paged/p${String(i).padStart(2, "0")}.txt`, "hit\n".repeat(3));
    const r = await run(host, "Grep", { pattern: "hit", path: "paged", output_mode: "content", head_limit: 5 });
    expect(r.text.split("\n").slice(0, 5)).toHaveLength(5);
    expect(r.text).toMatch(/55 more lines not shown; use offset 5/);
    const next = await run(host, "Grep", { pattern: "hit", path: "paged", output_mode: "content", head_limit: 5, offset: 5 });
    expect(next.text.split("\n")[0]).toBe("paged/p01.txt:3:hit");
  });

  it("searches a single file, and reports invalid regexes clearly", async () => {
    const r = await run(host, "Grep", { pattern: "needle", path: "src/b.tsx", output_mode: "count" });
    expect(r.text).toContain("src/b.tsx:2");
    const bad = await run(host, "Grep", { pattern: "foo(" });
    expect(bad.o.status).toBe("invalid-input");
    expect(bad.text).toMatch(/not a valid regular expression/);
  });

  it("line semantics match ripgrep even when a match would span lines", () => {
    const re = compilePattern("a\\s+b", {});
    expect(matchLines(re, "a\nb\na b\n", false)).toEqual([3]);
    expect(matchLines(compilePattern("(?i)X", {}), "x\ny\nX\n", false)).toEqual([1, 3]);
    expect(matchLines(compilePattern("^$", {}), "a\n\nb\n", false)).toEqual([2, 4]);
  });

  it("handles huge outputs within the memory cap", async () => {
    write(dir, "huge/big.txt", "match this line\n".repeat(200_000));
    const r = await run(host, "Grep", { pattern: "match", path: "huge", output_mode: "content", head_limit: 0 });
    // collected output stops at the 100k-line memory cap (the shaping plugin may then budget the text)
    expect((r.o.result.meta as { numLines: number }).numLines).toBe(100_000);
    expect(r.text).toMatch(/100000 more lines not shown/);
  });
});
