#!/usr/bin/env node
// The toolhost CLI runs from TypeScript sources through jiti (no build step).
import { createJiti } from "jiti";
const jiti = createJiti(import.meta.url, { interopDefault: true });
const { main } = await jiti.import("../core/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
