#!/usr/bin/env node
// Run a TypeScript benchmark from bench/ through jiti: `node bench/run.mjs <name> [args…]`
// loads bench/<name>.ts or bench/<name>/index.ts and calls its default export (if it is a function).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { importTs } from "../bin/jiti-load.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const [name, ...args] = process.argv.slice(2);
if (!name) {
  const list = fs.readdirSync(here).filter((f) => f !== "run.mjs").map((f) => f.replace(/\.ts$/, ""));
  console.error(`usage: node bench/run.mjs <name> [args…]\navailable: ${list.join(", ")}`);
  process.exit(3);
}
const file = [path.join(here, `${name}.ts`), path.join(here, name, "index.ts")].find((f) => fs.existsSync(f));
if (!file) {
  console.error(`no benchmark named ${name}`);
  process.exit(3);
}
const mod = await importTs(import.meta.url, file, { interopDefault: false });
const fn = typeof mod === "function" ? mod : mod?.default;
if (typeof fn === "function") await fn(args);
