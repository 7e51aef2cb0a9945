/**
 * Read deny rules reach inside searches: Grep and Glob skip files a Read deny rule covers (Claude Code
 * passes those rules to ripgrep as exclusions), including symbolic links to such files, and say so.
 * Real files, real .claude/settings.json, the real permissions plugin.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostIn, run, tmpDir, write, type Host } from "./helpers.ts";

let dir: string;
let open: string;
let host: Host;
let openHost: Host;

function project(root: string, settings?: unknown) {
  write(root, ".env", "API_KEY=sk-live-123\n");
  write(root, "secrets/prod.txt", "API_KEY=prod-456\n");
  write(root, "src/app.ts", "const k = process.env.API_KEY;\n");
  write(root, "README.md", "Set API_KEY in .env\n");
  fs.symlinkSync(path.join(root, ".env"), path.join(root, "env-link.txt"));
  if (settings) write(root, ".claude/settings.json", JSON.stringify(settings));
}

beforeAll(async () => {
  dir = tmpDir("th-readdeny-");
  project(dir, { permissions: { deny: ["Read(./.env)", "Read(./secrets/**)"] } });
  open = tmpDir("th-readdeny-open-");
  project(open);
  host = await hostIn(dir);
  openHost = await hostIn(open);
});
afterAll(async () => {
  await host?.close();
  await openHost?.close();
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(open, { recursive: true, force: true });
});

describe("Read deny rules inside Grep and Glob", () => {
  it("without deny rules every file is searched (the control)", async () => {
    const r = await run(openHost, "Grep", { pattern: "API_KEY", output_mode: "files_with_matches" });
    for (const f of [".env", "secrets/prod.txt", "src/app.ts", "README.md", "env-link.txt"]) expect(r.text).toContain(path.join(open, f));
  });

  it("Grep skips denied files and links to them, names the rule and file, and counts them", async () => {
    const r = await run(host, "Grep", { pattern: "API_KEY", output_mode: "content" });
    expect(r.isError).toBe(false);
    expect(r.text).toContain("src/app.ts");
    expect(r.text).toContain("README.md");
    expect(r.text).not.toContain("sk-live-123");
    expect(r.text).not.toContain("prod-456");
    expect(r.text).toMatch(/3 files not shown: denied by rule "Read\(\.\/\.env\)" \(.*settings\.json.*\)/);
    expect(r.text).toContain('"Read(./secrets/**)"');
    expect(r.o.result.meta?.deniedFiles).toBe(3);
  });

  it("Grep in count and files modes, and with a glob, hides the same files", async () => {
    const count = await run(host, "Grep", { pattern: "API_KEY", output_mode: "count" });
    expect(count.text).not.toMatch(/\.env:|prod\.txt:|env-link\.txt:/);
    const files = await run(host, "Grep", { pattern: "API_KEY", glob: "*.txt" });
    expect(files.text).not.toContain("prod.txt");
    expect(files.text).not.toContain("env-link.txt");
  });

  it("Glob does not list denied files", async () => {
    const r = await run(host, "Glob", { pattern: "**/*" });
    expect(r.text).toContain(path.join(dir, "src/app.ts"));
    expect(r.text).not.toContain(path.join(dir, ".env"));
    expect(r.text).not.toContain("prod.txt");
    expect(r.text).not.toContain("env-link.txt");
    expect(r.text).toMatch(/3 files not shown: denied by rule/);
  });

  it("a symlinked directory does not walk around a deny rule (Grep and Glob through the link)", async () => {
    const link = path.join(dir, "vault");
    if (!fs.existsSync(link)) fs.symlinkSync(path.join(dir, "secrets"), link);
    const g = await run(host, "Grep", { pattern: "API_KEY", path: "vault", output_mode: "content" });
    expect(g.text).not.toContain("prod-456");
    // the link resolves into secrets/, so the search of it is denied outright (or its files hidden)
    expect(g.o.status === "denied" || /1 file not shown/.test(g.text)).toBe(true);
    const gl = await run(host, "Glob", { pattern: "**/*", path: "vault" });
    expect(gl.text).not.toContain("prod.txt");
    const gl2 = await run(host, "Glob", { pattern: "vault/**" });
    expect(gl2.text).not.toContain("prod.txt");
  });

  it("a direct Grep of a denied file is still denied outright", async () => {
    const r = await run(host, "Grep", { pattern: "API_KEY", path: ".env" });
    expect(r.o.status).toBe("denied");
  });
});
