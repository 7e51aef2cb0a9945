/** A real OTLP/HTTP receiver on 127.0.0.1 for tests: it decodes the JSON encoding of ExportTraceServiceRequest. */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  start: number;
  end: number;
  status?: { code?: number; message?: string };
  attributes: Record<string, string | number | boolean>;
  resource: Record<string, string | number | boolean>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
type KV = { key: string; value: AnyValue };
const value = (v: AnyValue) => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.doubleValue ?? v.boolValue ?? "";
const attrs = (kvs: KV[] | undefined) => Object.fromEntries((kvs ?? []).map((kv) => [kv.key, value(kv.value)]));
const nanos = (t: unknown) => Number(BigInt(String(t)) / 1000n) / 1000; // ns → ms

export async function startReceiver(): Promise<{ url: string; spans: ReceivedSpan[]; requests: number; close(): Promise<void>; contentTypes: string[] }> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const state = { requests: 0 };
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      state.requests++;
      contentTypes.push(String(req.headers["content-type"]));
      if (req.url !== "/v1/traces" || req.method !== "POST") return void res.writeHead(404).end();
      const msg = JSON.parse(body) as { resourceSpans: { resource?: { attributes?: KV[] }; scopeSpans: { spans: any[] }[] }[] };
      for (const rs of msg.resourceSpans) {
        const resource = attrs(rs.resource?.attributes);
        for (const ss of rs.scopeSpans)
          for (const s of ss.spans)
            spans.push({ traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId || undefined, name: s.name, start: nanos(s.startTimeUnixNano), end: nanos(s.endTimeUnixNano), status: s.status, attributes: attrs(s.attributes), resource });
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    spans,
    get requests() {
      return state.requests;
    },
    contentTypes,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
