import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { expandVars, resolveServers } from "../../plugins/mcp/config.ts";
import { assignNames, serverSegment } from "../../plugins/mcp/names.ts";
import { repairSchema, truncateDescription } from "../../plugins/mcp/schema.ts";
import { parseHelperOutput } from "../../plugins/mcp/headers-helper.ts";
import type { LoadedPlugin } from "../../core/index.ts";

function settings(id: string, kind: LoadedPlugin["kind"], servers: Record<string, unknown>, file = `/p/${id}.json`): LoadedPlugin {
  return {
    id,
    kind,
    root: "/p",
    source: { kind, path: file },
    manifest: {},
    dataDir: "/d",
    env: { CLAUDE_PLUGIN_ROOT: "/p" },
    rulesRoot: "/p",
    components: { hooks: [], mcpServers: [{ file, jsonPath: "/mcpServers", value: servers }], lspServers: [], tools: [] },
    problems: [],
    failed: false,
    order: 0,
  };
}

describe("env expansion", () => {
  it("expands ${VAR} and ${VAR:-default}; keeps unset ones literally and reports them", () => {
    const missing = new Set<string>();
    const env = { A: "alpha", EMPTY: "" };
    expect(expandVars("${A}/x", env, missing)).toBe("alpha/x");
    expect(expandVars("${B:-https://d}/mcp", env, missing)).toBe("https://d/mcp");
    expect(expandVars("${A:-zzz}", env, missing)).toBe("alpha");
    expect(expandVars("${EMPTY:-dflt}", env, missing)).toBe("dflt");
    expect(expandVars("Bearer ${NOPE}", env, missing)).toBe("Bearer ${NOPE}");
    expect([...missing]).toEqual(["NOPE"]);
  });

  it("applies to command, args, env, url and headers, with a warning naming file and path", () => {
    const { specs, problems } = resolveServers(
      [
        settings("config", "config", {
          s: { command: "${BIN:-node}", args: ["${ARG}"], env: { K: "${A}" } },
          h: { type: "http", url: "${HOST:-http://127.0.0.1:1}/mcp", headers: { Authorization: "Bearer ${TOKEN}" } },
        }),
      ],
      { cwd: "/w", env: { A: "a", ARG: "arg1" } },
    );
    const s = specs.find((x) => x.name === "s")!;
    expect(s.command).toBe("node");
    expect(s.args).toEqual(["arg1"]);
    expect(s.env).toEqual({ K: "a" });
    const h = specs.find((x) => x.name === "h")!;
    expect(h.url).toBe("http://127.0.0.1:1/mcp");
    expect(h.headers.Authorization).toBe("Bearer ${TOKEN}");
    expect(problems).toEqual([expect.objectContaining({ severity: "warning", file: "/p/config.json", path: "/mcpServers/h", message: expect.stringContaining("${TOKEN}") })]);
  });

  it("reports bad entries with file and JSON path and keeps the good ones", () => {
    const { specs, problems } = resolveServers(
      [settings("mcp.json", "mcpjson", { ok: { command: "x" }, nocmd: { args: [] }, ws: { type: "ws", url: "ws://x" }, badargs: { command: "x", args: "no" } })],
      { cwd: "/w", env: {} },
    );
    expect(specs.map((s) => s.name)).toEqual(["ok"]);
    expect(problems.map((p) => p.path).sort()).toEqual(["/mcpServers/badargs/args", "/mcpServers/nocmd", "/mcpServers/ws/type"]);
  });

  it("one connection per name: toolhost config wins over .mcp.json", () => {
    const { specs, problems } = resolveServers([settings("mcp.json", "mcpjson", { m: { command: "b" } }), settings("config", "config", { m: { command: "a" } })], { cwd: "/w", env: {} });
    expect(specs).toHaveLength(1);
    expect(specs[0]!.command).toBe("a");
    expect(problems[0]!.message).toMatch(/takes precedence/);
  });

  it("keys connections by resolved config: same config, same key; any change, new key", () => {
    const a = resolveServers([settings("config", "config", { m: { command: "a", env: { X: "${X}" } } })], { cwd: "/w", env: { X: "1" } }).specs[0]!;
    const b = resolveServers([settings("config", "config", { m: { command: "a", env: { X: "${X}" }, include: ["x"] } })], { cwd: "/w", env: { X: "1" } }).specs[0]!;
    const c = resolveServers([settings("config", "config", { m: { command: "a", env: { X: "${X}" } } })], { cwd: "/w", env: { X: "2" } }).specs[0]!;
    expect(a.key).toBe(b.key); // include/exclude do not restart the server
    expect(a.key).not.toBe(c.key);
  });
});

describe("headersHelper", () => {
  it("is validated, ${VAR}-expanded, keyed, and ignored (with a warning) for stdio servers", () => {
    const { specs, problems } = resolveServers(
      [
        settings("config", "config", {
          h: { type: "http", url: "http://127.0.0.1:1/mcp", headersHelper: "${HELPERS:-./bin}/token.sh", headersHelperTimeout: 2000 },
          bad: { type: "http", url: "http://127.0.0.1:1/mcp", headersHelper: ["./x.sh"] },
          st: { command: "x", headersHelper: "./x.sh" },
        }),
      ],
      { cwd: "/w", env: {} },
    );
    const h = specs.find((x) => x.name === "h")!;
    expect(h).toMatchObject({ headersHelper: "./bin/token.sh", headersHelperTimeoutMs: 2000, baseDir: "/w" });
    expect(specs.find((x) => x.name === "st")!.headersHelper).toBeUndefined();
    expect(specs.find((x) => x.name === "bad")).toBeUndefined();
    expect(problems).toEqual([
      expect.objectContaining({ severity: "error", path: "/mcpServers/bad/headersHelper", file: "/p/config.json", plugin: "config" }),
      expect.objectContaining({ severity: "warning", path: "/mcpServers/st/headersHelper", message: expect.stringMatching(/http\/sse servers only/) }),
    ]);
    const other = resolveServers([settings("config", "config", { h: { type: "http", url: "http://127.0.0.1:1/mcp", headersHelper: "./other.sh" } })], { cwd: "/w", env: {} }).specs[0]!;
    expect(other.key).not.toBe(h.key); // a different helper reconnects
  });

  it("accepts a JSON object of string values only, and never quotes the output in errors", () => {
    expect(parseHelperOutput(' {"Authorization": "Bearer t", "X-A": ""}\n')).toEqual({ headers: { Authorization: "Bearer t", "X-A": "" } });
    const reason = (out: string) => (parseHelperOutput(out) as { reason: string }).reason;
    expect(reason("")).toBe("printed nothing");
    expect(reason("Bearer secret-token")).toMatch(/not valid JSON \(19 characters/);
    expect(reason("Bearer secret-token")).not.toContain("secret");
    expect(reason('["a"]')).toMatch(/not an object \(an array\)/);
    expect(reason('{"X-N": 5, "Bad Name": "v", "X-L": "a\\r\\nb"}')).toBe(
      'printed headers toolhost cannot send: the value of "X-N" is number, not a string; "Bad Name" is not a valid header name; the value of "X-L" contains a line break or NUL',
    );
  });
});

describe("naming", () => {
  it("plugin servers get the plugin prefix; everything is sanitised", () => {
    expect(serverSegment("my.server")).toBe("my_server");
    expect(serverSegment("db", "acme-tools")).toBe("plugin_acme-tools_db");
    const [r] = assignNames([{ segment: "plugin_acme-tools_db", tool: "query" }]);
    expect(r!.name).toBe("mcp__plugin_acme-tools_db__query");
    expect(r!.notes).toEqual([]);
  });

  it("resolves collisions after sanitising deterministically, whatever the input order", () => {
    const reqs = [
      { segment: "s", tool: "a.b" },
      { segment: "s", tool: "a_b" },
      { segment: "s", tool: "a/b" },
    ];
    const x = assignNames(reqs).map((r) => r.name);
    const y = assignNames([...reqs].reverse()).map((r) => r.name).reverse();
    expect(x).toEqual(y);
    expect(new Set(x).size).toBe(3);
    expect(x).toContain("mcp__s__a_b");
  });

  it("property: names are unique, valid and at most 64 characters", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ segment: fc.string({ minLength: 1, maxLength: 80 }).map((s) => serverSegment(s)), tool: fc.string({ minLength: 1, maxLength: 130 }) }), { maxLength: 40 }),
        (reqs) => {
          const uniq = [...new Map(reqs.map((r) => [`${r.segment}\0${r.tool}`, r])).values()];
          const names = assignNames(uniq).map((r) => r.name);
          expect(new Set(names).size).toBe(names.length);
          for (const n of names) expect(n).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("schema repair", () => {
  it("adds type object, drops non-draft-07 $schema, replaces non-object schemas", () => {
    expect(repairSchema({ properties: {} }).schema).toEqual({ type: "object", properties: {} });
    expect(repairSchema({ type: "object", $schema: "https://json-schema.org/draft/2020-12/schema" }).schema).toEqual({ type: "object" });
    expect(repairSchema({ type: "string" }).schema).toEqual({ type: "object" });
    expect(repairSchema(undefined).note).toMatch(/no inputSchema/);
    expect(repairSchema({ type: "object" }).note).toBeUndefined();
  });
  it("truncates descriptions over 2 KB", () => {
    expect(truncateDescription("x".repeat(3000)).text.length).toBeLessThan(2100);
    expect(truncateDescription("short").note).toBeUndefined();
  });
});

describe("JSON-RPC line reading (lib/jsonrpc-read.ts)", () => {
  const line = (v: unknown) => JSON.stringify(v);
  // Messages of the plain shapes: the fast path must take them, and return what the SDK's schema returns.
  const plain = [
    { jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "Echo: hi" }] } },
    { result: { content: [{ type: "text", text: "x" }], isError: true, structuredContent: { a: 1 } }, jsonrpc: "2.0", id: "abc" },
    { jsonrpc: "2.0", id: 0, result: {} },
    { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "echo", arguments: { message: "m" } } },
    { method: "tools/list", jsonrpc: "2.0", id: "r-1" },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 3, reason: "x" } },
  ];
  // Messages the schema decides: the fast path must leave them to it (refused ones stay refused, with its error).
  const other: unknown[] = [
    { jsonrpc: "2.0", id: 1, result: { _meta: { progressToken: 1 }, content: [] } },
    { jsonrpc: "2.0", id: 1, result: { _meta: "bad" } },
    { jsonrpc: "2.0", id: 2, method: "tools/call", params: { _meta: { progressToken: "t" }, name: "echo" } },
    { jsonrpc: "2.0", id: 2, method: "tools/call", params: { _meta: 5 } },
    { jsonrpc: "2.0", id: 3, error: { code: -32601, message: "nope" } },
    { jsonrpc: "2.0", error: { code: -32700, message: "parse error" } },
    { jsonrpc: "2.0", id: 1.5, result: {} },
    { jsonrpc: "2.0", id: 2 ** 60, result: {} },
    { jsonrpc: "2.0", id: null, result: {} },
    { jsonrpc: "1.0", id: 1, result: {} },
    { jsonrpc: "2.0", id: 1, result: {}, extra: true },
    { jsonrpc: "2.0", id: 1, result: [] },
    { jsonrpc: "2.0", id: 1, result: null },
    { jsonrpc: "2.0", id: 1, method: "x", params: null },
    { jsonrpc: "2.0", id: 1, method: "x", params: [1] },
    { jsonrpc: "2.0", id: 1, method: 5 },
    { jsonrpc: "2.0", id: 1, method: "x", result: {} },
    { jsonrpc: "2.0", result: {} },
    { jsonrpc: "2.0" },
    [],
    "x",
    null,
  ];

  it("returns for a plain message exactly what the SDK's deserializeMessage returns, without the schema", async () => {
    const { deserializeMessage } = await import("@modelcontextprotocol/sdk/shared/stdio.js");
    const { isPlainMessage, readMessageLine } = await import("../../lib/jsonrpc-read.ts");
    for (const m of plain) {
      expect(isPlainMessage(JSON.parse(line(m))), line(m)).toBe(true);
      const schema = () => {
        throw new Error("the schema ran");
      };
      expect(readMessageLine(line(m), schema)).toStrictEqual(deserializeMessage(line(m)));
    }
  });

  it("leaves every other message to the schema: same result, same refusal", async () => {
    const { deserializeMessage } = await import("@modelcontextprotocol/sdk/shared/stdio.js");
    const { JSONRPCMessageSchema } = await import("@modelcontextprotocol/sdk/types.js");
    const { isPlainMessage, readMessageLine } = await import("../../lib/jsonrpc-read.ts");
    const parse = (v: unknown) => JSONRPCMessageSchema.parse(v);
    for (const m of other) {
      expect(isPlainMessage(JSON.parse(line(m))), line(m)).toBe(false);
      const sdk = (() => {
        try {
          return { ok: deserializeMessage(line(m)) };
        } catch (e) {
          return { err: String(e) };
        }
      })();
      const ours = (() => {
        try {
          return { ok: readMessageLine(line(m), parse) };
        } catch (e) {
          return { err: String(e) };
        }
      })();
      expect(ours, line(m)).toStrictEqual(sdk);
    }
    expect(() => readMessageLine("{not json", parse)).toThrow(SyntaxError);
  });

  it("agrees with the SDK's schema on arbitrary JSON values (property)", async () => {
    const { JSONRPCMessageSchema } = await import("@modelcontextprotocol/sdk/types.js");
    const { isPlainMessage } = await import("../../lib/jsonrpc-read.ts");
    const body = fc.dictionary(fc.constantFrom("_meta", "content", "name", "isError", "x"), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
    const msg = fc.record(
      {
        jsonrpc: fc.constantFrom("2.0", "2.0", "1.0", 2),
        id: fc.oneof(fc.integer(), fc.string({ maxLength: 3 }), fc.double(), fc.constant(null)),
        method: fc.oneof(fc.constantFrom("tools/call", "notifications/x"), fc.integer()),
        params: fc.oneof(body, fc.constant(null), fc.array(fc.integer(), { maxLength: 2 })),
        result: fc.oneof(body, fc.constant(null)),
        error: fc.record({ code: fc.integer(), message: fc.string({ maxLength: 3 }) }),
        other: fc.integer(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(msg, (m) => {
        const v = JSON.parse(JSON.stringify(m));
        if (!isPlainMessage(v)) return;
        const r = JSONRPCMessageSchema.safeParse(v);
        expect(r.success).toBe(true);
        expect(r.data).toStrictEqual(v);
      }),
      { numRuns: 3000 },
    );
  });

  it("frames like the SDK's ReadBuffer: partial lines wait, CRLF is stripped, a bad line is consumed before it throws, the size cap holds", async () => {
    const { JSONRPCMessageSchema } = await import("@modelcontextprotocol/sdk/types.js");
    const { JsonRpcReadBuffer } = await import("../../lib/jsonrpc-read.ts");
    const b = new JsonRpcReadBuffer((v) => JSONRPCMessageSchema.parse(v), 128);
    expect(b.readMessage()).toBeNull();
    b.append(Buffer.from('{"jsonrpc":"2.0","id":1,"res'));
    expect(b.readMessage()).toBeNull();
    b.append(Buffer.from('ult":{}}\r\nnot json\n{"jsonrpc":"2.0","method":"n"}\n'));
    expect(b.readMessage()).toStrictEqual({ jsonrpc: "2.0", id: 1, result: {} });
    expect(() => b.readMessage()).toThrow(SyntaxError);
    expect(b.readMessage()).toStrictEqual({ jsonrpc: "2.0", method: "n" });
    expect(b.readMessage()).toBeNull();
    expect(() => b.append(Buffer.alloc(129))).toThrow(/exceeded maximum size of 128 bytes/);
  });
});
