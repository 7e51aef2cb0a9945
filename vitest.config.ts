import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/**
 * Tests run with a scratch TOOLHOST_HOME whose trust store trusts the temp directory and this checkout
 * (with every `.mcp.json` server approved), so fixtures that rely on project allow rules, hooks and
 * `.mcp.json` keep working; test/trust/ uses stores of its own. CLAUDE_CONFIG_DIR points at the same
 * scratch directory, so the machine's ~/.claude.json and ~/.claude/settings.json never decide a test, and managed
 * settings are read from a scratch folder instead of /etc/claude-code.
 */
function scratchHome(): string {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "toolhost-test-home-"));
  const root = path.dirname(fileURLToPath(import.meta.url));
  const dirs = [...new Set([os.tmpdir(), fs.realpathSync(os.tmpdir()), root, fs.realpathSync(root)])];
  const workspaces = Object.fromEntries(dirs.map((d) => [d, { trusted: true, at: new Date().toISOString(), mcpServers: { all: true } }]));
  fs.writeFileSync(path.join(home, "trust.json"), JSON.stringify({ version: 1, workspaces }, null, 2));
  return home;
}

const home = process.env.TOOLHOST_TEST_HOME || (process.env.TOOLHOST_TEST_HOME = scratchHome());

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/bundle.setup.ts"],
    pool: "forks",
    testTimeout: 60_000,
    hookTimeout: 60_000,
    fileParallelism: true,
    maxWorkers: 2,
    env: { TOOLHOST_HOME: home, CLAUDE_CONFIG_DIR: home, TOOLHOST_MANAGED_SETTINGS_DIR: path.join(home, "managed") },
  },
});
