/**
 * MCP servers started through a wrapper (issue 15 item 11): the real server is the host's grandchild (wrapped-server.sh
 * forks port-server.mjs, as `bun run` or `npm exec` does), it listens on a 127.0.0.1 port, and stdin's end does not
 * end it. host.close() must leave no process of the server's group and free the port; `toolhost tools` / `check` /
 * `hooks` with such a plugin must exit; a host that exits without close still takes the group with it.
 */
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { createHost } from "../../core/index.ts";
import { runCli } from "../helpers.ts";
import { alive, NODE, ROOT, tmpDir, waitFor, writeJson } from "./helpers.ts";

const FIX = path.join(ROOT, "test", "fixtures", "mcp");
const WRAPPER = path.join(FIX, "wrapped-server.sh");
const SERVER = path.join(FIX, "port-server.mjs");

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once("error", () => resolve(false));
    s.listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
  });
}

function serverSpec(dir: string, opts: { wrapped: boolean; ignoreTerm?: boolean }) {
  return {
    command: opts.wrapped ? "sh" : NODE,
    args: [opts.wrapped ? WRAPPER : SERVER],
    env: { PORT_SERVER_FILE: path.join(dir, "port.json"), PORT_SERVER_IGNORE_TERM: opts.ignoreTerm ? "1" : "0" },
  };
}

const started = (dir: string): { pid: number; port: number } => JSON.parse(fs.readFileSync(path.join(dir, "port.json"), "utf8"));

/** A Claude Code plugin whose .mcp.json runs the wrapped server. */
function wrappedPlugin(dir: string, ignoreTerm = false): string {
  const plug = path.join(dir, "wrapped-plugin");
  writeJson(path.join(plug, ".claude-plugin", "plugin.json"), { name: "wrapped" });
  writeJson(path.join(plug, ".mcp.json"), { mcpServers: { ports: serverSpec(dir, { wrapped: true, ignoreTerm }) } });
  return plug;
}

describe("MCP servers in their own process group", () => {
  for (const [what, opts] of [
    ["through a wrapper", { wrapped: true }],
    ["through a wrapper, ignoring SIGTERM", { wrapped: true, ignoreTerm: true }],
    ["directly, ignoring SIGTERM", { wrapped: false, ignoreTerm: true }],
  ] as const) {
    it(`host.close() ends a server started ${what} and frees its port`, async () => {
      const dir = tmpDir();
      writeJson(path.join(dir, "toolhost.config.json"), { mcpServers: { ports: serverSpec(dir, opts) } });
      const host = await createHost({ cwd: dir, trustWorkspace: true });
      let pid = 0;
      try {
        expect([...host.pool.tools, ...host.pool.deferred].map((t) => t.name), "the wrapped server's tool is listed").toContain("mcp__ports__where");
        const s = started(dir);
        pid = s.pid;
        expect(alive(pid)).toBe(true);
        expect(await portFree(s.port)).toBe(false);
        await host.close();
        expect(alive(pid), `server ${pid} still alive after host.close()`).toBe(false);
        // A leaked server holds the port for good; a bounded wait only absorbs the kernel's release under load.
        await waitFor(() => portFree(s.port), 2000, `port ${s.port} to be free after host.close()`);
      } finally {
        await host.close();
        if (alive(pid)) process.kill(pid, "SIGKILL");
      }
    });
  }

  for (const cmd of ["tools", "check", "hooks"]) {
    it(`toolhost ${cmd} with a plugin whose MCP server runs through a wrapper exits and leaves nothing`, async () => {
      const dir = tmpDir();
      const plug = wrappedPlugin(dir, true);
      const args = cmd === "check" ? ["check", plug] : [cmd, "--cwd", dir, "--plugin-dir", plug];
      // Before the fix the command printed and never exited (the grandchild held the pipes): 60 s is the failure.
      const r = await runCli(args, { timeoutMs: 60_000 });
      expect(r.code, r.stderr).toBe(0);
      if (cmd === "tools") expect(r.stdout).toContain("mcp__plugin_wrapped_ports__where");
      const { pid, port } = started(dir);
      try {
        await waitFor(() => !alive(pid), 2000, `server ${pid} to be gone after toolhost ${cmd}`);
        await waitFor(() => portFree(port), 2000, `port ${port} to be free`);
      } finally {
        if (alive(pid)) process.kill(pid, "SIGKILL");
      }
    });
  }

  it("a host process that exits without close() takes the server's group with it", async () => {
    const dir = tmpDir();
    writeJson(path.join(dir, "toolhost.config.json"), { mcpServers: { ports: serverSpec(dir, { wrapped: true, ignoreTerm: true }) } });
    const script = path.join(dir, "exit-early.mts");
    fs.writeFileSync(
      script,
      `const { createHost } = await import(${JSON.stringify(path.join(ROOT, "core", "index.ts"))});\n` +
        `const host = await createHost({ cwd: ${JSON.stringify(dir)}, trustWorkspace: true });\n` +
        `if (![...host.pool.tools, ...host.pool.deferred].some((t) => t.name === "mcp__ports__where")) process.exit(3);\nprocess.exit(0);\n`,
    );
    const jiti = path.join(ROOT, "node_modules", "jiti", "lib", "jiti-cli.mjs");
    const code = await new Promise<number | null>((resolve) => spawn(NODE, [jiti, script], { stdio: "ignore" }).on("close", resolve));
    expect(code).toBe(0);
    const { pid, port } = started(dir);
    try {
      await waitFor(() => !alive(pid), 2000, `server ${pid} to be gone after its host exited`);
      expect(await portFree(port)).toBe(true);
    } finally {
      if (alive(pid)) process.kill(pid, "SIGKILL");
    }
  });
});
