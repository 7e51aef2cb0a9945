#!/usr/bin/env node
// `npm run conformance:table`: rewrites the README's Claude Code compatibility tables from test/conformance/differences.json.
import fs from "node:fs";
import { README, compatibilityTable, readmeBlock } from "../../test/conformance/table.mjs";

const text = fs.readFileSync(README, "utf8");
const old = readmeBlock(text);
if (!old) throw new Error(`${README}: no "## Claude Code compatibility" table markers (conformance-table:start … end)`);
fs.writeFileSync(README, text.replace(old, compatibilityTable()));
process.stderr.write("README compatibility tables regenerated\n");
