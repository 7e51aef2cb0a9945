#!/usr/bin/env node
// The start-up bundle: core, lib and the bundled plugins' modules compiled by esbuild into dist/ (ESM, split
// into shared chunks so every module exists once), so a CLI call or `toolhost serve` loads plain JavaScript
// instead of transpiling ~240 TypeScript files through jiti. Run by `npm run build` and by `prepare` (so
// `npm ci` builds it). dist/modules.json maps each entry's source to its file and stamps every input (mtime,
// size): bin/dist.mjs uses the bundle only while every stamp holds, and runs the sources through jiti otherwise.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const OUT = path.join(ROOT, "dist");

/** Every module the host imports by path: the package entries and each bundled manifest's main, cliCommands and tools modules. */
function entries() {
  const e = { index: "core/index.ts", cli: "core/cli/main.ts", rules: "lib/rules/index.ts", adapters: "plugins/tool-search/adapters.ts", testing: "testing/index.ts" };
  const list = fs.readFileSync(path.join(ROOT, "plugins/bundled.ts"), "utf8");
  for (const [, f] of list.matchAll(/^\s*"([\w-]+\.json)"/gm)) {
    const m = JSON.parse(fs.readFileSync(path.join(ROOT, "manifests", f), "utf8"));
    for (const mod of [m.main, ...(m.cliCommands ?? []).map((c) => c?.module), ...[m.tools ?? []].flat()]) {
      if (typeof mod === "string") e[entryName(path.normalize(mod))] = path.normalize(mod);
    }
  }
  return e;
}

/** A flat file name: every output sits directly in dist/, so a rewritten import.meta.url is right in any chunk. */
function entryName(rel) {
  return "m." + rel.replace(/\.[cm]?[jt]s$/, "").replace(/[/\\]/g, ".");
}

/** `import.meta.url` of a source file, as the bundle sees it: its own file, resolved from dist/. */
const sourceUrl = {
  name: "source-import-meta-url",
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      let src = await fs.promises.readFile(args.path, "utf8");
      if (src.includes("import.meta.url")) {
        const rel = path.relative(OUT, args.path).split(path.sep).join("/");
        src = src.replaceAll("import.meta.url", `new URL(${JSON.stringify(rel)}, import.meta.url).href`);
      }
      return { contents: src, loader: "ts" };
    });
  },
};

/** [mtime, size, sha1] of a source: bin/dist.mjs compares the first two, and the hash when only the mtime moved. */
function stamp(rel) {
  const file = path.join(ROOT, rel);
  const st = fs.statSync(file);
  return [st.mtimeMs, st.size, createHash("sha1").update(fs.readFileSync(file)).digest("hex")];
}

/** `toolhost` and its subpaths for a plugin loaded through jiti: the bundle's own modules, not a second copy of core. */
const SHIMS = ["index", "rules", "adapters", "testing"];

export async function build() {
  const { build: esbuild } = await import("esbuild");
  const e = entries();
  const tmp = `${OUT}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  const r = await esbuild({
    absWorkingDir: ROOT,
    entryPoints: Object.fromEntries(Object.entries(e).map(([k, v]) => [k, path.join(ROOT, v)])),
    bundle: true, splitting: true, format: "esm", platform: "node", target: "node20", packages: "external",
    outdir: tmp, outExtension: { ".js": ".mjs" }, chunkNames: "chunk-[hash]", metafile: true, plugins: [sourceUrl],
    define: { __TOOLHOST_DIST__: "true" }, logLevel: "warning", legalComments: "none",
  });
  fs.mkdirSync(path.join(tmp, "shim"));
  for (const f of SHIMS) fs.writeFileSync(path.join(tmp, "shim", `${f}.mjs`), `import * as api from "../${f}.mjs";\nexport * from "../${f}.mjs";\nexport default api;\n`);
  const inputs = [...Object.keys(r.metafile.inputs), "package.json", ...fs.readdirSync(path.join(ROOT, "manifests")).map((f) => `manifests/${f}`)];
  const modules = Object.fromEntries(Object.entries(e).map(([k, v]) => [v, `${k}.mjs`]));
  fs.writeFileSync(path.join(tmp, "modules.json"), JSON.stringify({ modules, stamps: Object.fromEntries(inputs.map((f) => [f, stamp(f)])) }));
  fs.rmSync(OUT, { recursive: true, force: true });
  fs.renameSync(tmp, OUT);
  return { entries: Object.keys(e).length, inputs: inputs.length };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const t0 = performance.now();
  const r = await build();
  console.log(`dist/: ${r.entries} entries from ${r.inputs} inputs in ${Math.round(performance.now() - t0)} ms`);
}
