/**
 * Upstream MCP servers' resources and prompts, passed through read-only and namespaced. The
 * connections come from the mcp plugin's "mcp.connections" service (plugins/mcp/index.ts
 * `McpConnections`); this is the part of it `toolhost serve` uses, declared here because a plugin does
 * not import another plugin's modules.
 */
import { McpError, ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage } from "../../core/index.ts";

/** The service name the mcp plugin provides its connections under. */
export const MCP_CONNECTIONS = "mcp.connections";

type Lenient = { [k: string]: unknown };

/** One upstream connection, as serve sees it. */
export interface UpstreamServer {
  readonly status: string;
  readonly spec: { readonly segment: string; readonly label: string };
  listResources(): Promise<Lenient[]>;
  readResource(uri: string): Promise<Lenient>;
  listPrompts(): Promise<Lenient[]>;
  getPrompt(name: string, args: Record<string, string> | undefined): Promise<Lenient>;
}

/** The "mcp.connections" service, as serve uses it. */
export interface UpstreamServers {
  connections(): UpstreamServer[];
  bySegment(segment: string): UpstreamServer | undefined;
  names(entries: Array<{ segment: string; tool: string }>): Array<{ name: string }>;
}

type Log = (line: string) => void;

/** Upstream resource URIs are namespaced as mcp://<server segment>/<percent-encoded original URI>. */
export function resourceUri(segment: string, uri: string): string {
  return `mcp://${segment}/${encodeURIComponent(uri)}`;
}

export function parseResourceUri(uri: string): { segment: string; uri: string } | undefined {
  const m = /^mcp:\/\/([A-Za-z0-9_-]+)\/(.*)$/.exec(uri);
  if (!m) return undefined;
  try {
    return { segment: m[1]!, uri: decodeURIComponent(m[2]!) };
  } catch {
    return undefined;
  }
}

function connected(servers: UpstreamServers | undefined): UpstreamServer[] {
  return (servers?.connections() ?? []).filter((c) => c.status === "connected");
}

/** resources/list: every connected server's resources, namespaced and sorted by URI. */
export async function listResources(servers: UpstreamServers | undefined, log: Log): Promise<{ resources: Record<string, unknown>[] }> {
  const resources: Record<string, unknown>[] = [];
  await Promise.all(
    connected(servers).map(async (c) => {
      try {
        for (const r of await c.listResources()) {
          if (typeof r.uri !== "string") continue;
          resources.push({ ...r, uri: resourceUri(c.spec.segment, r.uri), name: `${c.spec.segment}:${String(r.name ?? r.uri)}`, title: r.title ?? r.name });
        }
      } catch (e) {
        log(`[serve] resources/list of ${c.spec.label} failed: ${errorMessage(e)}`);
      }
    }),
  );
  resources.sort((a, b) => (String(a.uri) < String(b.uri) ? -1 : 1));
  return { resources };
}

/** resources/read of a namespaced URI, with the contents' URIs namespaced again. */
export async function readResource(servers: UpstreamServers | undefined, uri: string): Promise<Record<string, unknown>> {
  const parsed = parseResourceUri(uri);
  const conn = parsed && servers?.bySegment(parsed.segment);
  if (!parsed || !conn) throw new McpError(ErrorCode.InvalidParams, `Unknown resource ${uri}: toolhost serves upstream resources as mcp://<server>/<percent-encoded original URI>`);
  const res = await conn.readResource(parsed.uri);
  const contents = Array.isArray(res.contents) ? (res.contents as Record<string, unknown>[]).map((c) => ({ ...c, uri: typeof c.uri === "string" ? resourceUri(parsed.segment, c.uri) : uri })) : [];
  return { ...res, contents };
}

export type PromptEntry = { name: string; raw: Record<string, unknown>; conn: UpstreamServer };

/** Every connected server's prompts under tool-style unique names, sorted by name. */
export async function promptTable(servers: UpstreamServers | undefined, log: Log): Promise<PromptEntry[]> {
  const raw: Array<{ raw: Record<string, unknown>; conn: UpstreamServer }> = [];
  await Promise.all(
    connected(servers).map(async (c) => {
      try {
        for (const p of await c.listPrompts()) if (typeof p.name === "string") raw.push({ raw: p, conn: c });
      } catch (e) {
        log(`[serve] prompts/list of ${c.spec.label} failed: ${errorMessage(e)}`);
      }
    }),
  );
  if (!raw.length) return [];
  const names = servers!.names(raw.map((r) => ({ segment: r.conn.spec.segment, tool: String(r.raw.name) })));
  const prompts = raw.map((r, i) => ({ ...r, name: names[i]!.name }));
  prompts.sort((a, b) => (a.name < b.name ? -1 : 1));
  return prompts;
}

/** prompts/get by the namespaced name. */
export async function getPrompt(servers: UpstreamServers | undefined, name: string, args: Record<string, string> | undefined, log: Log): Promise<{ messages: [] }> {
  const p = (await promptTable(servers, log)).find((x) => x.name === name);
  if (!p) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt ${name}`);
  return (await p.conn.getPrompt(String(p.raw.name), args)) as { messages: [] };
}
