/**
 * Symlinks (issue 13.4): a link inside the project that points out of it is outside the project. Read,
 * Grep, Glob and `cat` of such a link ask like the real path would; searches skip links to outside files
 * and say so; a deny rule on the target covers the link; a write through a dangling link into an
 * Edit-denied directory is denied in acceptEdits and does not happen. Real files, real links, the real
 * builtin tools and permissions plugin, real Bash.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, resultText, type AskRequest, type Host } from "../../core/index.ts";
import { decide } from "./decide-helper.ts";

const scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "th-links-")));
const proj = path.join(scratch, "proj");
const outside = path.join(scratch, "outside");
const SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- s3cr3t";

function put(rel: string, text: string) {
  fs.mkdirSync(path.dirname(rel), { recursive: true });
  fs.writeFileSync(rel, text);
}

beforeAll(() => {
  put(path.join(outside, ".ssh", "id_rsa"), SECRET + "\n");
  put(path.join(proj, "README.md"), "PRIVATE notes: none here\n");
  put(path.join(proj, "src", "a.ts"), "export const a = 'PRIVATE';\n");
  fs.mkdirSync(path.join(proj, "secrets"));
  fs.symlinkSync(path.join(outside, ".ssh"), path.join(proj, "ssh")); // a repository shipping a link to ~/.ssh
  fs.symlinkSync(path.join(outside, ".ssh", "id_rsa"), path.join(proj, "key"));
  fs.symlinkSync(path.join(proj, "secrets", "new.txt"), path.join(proj, "dangling")); // target does not exist yet
  fs.symlinkSync(path.join(outside, "new.txt"), path.join(proj, "out-dangling"));
});
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

interface Ran {
  text: string;
  asked?: AskRequest;
  isError: boolean;
}

async function withHost<T>(config: Record<string, unknown>, fn: (run: (tool: string, input: unknown, answer?: "allow" | "deny") => Promise<Ran>) => Promise<T>): Promise<T> {
  const host: Host = await createHost({ cwd: proj, config: config as never });
  try {
    return await fn(async (tool, input, answer = "deny") => {
      let asked: AskRequest | undefined;
      const o = await host.execute(tool, input, { onAsk: (req) => ((asked = req), answer), autoLoadDeferred: true });
      return { text: resultText(o.result), asked, isError: !!o.result.isError };
    });
  } finally {
    await host.close();
  }
}

describe("a link out of the project is outside the project", () => {
  it("Read of the link asks like the real path, and a refusal returns no content", () =>
    withHost({}, async (run) => {
      const ctl = await run("Read", { file_path: "README.md" });
      expect(ctl.asked).toBeUndefined();
      expect(ctl.text).toContain("PRIVATE notes");
      for (const p of ["key", "ssh/id_rsa", path.join(outside, ".ssh", "id_rsa")]) {
        const r = await run("Read", { file_path: p });
        expect(r.asked, p).toBeDefined();
        expect(r.text, p).not.toContain("s3cr3t");
      }
      // approved, it reads (the test can see the content, so a silent read would have been caught)
      const ok = await run("Read", { file_path: "key" }, "allow");
      expect(ok.text).toContain("s3cr3t");
    }));

  it("Grep over the project skips the link to an outside file and says so; Grep into the linked dir asks", () =>
    withHost({}, async (run) => {
      const r = await run("Grep", { pattern: "PRIVATE", output_mode: "content" });
      expect(r.asked).toBeUndefined();
      expect(r.text).toContain("README.md");
      expect(r.text).not.toContain("s3cr3t");
      expect(r.text).toMatch(/1 symbolic link to files outside the working directory not searched: .*key/);
      const dir = await run("Grep", { pattern: "PRIVATE", path: "ssh" });
      expect(dir.asked).toBeDefined();
      expect(dir.text).not.toContain("s3cr3t");
      const file = await run("Grep", { pattern: "PRIVATE", path: "key", output_mode: "content" });
      expect(file.asked).toBeDefined();
      expect(file.text).not.toContain("s3cr3t");
    }));

  it("Glob over the project does not list the outside link; Glob in the linked dir asks", () =>
    withHost({}, async (run) => {
      const r = await run("Glob", { pattern: "**/*" });
      expect(r.asked).toBeUndefined();
      expect(r.text).toContain(path.join(proj, "README.md"));
      expect(r.text).not.toContain(path.join(proj, "key\n"));
      expect(r.text).toMatch(/symbolic link.*outside the working directory/);
      const dir = await run("Glob", { pattern: "*", path: "ssh" });
      expect(dir.asked).toBeDefined();
      expect(dir.text).not.toContain("id_rsa");
    }));

  it("Bash cat of the link (or through the linked dir) asks; cat of a project file runs", () =>
    withHost({}, async (run) => {
      const ctl = await run("Bash", { command: "cat README.md" });
      expect(ctl.asked).toBeUndefined();
      expect(ctl.text).toContain("PRIVATE notes");
      const r = await run("Bash", { command: "grep -r PRIVATE ." }); // -r does not follow links
      expect(r.asked).toBeUndefined();
      expect(r.text).not.toContain("s3cr3t");
      for (const c of ["cat key", "cat ssh/id_rsa", "head -1 ./key", "cat src/../key", "grep -R s3cr3t ."]) {
        const r = await run("Bash", { command: c });
        expect(r.asked, c).toBeDefined();
        // The refusal names the command (and so the pattern "s3cr3t"), never the key's content.
        expect(r.text, c).not.toContain("BEGIN OPENSSH");
      }
    }));

  it("approved, the content read through the link is marked untrusted (shaping's trust header follows the link)", () =>
    withHost({}, async (run) => {
      const r = await run("Read", { file_path: "key" }, "allow");
      expect(r.text).toContain(`[${path.join(proj, "key")} | untrusted]`);
      const b = await run("Bash", { command: "cat key" }, "allow");
      expect(b.text).toContain(`[${path.join(proj, "key")} | untrusted]`);
      expect(b.text).toContain("s3cr3t");
    }));

  it("LSP on a link that leads out of the project asks (its own check follows the link)", async () => {
    fs.writeFileSync(path.join(outside, "mod.ts"), "export const x = 1;\n");
    fs.symlinkSync(path.join(outside, "mod.ts"), path.join(proj, "mod.ts"));
    fs.writeFileSync(path.join(proj, "own.ts"), "export const y = 2;\n");
    const host = await createHost({ cwd: proj, pluginDirs: [path.join(process.cwd(), "plugins", "lsp", "examples", "typescript")] });
    try {
      const tool = host.pool.byName.get("LSP") ?? [...host.pool.deferred].find((t) => t.name === "LSP");
      expect(tool).toBeDefined();
      const check = (file: string) => tool!.checkPermissions?.({ operation: "hover", filePath: path.join(proj, file), line: 1, character: 1 } as never, { cwd: proj, mode: "default" });
      expect(check("own.ts")?.behavior).toBe("allow");
      expect(check("mod.ts")?.behavior).toBe("passthrough");
    } finally {
      await host.close();
    }
  });

  it("`..` after a link goes up from where the link led (as the kernel resolves it): cat ssh/../.ssh/id_rsa asks", () =>
    withHost({}, async (run) => {
      const r = await run("Bash", { command: "cat ssh/../.ssh/id_rsa" });
      expect(r.asked).toBeDefined();
      expect(r.text).not.toContain("s3cr3t");
      // approved, it really is the outside secret (lexically it would be proj/.ssh/id_rsa, which does not exist)
      expect((await run("Bash", { command: "cat ssh/../.ssh/id_rsa" }, "allow")).text).toContain("s3cr3t");
    }));

  it("a link-following recursive search (grep -R, rg -L) asks when a link in the tree leads out; grep -r does not follow", () => {
    expect(decide(proj, {}, "Bash", "grep -R PRIVATE .").behavior).toBe("ask");
    expect(decide(proj, {}, "Bash", "grep -R PRIVATE .").reason).toMatch(/follows symbolic links, and .* leads outside the working directories/);
    expect(decide(proj, {}, "Bash", "grep --dereference-recursive PRIVATE src").behavior).toBe("allow");
    expect(decide(proj, {}, "Bash", "grep -r PRIVATE .").behavior).toBe("allow");
    expect(decide(proj, {}, "Bash", "find -L . -name id_rsa").behavior).toBe("ask");
  });

  it("a deny rule on the target covers the link (Read, Grep, cat)", () =>
    withHost({ permissions: { deny: [`Read(/${outside}/**)`] } }, async (run) => {
      for (const [tool, input] of [
        ["Read", { file_path: "key" }],
        ["Bash", { command: "cat key" }],
        ["Grep", { pattern: "s3cr3t", path: "key" }],
      ] as const) {
        const r = await run(tool, input, "allow");
        expect(r.asked, tool).toBeUndefined();
        expect(r.isError, tool).toBe(true);
        expect(r.text, tool).toMatch(/denied|deny/i);
        expect(r.text, tool).not.toContain("s3cr3t");
      }
    }));
});

describe("writes through symlinks check the link and its target", () => {
  const cfg = { permissions: { defaultMode: "acceptEdits", deny: ["Edit(./secrets/**)"] } };

  it("decide: a dangling link into an Edit-denied dir is denied for Write, Edit and a Bash redirect", () => {
    const rules = { deny: ["Edit(./secrets/**)"] };
    expect(decide(proj, rules, "Write", { file_path: path.join(proj, "dangling"), content: "x" }, "acceptEdits").behavior).toBe("deny");
    expect(decide(proj, rules, "Bash", "echo x > dangling", "acceptEdits").behavior).toBe("deny");
    expect(decide(proj, rules, "Bash", "echo x >> ./dangling", "bypassPermissions").behavior).toBe("deny");
    expect(decide(proj, rules, "Bash", "echo x > plain.txt", "acceptEdits").behavior).toBe("allow");
  });

  it("decide: a (dangling) link pointing out of the project is not an edit inside it", () => {
    expect(decide(proj, {}, "Write", { file_path: path.join(proj, "out-dangling"), content: "x" }, "acceptEdits").behavior).toBe("ask");
    expect(decide(proj, {}, "Bash", "echo x > out-dangling", "acceptEdits").behavior).toBe("ask");
    expect(decide(proj, { allow: ["Edit(./out-dangling)"] }, "Write", { file_path: path.join(proj, "out-dangling"), content: "x" }).behavior).toBe("ask");
  });

  it("for real: echo x > dangling in acceptEdits is denied and creates nothing; the control write happens", () =>
    withHost(cfg, async (run) => {
      const r = await run("Bash", { command: "echo x > dangling" }, "allow");
      expect(r.isError).toBe(true);
      expect(r.asked).toBeUndefined();
      expect(fs.existsSync(path.join(proj, "secrets", "new.txt"))).toBe(false);
      const w = await run("Write", { file_path: "dangling", content: "x" }, "allow");
      expect(w.isError).toBe(true);
      expect(fs.existsSync(path.join(proj, "secrets", "new.txt"))).toBe(false);
      const o = await run("Bash", { command: "echo x > out-dangling" });
      expect(o.asked).toBeDefined();
      expect(fs.existsSync(path.join(outside, "new.txt"))).toBe(false);
      const ctl = await run("Bash", { command: "echo x > plain.txt" });
      expect(ctl.asked).toBeUndefined();
      expect(fs.readFileSync(path.join(proj, "plain.txt"), "utf8")).toBe("x\n");
    }));
});
