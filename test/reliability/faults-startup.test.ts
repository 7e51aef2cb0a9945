/**
 * Start-up with a $TMPDIR that cannot take jiti's module cache (issue 12, item 7): a full disk
 * (tmpfs, ENOSPC), a read-only one (EROFS) and a file where the directory should be (ENOTDIR). Every
 * entry point still starts — the CLI, the package entry (index.mjs) with a host that loads the bundled
 * plugins' modules. From the sources (TOOLHOST_DIST=0: jiti) it says once on stderr that it runs without the
 * cache; from the start-up bundle (dist/, built by the global setup) it needs no cache and says nothing.
 */
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO, runCli, tmpdir } from "../helpers.ts";
import { fileInPlaceOfDir, smallTmpfs, unmountAll } from "./faults-helpers.ts";

afterAll(unmountAll);

function node(args: string[], env: Record<string, string>, cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, args, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    c.stdout.on("data", (d) => (stdout += d));
    c.stderr.on("data", (d) => (stderr += d));
    c.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

const LIBRARY = `
const { createHost, resultText } = await import(${JSON.stringify(path.join(REPO, "index.mjs"))});
const host = await createHost({ cwd: process.cwd() });
const o = await host.execute("Read", { file_path: "hello.txt" }, { yes: true });
console.log(JSON.stringify({ status: o.status, text: resultText(o.result), tools: host.pool.tools.length, problems: host.problems().filter((p) => p.severity === "error").map((p) => p.message) }));
await host.close();
`;

// Without the cache every module is transpiled again (≈ 4 s of CPU per start): each case runs what it must.
const cases: Array<[string, Array<"cli" | "library">, () => string | { dir: string; why: string }]> = [
  ["a file in place of $TMPDIR (ENOTDIR)", ["library"], () => fileInPlaceOfDir()],
  [
    "a full $TMPDIR (tmpfs, ENOSPC)",
    ["cli", "library"],
    () => {
      const t = smallTmpfs("64k");
      if (typeof t === "string") return { dir: "", why: t };
      t.fill();
      return t.dir;
    },
  ],
  [
    "a read-only $TMPDIR (tmpfs remounted ro, EROFS)",
    ["cli"],
    () => {
      const t = smallTmpfs("64k");
      if (typeof t === "string") return { dir: "", why: t };
      try {
        execFileSync("mount", ["-o", "remount,ro", t.dir], { stdio: "pipe" });
      } catch (e) {
        return { dir: "", why: `remount ro failed: ${(e as Error).message}` };
      }
      return t.dir;
    },
  ],
];

describe("start-up survives a $TMPDIR the module cache cannot use", () => {
  for (const [label, run, make] of cases) {
    const made = make();
    const why = typeof made === "string" ? undefined : made.why;
    if (why) console.log(`skipped: ${label} (${why})`);
    it.skipIf(!!why)(`${label}: ${run.join(" and ")} start and run a tool`, async () => {
      const TMPDIR = made as string;
      const cwd = tmpdir();
      fs.writeFileSync(path.join(cwd, "hello.txt"), "hello from the project\n");
      const warned = (stderr: string) => (stderr.match(/toolhost: the module cache .* cannot be written/g) ?? []).length;
      for (const [TOOLHOST_DIST, warnings] of [["0", 1], ["1", 0]] as const) {
        const env = { TMPDIR, TOOLHOST_HOME: path.join(cwd, ".home"), TOOLHOST_DIST };
        if (run.includes("cli")) {
          const call = await runCli(["call", "Read", JSON.stringify({ file_path: "hello.txt" }), "--yes"], { cwd, env, timeoutMs: 120_000 });
          expect(call.code, call.stderr).toBe(0);
          expect(call.stdout).toContain("hello from the project");
          expect(warned(call.stderr), call.stderr).toBe(warnings);
        }
        if (run.includes("library")) {
          const lib = await node(["--input-type=module", "-e", LIBRARY], env, cwd);
          expect(lib.code, lib.stderr).toBe(0);
          const r = JSON.parse(lib.stdout.trim().split("\n").pop()!);
          expect(r).toMatchObject({ status: "ok", problems: [] });
          expect(r.tools).toBeGreaterThan(5);
          expect(r.text).toContain("hello from the project");
          expect(warned(lib.stderr), lib.stderr).toBe(warnings);
        }
      }
    }, 240_000);
  }
});
