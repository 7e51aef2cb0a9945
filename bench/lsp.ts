/**
 * LSP plugin costs, each against a baseline measured in the same run:
 *  1. pool build with the TypeScript example plugin vs without it (no server may start at build);
 *  2. an LSP hover through the whole pipeline vs the same request sent straight to the server;
 *  3. an Edit that changes diagnostics (post-edit diagnostics on) vs the same Edit with `diagnostics: false`.
 * Run: node bench/run.mjs lsp [iterations]
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createHost, defineTool, definePlugin, PACKAGE_ROOT, type Host } from "../core/index.ts";

const EXAMPLE = path.join(PACKAGE_ROOT, "plugins", "lsp", "examples", "typescript");

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
async function time(n: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    out.push(performance.now() - t0);
  }
  return median(out);
}

const editPlugin = definePlugin({
  name: "bench-edit",
  apply(ctx) {
    ctx.hooks.build.tap("bench-edit", (b) =>
      b.hooks.collect.tap("bench-edit", (c) =>
        c.add({
          ...defineTool<{ file_path: string; old_string: string; new_string: string }>({
            name: "Edit",
            description: "edit",
            inputSchema: { type: "object", properties: { file_path: { type: "string" }, old_string: { type: "string" }, new_string: { type: "string" } }, required: ["file_path", "old_string", "new_string"] },
            call(i) {
              const f = path.resolve(b.cwd, i.file_path);
              fs.writeFileSync(f, fs.readFileSync(f, "utf8").replace(i.old_string, i.new_string));
              return "ok";
            },
          }),
          origin: "plugin",
          plugin: "bench-edit",
        }),
      ),
    );
  },
});

function project(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolhost-lsp-bench-")));
  fs.mkdirSync(path.join(dir, "src"));
  fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, module: "ESNext", moduleResolution: "Bundler", target: "ES2022", noEmit: true }, include: ["src"] }));
  fs.writeFileSync(path.join(dir, "src", "a.ts"), "export function add(a: number, b: number): number {\n  return a + b;\n}\n");
  fs.writeFileSync(path.join(dir, "src", "b.ts"), 'import { add } from "./a";\nexport const x = add(1, 2);\n');
  return dir;
}

/** A copy of the example plugin with `diagnostics: false`. */
function quietExample(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolhost-lsp-quiet-")));
  fs.cpSync(EXAMPLE, dir, { recursive: true });
  const f = path.join(dir, ".lsp.json");
  const cfg = JSON.parse(fs.readFileSync(f, "utf8"));
  cfg.typescript.diagnostics = false;
  fs.writeFileSync(f, JSON.stringify(cfg));
  return dir;
}

export default async function main(args: string[]) {
  const n = Number(args[0] ?? 10);
  process.env.PATH = `${path.join(PACKAGE_ROOT, "node_modules", ".bin")}${path.delimiter}${process.env.PATH}`;
  const proj = project();

  // 1. pool build
  const build = async (dirs: string[]) => {
    const h = await createHost({ cwd: proj, pluginDirs: dirs });
    await h.close();
  };
  await build([EXAMPLE]);
  const buildBase = await time(n, () => build([]));
  const buildLsp = await time(n, () => build([EXAMPLE]));
  console.log(`pool build: without LSP plugin ${buildBase.toFixed(1)} ms, with ${buildLsp.toFixed(1)} ms (ratio ${(buildLsp / buildBase).toFixed(2)})`);

  // 2. hover through the pipeline vs straight to the server
  const host: Host = await createHost({ cwd: proj, pluginDirs: [EXAMPLE], plugins: [editPlugin] });
  const t0 = performance.now();
  await host.execute("LSP", { operation: "hover", filePath: "src/b.ts", line: 2, character: 18 }, { yes: true });
  console.log(`first LSP call (server start + project load): ${(performance.now() - t0).toFixed(0)} ms`);
  const { LspServer } = await import("../plugins/lsp/server.ts");
  const { readServers } = await import("../plugins/lsp/config.ts");
  const direct = new LspServer(readServers(host.plugins, proj).servers[0]!, { clientVersion: "bench" });
  await direct.ensureStarted();
  const bFile = path.join(proj, "src", "b.ts");
  const uri = direct.syncFile(bFile);
  await direct.request("textDocument/hover", { textDocument: { uri }, position: { line: 1, character: 17 } });
  const hoverBase = await time(n * 3, () => direct.request("textDocument/hover", { textDocument: { uri: pathToFileURL(bFile).href }, position: { line: 1, character: 17 } }));
  const hoverTool = await time(n * 3, () => host.execute("LSP", { operation: "hover", filePath: "src/b.ts", line: 2, character: 18 }, { yes: true }));
  const { runOperation } = await import("../plugins/lsp/operations.ts");
  const ac = new AbortController();
  const hoverOp = await time(n * 3, () => runOperation(direct, { operation: "hover", filePath: bFile, line: 2, character: 18 }, proj, ac.signal));
  console.log(`hover: direct request ${hoverBase.toFixed(2)} ms, operation (sync + format) ${hoverOp.toFixed(2)} ms, LSP tool through the pipeline ${hoverTool.toFixed(2)} ms (ratio to direct ${(hoverTool / hoverBase).toFixed(2)})`);
  await direct.stop();

  // 3. an Edit that introduces / fixes a type error, with and without post-edit diagnostics
  // Whichever Edit wins the name (the built-in one needs a Read first), every timed edit must succeed.
  const edits = (h: Host) => async (i: number) => {
    const o = await h.execute("Edit", i % 2 ? { file_path: "src/a.ts", old_string: 'return "x";', new_string: "return a + b;" } : { file_path: "src/a.ts", old_string: "return a + b;", new_string: 'return "x";' }, { yes: true });
    if (o.status !== "ok") throw new Error(`edit failed: ${JSON.stringify(o.result)}`);
  };
  const read = (h: Host) => (h.pool.byName.has("Read") ? h.execute("Read", { file_path: "src/a.ts" }, { yes: true }) : undefined);
  await host.execute("LSP", { operation: "hover", filePath: "src/a.ts", line: 1, character: 17 }, { yes: true });
  await read(host);
  if (host.pool.byName.has("Read")) await host.execute("Read", { file_path: "src/b.ts" }, { yes: true });
  const withDiag = await time(n * 2, edits(host));
  // Clean → clean: typescript-language-server publishes nothing, so the edit waits diagnosticsWaitMs (1500 ms).
  const clean = await time(3, async (i) => {
    const o = await host.execute("Edit", { file_path: "src/b.ts", old_string: `x = add(1, ${i + 2})`, new_string: `x = add(1, ${i + 3})` }, { yes: true });
    if (o.status !== "ok") throw new Error(`edit failed: ${JSON.stringify(o.result)}`);
  });
  await host.close();
  const quiet = await createHost({ cwd: proj, pluginDirs: [quietExample()], plugins: [editPlugin] });
  await read(quiet);
  const noDiag = await time(n * 2, edits(quiet));
  await quiet.close();
  console.log(`Edit leaving a clean file clean (diagnostics on): ${clean.toFixed(0)} ms`);
  console.log(`Edit changing diagnostics: diagnostics off ${noDiag.toFixed(2)} ms, on ${withDiag.toFixed(0)} ms (ratio ${(withDiag / noDiag).toFixed(0)}; the wait for publishDiagnostics dominates)`);
}
