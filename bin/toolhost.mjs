#!/usr/bin/env node
// The toolhost CLI: the start-up bundle (dist/, bin/dist.mjs) while it matches the sources, else the
// TypeScript sources through jiti.
import { importEntry } from "./dist.mjs";
import { importTs } from "./jiti-load.mjs";
// interopDefault off: its Proxy would sit on every cross-module binding read of the per-call path.
const { main } = await importEntry("core/cli/main.ts", () => importTs(import.meta.url, "../core/cli/main.ts", { interopDefault: false }));
process.exitCode = await main(process.argv.slice(2));
