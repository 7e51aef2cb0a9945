/**
 * Server lifecycle and diagnostics edge cases against a small real language server process
 * (fixtures/fake-lsp.mjs, vscode-jsonrpc over stdio): settings and initializationOptions,
 * capabilities, crash + restart up to maxRestarts, slow diagnostics delivered with a later
 * result, pull diagnostics, `diagnostics: false`, a server that ignores shutdown, a rebuild
 * that drops a server.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, definePlugin, resultText, type Host } from "../../core/index.ts";
import { alive, children, editFile, editPlugin, fakeLspPlugin, FAKE_LSP } from "./helpers.ts";
import { tmpdir, until, writeTree } from "../helpers.ts";

const server = (ext: string, extra: Record<string, unknown> = {}) => ({ command: process.execPath, args: [FAKE_LSP], extensionToLanguage: { [ext]: "fake" }, ...extra });

describe("lsp plugin: lifecycle and diagnostics with a fake server", () => {
  let host: Host;
  let proj: string;
  let pluginDir: string;
  const exec = async (name: string, input: Record<string, unknown>) => {
    const o = await host.execute(name, input, { yes: true });
    return { ...o, text: resultText(o.result) };
  };
  const hover = (filePath: string, line = 1) => exec("LSP", { operation: "hover", filePath, line, character: 1 });
  /** Tool calls until one carries `text` (late diagnostics ride on the next result of the session). */
  const nextWith = async (text: string) => {
    let last = "";
    await until(async () => (last = (await hover("a.pull")).text).includes(text), 10_000, 100);
    return last;
  };
  const fakePids = () => children(process.pid).filter((c) => c.cmd.includes("fake-lsp.mjs"));

  beforeAll(async () => {
    const root = tmpdir("toolhost-lsp-fake-");
    proj = path.join(root, "proj");
    pluginDir = path.join(root, "fake-plugin");
    writeTree(proj, {
      "a.crash": "fine\nCRASH here\n",
      "a.slow": "ok\n",
      "a.noise": "ok\nNOISE\n",
      "a.boot": "ok\n",
      "a.pull": "ok\n",
      "a.quiet": "ok\n",
      "a.stub": "ok\n",
    });
    writeTree(pluginDir, {
      ".claude-plugin/plugin.json": { name: "fake-lsp" },
      ".lsp.json": {
        crashy: server(".crash", { maxRestarts: 1, initializationOptions: { a: 1 }, settings: { fake: { b: 2 } } }),
        slow: server(".slow", { env: { FAKE_LSP_DELAY: "900" } }),
        pull: server(".pull", { env: { FAKE_LSP_PULL: "1" } }),
        quiet: server(".quiet", { diagnostics: false }),
        noisy: server(".noise"),
        booting: server(".boot", { env: { FAKE_LSP_INIT_DELAY: "1500" } }),
        stubborn: server(".stub", { env: { FAKE_LSP_IGNORE_SHUTDOWN: "1" }, shutdownTimeout: 300 }),
      },
    });
    host = await createHost({ cwd: proj, pluginDirs: [pluginDir], plugins: [editPlugin], lsp: { diagnosticsWaitMs: 250, diagnosticsSettleMs: 100, diagnosticsLateMs: "soon", waitMs: 1 } });
  });

  afterAll(async () => {
    await host?.close();
  });

  it("warns about wrong lsp options and keeps the defaults for them", () => {
    const lsp = host.problems().filter((p) => p.plugin === "lsp");
    expect(lsp.map((p) => `${p.path}: ${p.message}`)).toEqual([
      "/lsp/diagnosticsLateMs: lsp.diagnosticsLateMs must be a number of milliseconds ≥ 0; the default is used",
      '/lsp/waitMs: unknown lsp option "waitMs" is ignored (known: diagnosticsWaitMs, diagnosticsSettleMs, diagnosticsLateMs, requestTimeoutMs)',
    ]);
  });

  it("sends initializationOptions and settings, and names a missing capability", async () => {
    const h = await hover("a.crash");
    expect(h.status).toBe("ok");
    expect(h.text).toContain('init={"a":1} config=[{"b":2}]');
    const def = await exec("LSP", { operation: "goToDefinition", filePath: "a.crash", line: 1, character: 1 });
    expect(def).toMatchObject({ status: "tool-error", text: expect.stringContaining("does not support goToDefinition (its initialize result has no definitionProvider)") });
  });

  it("restarts a crashed server on the next request, up to maxRestarts", async () => {
    const pid1 = /pid=(\d+)/.exec((await hover("a.crash")).text)![1];
    const crash = await hover("a.crash", 2);
    expect(crash.status).toBe("tool-error");
    expect(crash.text).toMatch(/plugin:fake-lsp:crashy: textDocument\/hover failed: crashed \(exit code 3\).*crashing on purpose/);
    const again = await hover("a.crash");
    expect(again.status).toBe("ok");
    const pid2 = /pid=(\d+)/.exec(again.text)![1];
    expect(pid2).not.toBe(pid1);
    expect(alive(Number(pid1))).toBe(false);
    await hover("a.crash", 2);
    const gaveUp = await hover("a.crash");
    expect(gaveUp.text).toContain("crashed 2 times (last: exit code 3); giving up after maxRestarts 1");
    expect((await hover("a.quiet")).status).toBe("ok"); // other servers are unaffected
  });

  it("treats non-protocol output on stdout as a crash", async () => {
    const pid = Number(/pid=(\d+)/.exec((await hover("a.noise")).text)![1]);
    const noisy = await hover("a.noise", 2);
    expect(noisy.status).toBe("tool-error");
    expect(noisy.text).toMatch(/crashed \(wrote non-protocol output to stdout .*servers must log to stderr\)/);
    await until(() => !alive(pid), 5000);
    expect((await hover("a.noise")).status).toBe("ok"); // restarted
  });

  it("reports diagnostics a slow server publishes after the wait with a later result", async () => {
    await hover("a.slow"); // started and opened: its first publish (version 1, 900 ms later) is stale for the edit
    const e = await editFile(host, "a.slow", "ok", "ERROR: late one");
    expect(e.status).toBe("ok");
    expect(e.text).not.toContain("LSP diagnostics");
    const next = await nextWith("LSP diagnostics (reported late, after the edit of a.slow): Found 1 new diagnostic issue in 1 file");
    expect(next).toContain("a.slow:1:1 error [E1] late one (fake)");
    expect((await hover("a.pull")).text).not.toContain("LSP diagnostics"); // delivered once
  });

  it("does not hold an edit while the server starts; its diagnostics follow with a later result", async () => {
    const e = await editFile(host, "a.boot", "ok", "ERROR: at boot");
    expect(e.status).toBe("ok");
    expect(e.text).toContain("LSP diagnostics: plugin:fake-lsp:booting is still starting; new issues in a.boot, if any, will be reported with a later tool result.");
    expect(await nextWith("after the edit of a.boot")).toContain("LSP diagnostics (reported late, after the edit of a.boot): Found 1 new diagnostic issue in 1 file (plugin:fake-lsp:booting):\n  a.boot:1:1 error [E1] at boot (fake)");
  });

  it("uses pull diagnostics when the server offers them, and honours diagnostics: false", async () => {
    const e = await editFile(host, "a.pull", "ok", "ok\nERROR: pulled");
    expect(e.text).toContain("LSP diagnostics: Found 1 new diagnostic issue in 1 file (plugin:fake-lsp:pull):\n  a.pull:2:1 error [E1] pulled (fake)");
    const q = await editFile(host, "a.quiet", "ok", "ERROR: ignored");
    expect(q.status).toBe("ok");
    expect(q.text).not.toContain("LSP diagnostics");
  });

  it("stops a server a rebuild drops; kills one that ignores shutdown when the host closes", async () => {
    await hover("a.stub");
    await hover("a.quiet");
    const before = fakePids();
    const quietPid = Number(/pid=(\d+)/.exec((await hover("a.quiet")).text)![1]);
    const cfg = JSON.parse(fs.readFileSync(path.join(pluginDir, ".lsp.json"), "utf8"));
    delete cfg.quiet;
    fs.writeFileSync(path.join(pluginDir, ".lsp.json"), JSON.stringify(cfg));
    expect((await host.rebuild("quiet server removed")).ok).toBe(true);
    await until(() => !alive(quietPid), 5000);
    expect((await hover("a.quiet")).text).toContain("No LSP server available for file type: .quiet");
    expect(fakePids().length).toBe(before.length - 1);

    const t0 = Date.now();
    await host.close();
    expect(Date.now() - t0).toBeLessThan(5000);
    for (const p of before) expect(alive(p.pid), `${p.cmd} still alive`).toBe(false);
  });
});

describe("the LSP tool on the one execution path", () => {
  it("runs every stage, with filePath normalised before hooks see it", async () => {
    const root = tmpdir("toolhost-lsp-path-");
    writeTree(root, { "proj/x.fake": "hello\n" });
    const seen: unknown[] = [];
    const spy = definePlugin({
      name: "spy",
      apply(ctx) {
        ctx.hooks.build.tap("spy", (b) => {
          b.hooks.preToolUse.tapPromise("spy", async (pre) => void seen.push(pre.input));
          b.hooks.postToolUse.tapPromise("spy", async (post) => void seen.push(post.result.structuredContent?.operation));
        });
      },
    });
    const host = await createHost({ cwd: path.join(root, "proj"), pluginDirs: [fakeLspPlugin(path.join(root, "plugin"))], plugins: [spy] });
    try {
      const o = await host.execute("LSP", { operation: "hover", filePath: "x.fake", line: "1", character: 1 }, { yes: true });
      expect(o.status).toBe("ok");
      expect(o.trace.find((t) => t.stage === "lookup")?.detail).toMatchObject({ tool: "LSP", origin: "lsp", plugin: "lsp" });
      const stages = o.trace.map((t) => t.stage);
      for (const s of ["lookup", "repairInput", "validate", "validateInput", "build.preToolUse", "call", "build.postToolUse"]) expect(stages).toContain(s);
      expect(seen).toEqual([{ operation: "hover", filePath: path.join(root, "proj", "x.fake"), line: 1, character: 1 }, "hover"]);
    } finally {
      await host.close();
    }
  });

  it("closing the host while a server starts kills it at once", async () => {
    const root = tmpdir("toolhost-lsp-slowstart-");
    writeTree(root, { "proj/x.fake": "hello\n" });
    const host = await createHost({ cwd: path.join(root, "proj"), pluginDirs: [fakeLspPlugin(path.join(root, "plugin"), ".fake", { env: { FAKE_LSP_INIT_DELAY: "20000" } })] });
    const pending = host.execute("LSP", { operation: "hover", filePath: "x.fake", line: 1, character: 1 }, { yes: true });
    await until(() => children(process.pid).some((c) => c.cmd.includes("fake-lsp.mjs")), 5000);
    const pid = children(process.pid).find((c) => c.cmd.includes("fake-lsp.mjs"))!.pid;
    const t0 = Date.now();
    await host.close();
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(alive(pid)).toBe(false);
    const o = await pending;
    expect(o.status).toBe("tool-error");
    expect(resultText(o.result)).toMatch(/plugin:fake-lsp:fake (failed to initialize|exited during startup)/);
  });

  it("keeps at most 50 documents open and re-sends a file changed on disk", async () => {
    const root = tmpdir("toolhost-lsp-docs-");
    const files = Object.fromEntries(Array.from({ length: 52 }, (_, i) => [`proj/f${i}.fake`, `file ${i}\n`]));
    writeTree(root, files);
    const host = await createHost({ cwd: path.join(root, "proj"), pluginDirs: [fakeLspPlugin(path.join(root, "plugin"))] });
    try {
      const hover = async (f: string) => resultText((await host.execute("LSP", { operation: "hover", filePath: f, line: 1, character: 1 }, { yes: true })).result);
      expect(await hover("f0.fake")).toContain('open=1 line="file 0"');
      fs.writeFileSync(path.join(root, "proj", "f0.fake"), "changed on disk\n");
      expect(await hover("f0.fake")).toContain('open=1 line="changed on disk"');
      for (let i = 1; i < 52; i++) await hover(`f${i}.fake`);
      expect(await hover("f51.fake")).toContain("open=50 ");
    } finally {
      await host.close();
    }
  });
});
