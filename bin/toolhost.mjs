#!/usr/bin/env node
// The toolhost CLI runs from TypeScript sources through jiti (no build step).
import { importTs } from "./jiti-load.mjs";
// interopDefault off: its Proxy would sit on every cross-module binding read of the per-call path.
const { main } = await importTs(import.meta.url, "../core/cli/main.ts", { interopDefault: false });
process.exitCode = await main(process.argv.slice(2));
