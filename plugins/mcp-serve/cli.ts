import { errorMessage, UsageError, type CommandContext } from "../../core/index.ts";
import { McpServeHub } from "./hub.ts";
import { serveHttp } from "./http.ts";
import { serveStdio } from "./stdio.ts";

/**
 * `toolhost serve [--http PORT [--idle-timeout SECONDS] [--stateless] [--allow-host HOST:PORT]] [--no-watch]`: the model-visible pool as an MCP server
 * (plugins/mcp-serve/serve.ts). stdio by default; `--http PORT` serves Streamable HTTP on 127.0.0.1 (PORT 0 picks a
 * free port; the URL is logged on stderr); an HTTP session nobody used for `--idle-timeout` seconds (default
 * 1800; 0 = never) is closed. Logs go to stderr only — stdout belongs to the protocol.
 */
export async function run(ctx: CommandContext): Promise<number> {
  const f = ctx.args.flags;
  const httpPort = f.http === undefined ? undefined : Number(f.http);
  if (httpPort !== undefined && (!Number.isInteger(httpPort) || httpPort < 0 || httpPort > 65535)) throw new UsageError(`--http needs a port number (0-65535), got ${JSON.stringify(f.http)}`);
  const idle = f["idle-timeout"] === undefined ? undefined : Number(f["idle-timeout"]);
  if (idle !== undefined && (!Number.isFinite(idle) || idle < 0)) throw new UsageError(`--idle-timeout needs a number of seconds (0 = never), got ${JSON.stringify(f["idle-timeout"])}`);
  if (idle !== undefined && httpPort === undefined) throw new UsageError("--idle-timeout applies to --http sessions only");
  const allowHosts = ((f["allow-host"] as string[] | undefined) ?? []).map(String);
  for (const h of allowHosts) if (!/^[A-Za-z0-9.-]+(:\d+)?$|^\[[0-9a-fA-F:]+\](:\d+)?$/.test(h)) throw new UsageError(`--allow-host needs HOST or HOST:PORT, got ${JSON.stringify(h)}`);
  if ((f.stateless === true || allowHosts.length) && httpPort === undefined) throw new UsageError("--stateless and --allow-host apply to --http only");
  const log = (line: string) => void process.stderr.write(line.endsWith("\n") ? line : line + "\n");
  if (httpPort === undefined) {
    // stdout carries JSON-RPC: anything a plugin prints with console.log must not corrupt it.
    for (const k of ["log", "info", "debug", "warn"] as const) console[k] = (...a: unknown[]) => console.error(...a);
  }
  const host = await ctx.host({ watch: f["no-watch"] !== true });
  const hub = new McpServeHub(host, { log });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    try {
      await host.close();
    } catch (e) {
      log(`toolhost serve: shutdown: ${errorMessage(e)}`);
    }
  };
  const signals = new Promise<void>((resolve) => {
    for (const s of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(s, () => resolve());
  });
  if (httpPort === undefined) {
    await Promise.race([serveStdio(hub), signals]);
    await stop();
    process.stdin.destroy();
  } else {
    const h = await serveHttp(hub, httpPort, "127.0.0.1", { idleMs: idle === undefined ? undefined : idle * 1000, token: process.env.TOOLHOST_SERVE_TOKEN || undefined, stateless: f.stateless === true, allowHosts });
    await signals;
    await h.close();
    await stop();
  }
  return 0;
}
