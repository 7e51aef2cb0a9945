#!/usr/bin/env node
/**
 * The recording hook of the conformance cases: `node hook-recorder.mjs LOG LABEL [RESPONSE_B64]`. Appends
 * {label, stdin, env} to LOG (one JSON line), then prints RESPONSE's stdout/stderr and exits with its code
 * (RESPONSE = base64 of {"stdout": string | object, "stderr"?: string, "exit"?: number}; default: exit 0, no output).
 * Claude Code (scripts/conformance/record.mjs) and toolhost (test/conformance/replay.test.ts) run the same file.
 */
import fs from "node:fs";

const [log, label, b64] = process.argv.slice(2);
let stdin = "";
try { stdin = fs.readFileSync(0, "utf8"); } catch {}
let input;
try { input = JSON.parse(stdin); } catch { input = stdin; }
fs.appendFileSync(log, JSON.stringify({ label, stdin: input, env: process.env, cwd: process.cwd() }) + "\n");
const r = b64 ? JSON.parse(Buffer.from(b64, "base64").toString("utf8")) : {};
if (r.stdout !== undefined) process.stdout.write(typeof r.stdout === "string" ? r.stdout : JSON.stringify(r.stdout));
if (r.stderr) process.stderr.write(r.stderr);
process.exitCode = r.exit ?? 0;
