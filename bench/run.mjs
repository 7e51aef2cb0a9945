#!/usr/bin/env node
// Run a benchmark from TypeScript sources: node bench/run.mjs <name> [args…]
// Loads bench/<name>.ts or bench/<name>/index.ts through jiti and calls its exported run(argv) (or default).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createJiti } from "jiti";

const here = path.dirname(fileURLToPath(import.meta.url));
const [name, ...argv] = process.argv.slice(2);
if (!name) {
  const names = fs.readdirSync(here).filter((f) => (f.endsWith(".ts") || fs.existsSync(path.join(here, f, "index.ts"))) && f !== "run.mjs").map((f) => f.replace(/\.ts$/, ""));
  console.error(`usage: node bench/run.mjs <name> [args…]\nbenchmarks: ${names.join(", ")}`);
  process.exit(2);
}
const file = [path.join(here, `${name}.ts`), path.join(here, name, "index.ts")].find((f) => fs.existsSync(f));
if (!file) {
  console.error(`no benchmark "${name}" (looked for bench/${name}.ts and bench/${name}/index.ts)`);
  process.exit(2);
}
const jiti = createJiti(import.meta.url, { interopDefault: true });
const mod = await jiti.import(file);
const fn = mod.run ?? mod.default;
if (typeof fn !== "function") {
  console.error(`${file} exports neither run() nor a default function`);
  process.exit(2);
}
await fn(argv);
