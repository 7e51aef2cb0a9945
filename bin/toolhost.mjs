#!/usr/bin/env node
// The toolhost CLI runs from TypeScript sources through jiti (no build step).
import { createJiti } from "jiti";
// interopDefault off: its Proxy would sit on every cross-module binding read of the per-call path.
const jiti = createJiti(import.meta.url, { interopDefault: false });
const { main } = await jiti.import("../core/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
