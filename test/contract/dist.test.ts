/**
 * The start-up bundle (scripts/bundle.mjs → dist/, loaded by bin/dist.mjs): the CLI and the package entries run it
 * while it matches the sources, and it behaves as the sources do. The global setup (test/bundle.setup.ts) built it
 * from this tree, so it must be fresh here; TOOLHOST_DIST=0 runs the same calls from the sources through jiti.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO, runCli, tmpdir } from "../helpers.ts";
// @ts-expect-error plain JS without types
import { openDist } from "../../bin/dist.mjs";

type Dist = { dir?: string; modules?: Record<string, string>; fresh?: Promise<string | undefined>; stale?: string };
/** openDist, awaited: `stale` is why the bundle at root is not used. */
async function check(root: string): Promise<Dist> {
  const d = (openDist as (root: string) => Dist)(root);
  return d.fresh ? { ...d, stale: await d.fresh } : d;
}

describe("the start-up bundle", () => {
  it("is fresh after the build and holds every module a bundled manifest names", async () => {
    const d = await check(REPO);
    expect(d.stale).toBeUndefined();
    for (const f of fs.readdirSync(path.join(REPO, "manifests"))) {
      const m = JSON.parse(fs.readFileSync(path.join(REPO, "manifests", f), "utf8"));
      for (const mod of [m.main, ...(m.cliCommands ?? []).map((c: { module: string }) => c.module), ...[m.tools ?? []].flat()]) {
        if (typeof mod === "string") expect(d.modules![path.normalize(mod)], `${f}: ${mod}`).toMatch(/\.mjs$/);
      }
    }
  });

  it("answers the CLI's calls exactly as the sources do", async () => {
    const cwd = tmpdir();
    fs.writeFileSync(path.join(cwd, "hello.txt"), "hello\n");
    for (const args of [["tools", "--json"], ["--help"], ["rules", "Bash", '{"command":"rm -rf /"}', "--json"], ["call", "Read", '{"file_path":"hello.txt"}', "--yes", "--json"], ["explain", "Bash", "--json"], ["nope"]]) {
      const [dist, src] = await Promise.all([runCli(args, { cwd }), runCli(args, { cwd, env: { TOOLHOST_DIST: "0" } })]);
      const norm = (s: string) => s.replace(/"(durationMs|ms)":\s*[\d.e-]+/g, '"$1":0').replace(/\d+(\.\d+)? ?ms\b/g, "N ms");
      expect({ code: dist.code, out: norm(dist.stdout), err: dist.stderr }, args.join(" ")).toEqual({ code: src.code, out: norm(src.stdout), err: src.stderr });
    }
  }, 120_000);

  it("toolhost doctor says where this process's code came from", async () => {
    const cwd = tmpdir();
    const finding = async (env: Record<string, string>) => (JSON.parse((await runCli(["doctor", "--json"], { cwd, env })).stdout).findings as Array<{ what: string; detail?: string }>).find((f) => f.what.startsWith("start-up"));
    expect(await finding({})).toEqual({ section: "runtime", level: "ok", what: "start-up bundle", detail: `${path.join(REPO, "dist")} (built from these sources)` });
    expect((await finding({ TOOLHOST_DIST: "0" }))?.detail).toMatch(/^TOOLHOST_DIST=0; `npm run build` makes start-up faster$/);
  }, 60_000);

  it("is stale when a source changed (size, or content behind a moved mtime) or is gone, and trusted inside node_modules", async () => {
    const root = tmpdir();
    fs.mkdirSync(path.join(root, "dist"));
    fs.writeFileSync(path.join(root, "a.ts"), "export const a = 1;\n");
    const st = fs.statSync(path.join(root, "a.ts"));
    const sha1 = "2f0a0c1e0b4a2a9d0b3f8f4d9e9b5d3a7c6e1f00";
    const write = (stamps: object) => fs.writeFileSync(path.join(root, "dist", "modules.json"), JSON.stringify({ modules: { "a.ts": "m.a.mjs" }, stamps }));
    write({ "a.ts": [st.mtimeMs, st.size, sha1] });
    expect(await check(root)).toMatchObject({ modules: { "a.ts": "m.a.mjs" } });
    write({ "a.ts": [st.mtimeMs, st.size + 1, sha1] });
    expect((await check(root)).stale).toMatch(/a\.ts changed since dist\/ was built/);
    write({ "a.ts": [st.mtimeMs - 1000, st.size, sha1] });
    expect((await check(root)).stale).toMatch(/a\.ts changed/);
    const real = createHash("sha1").update(fs.readFileSync(path.join(root, "a.ts"))).digest("hex");
    write({ "a.ts": [st.mtimeMs - 1000, st.size, real] }); // only the mtime moved (a checkout): still fresh
    expect((await check(root)).stale).toBeUndefined();
    write({ "b.ts": [1, 1, sha1] });
    expect((await check(root)).stale).toMatch(/b\.ts is gone/);
    expect((await check(tmpdir())).stale).toMatch(/not built/);
    const installed = path.join(root, "node_modules", "toolhost");
    fs.mkdirSync(path.join(installed, "dist"), { recursive: true });
    fs.copyFileSync(path.join(root, "dist", "modules.json"), path.join(installed, "dist", "modules.json"));
    expect((await check(installed)).stale).toBeUndefined();
  });
});
