/**
 * Reading JSON-RPC lines of an MCP stdio stream, as the SDK's `ReadBuffer` does (same framing, same size cap, same
 * messages accepted and refused) but without running the SDK's `JSONRPCMessageSchema` (a zod union of four strict
 * objects) on the shapes nearly every message has. A result response fails the request and notification members
 * before it matches — two zod failures with their issue objects, per upstream answer —, and the SDK's Protocol
 * classifies every message again with its own checks anyway. For a message of a plain shape the union's parse
 * returns an object equal to its input (test/mcp/units.test.ts compares both on such messages), so that input is
 * returned as it is; anything else (a `_meta`, an error response, an unknown key, a bad id …) goes through the schema.
 */

/** The SDK's parse of one decoded message (`JSONRPCMessageSchema.parse`), used for every message not of a plain shape. */
export type SchemaParse<M> = (value: unknown) => M;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A JSON-RPC id the SDK's RequestIdSchema takes: a string or a (safe) integer; anything else is left to the schema. */
function isId(v: unknown): boolean {
  return typeof v === "string" || Number.isSafeInteger(v);
}

/** `params` or `result` the schema passes through unchanged: an object without `_meta` (which the schema checks). */
function isPlainBody(v: unknown): boolean {
  return isObject(v) && !Object.hasOwn(v, "_meta");
}

/**
 * True when `v` is a request, notification or result response whose every key the union's first matching member
 * knows and accepts as it is: `{jsonrpc: "2.0", id, method, params?}`, `{jsonrpc: "2.0", method, params?}` or
 * `{jsonrpc: "2.0", id, result}`, with `params`/`result` objects without `_meta`.
 */
export function isPlainMessage(v: unknown): boolean {
  if (!isObject(v) || v.jsonrpc !== "2.0") return false;
  let n = 1;
  if ("id" in v) {
    if (!Object.hasOwn(v, "id") || !isId(v.id)) return false;
    n++;
  }
  if (typeof v.method === "string" && Object.hasOwn(v, "method")) {
    n++;
    if ("params" in v) {
      if (!Object.hasOwn(v, "params") || !isPlainBody(v.params)) return false;
      n++;
    }
  } else {
    // a result response: id and result, nothing else
    if (n !== 2 || !Object.hasOwn(v, "result") || !isPlainBody(v.result)) return false;
    n++;
  }
  return Object.keys(v).length === n;
}

/** One line (without its newline) as the SDK's `deserializeMessage` reads it. */
export function readMessageLine<M>(line: string, parse: SchemaParse<M>): M {
  const v: unknown = JSON.parse(line);
  return isPlainMessage(v) ? (v as M) : parse(v);
}

/** The SDK's `ReadBuffer` (shared/stdio.js) with `readMessageLine` in place of `deserializeMessage`. */
export class JsonRpcReadBuffer<M> {
  private buffer?: Buffer;

  constructor(
    private readonly parse: SchemaParse<M>,
    private readonly maxBufferSize: number,
  ) {}

  append(chunk: Buffer): void {
    const size = (this.buffer?.length ?? 0) + chunk.length;
    if (size > this.maxBufferSize) {
      this.clear();
      throw new Error(`ReadBuffer exceeded maximum size of ${this.maxBufferSize} bytes`);
    }
    this.buffer = this.buffer ? Buffer.concat([this.buffer, chunk]) : chunk;
  }

  /** The next whole message, or null; a line that is not a message throws (after it is consumed), as in the SDK. */
  readMessage(): M | null {
    const b = this.buffer;
    if (!b) return null;
    const i = b.indexOf(10); // "\n"
    if (i === -1) return null;
    let line = b.toString("utf8", 0, i);
    if (line.endsWith("\r")) line = line.slice(0, -1);
    this.buffer = b.subarray(i + 1);
    return readMessageLine(line, this.parse);
  }

  clear(): void {
    this.buffer = undefined;
  }
}
