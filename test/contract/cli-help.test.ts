/**
 * `toolhost --help` and every command's `--help` are contracts others read and script against: compared
 * with the committed text (test/contract/fixtures/help/*.txt). A change must be deliberate: re-record with
 * `TOOLHOST_RECORD_HELP=1 npx vitest run test/contract/cli-help.test.ts` and review the diff.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./house.ts";

const DIR = path.join(ROOT, "test/contract/fixtures/help");
const COMMANDS = ["tools", "explain", "call", "check", "agents", "doctor", "hooks", "init", "plugin", "rules", "search", "serve", "sessions", "trust", "watch"];
const help = (args: string[]) => execFileSync(process.execPath, [path.join(ROOT, "bin/toolhost.mjs"), ...args], { cwd: ROOT, encoding: "utf8" });

describe("CLI help texts", () => {
  for (const name of ["toolhost", ...COMMANDS]) {
    it(`${name === "toolhost" ? "toolhost --help" : `toolhost ${name} --help`} is unchanged`, () => {
      const text = help(name === "toolhost" ? ["--help"] : [name, "--help"]);
      const file = path.join(DIR, `${name}.txt`);
      if (process.env.TOOLHOST_RECORD_HELP) fs.mkdirSync(DIR, { recursive: true }), fs.writeFileSync(file, text);
      expect(text).toBe(fs.readFileSync(file, "utf8"));
    });
  }
});
