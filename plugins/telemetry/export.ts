/**
 * OTLP/HTTP export of call spans with the OpenTelemetry JS SDK (loaded only when traces are on, so a
 * host without telemetry imports none of it). One tracer provider per endpoint configuration; an
 * export that fails is said once on the logger (and again when it works again), never thrown at a call.
 */
import os from "node:os";
import type { CallSpans, SpanRecord } from "./spans.ts";

export interface TracesConfig {
  /** OTLP/HTTP traces URL (e.g. http://127.0.0.1:4318/v1/traces); default: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / OTEL_EXPORTER_OTLP_ENDPOINT, else the SDK's default. */
  endpoint?: string;
  headers?: Record<string, string>;
  serviceName?: string;
  /** BatchSpanProcessor's delay between exports (ms, default 2000). */
  flushMs?: number;
  /** Spans kept waiting for export at most (default 20480); beyond that new spans are dropped and counted by the SDK. */
  maxQueue?: number;
}

export interface Log {
  warn(m: string): void;
}

type Api = typeof import("@opentelemetry/api");

export class SpanExport {
  private provider?: import("@opentelemetry/sdk-trace-base").BasicTracerProvider;
  private tracer?: import("@opentelemetry/api").Tracer;
  private api?: Api;
  private ready?: Promise<void>;
  private failing = false;
  exported = 0;
  failed = 0;

  constructor(
    readonly cfg: TracesConfig,
    readonly instance: string,
    private readonly log: Log,
  ) {}

  /** Load the SDK and set up the provider (once). */
  start(): Promise<void> {
    return (this.ready ??= this.setup());
  }

  private async setup(): Promise<void> {
    const [api, base, res, otlp] = await Promise.all([import("@opentelemetry/api"), import("@opentelemetry/sdk-trace-base"), import("@opentelemetry/resources"), import("@opentelemetry/exporter-trace-otlp-http")]);
    const inner = new otlp.OTLPTraceExporter({ ...(this.cfg.endpoint ? { url: this.cfg.endpoint } : {}), ...(this.cfg.headers ? { headers: this.cfg.headers } : {}) });
    const where = this.cfg.endpoint ?? "the OTEL_EXPORTER_OTLP_* endpoint";
    // Loud once per failure streak: a collector that is down must not flood the log, nor go unnoticed.
    const exporter: import("@opentelemetry/sdk-trace-base").SpanExporter = {
      export: (spans, done) =>
        inner.export(spans, (r) => {
          if (r.code === 0) {
            this.exported += spans.length;
            if (this.failing) this.log.warn(`toolhost: telemetry: spans reach ${where} again`);
            this.failing = false;
          } else {
            this.failed += spans.length;
            if (!this.failing) this.log.warn(`toolhost: telemetry: cannot export ${spans.length} spans to ${where}: ${r.error?.message ?? "export failed"} (calls go on; said once until it works again)`);
            this.failing = true;
          }
          done(r);
        }),
      shutdown: () => inner.shutdown(),
      forceFlush: () => inner.forceFlush(),
    };
    const resource = res.resourceFromAttributes({ "service.name": this.cfg.serviceName ?? "toolhost", "service.instance.id": this.instance, "host.name": os.hostname(), "process.pid": process.pid });
    const processor = new base.BatchSpanProcessor(exporter, { scheduledDelayMillis: this.cfg.flushMs ?? 2000, maxQueueSize: this.cfg.maxQueue ?? 20480, maxExportBatchSize: 512 });
    this.provider = new base.BasicTracerProvider({ resource, spanProcessors: [processor] });
    this.tracer = this.provider.getTracer("toolhost", "0.1.0");
    this.api = api;
  }

  /** Turn one call's span records into SDK spans (ended at once; the batch processor sends them). */
  emit(spans: CallSpans): void {
    if (!this.tracer || !this.api) return void this.start().then(() => this.emit(spans));
    const { api, tracer } = this;
    const open = (r: SpanRecord, ctx: import("@opentelemetry/api").Context) => {
      const s = tracer.startSpan(r.name, { startTime: r.start, attributes: r.attributes, kind: api.SpanKind.INTERNAL }, ctx);
      if (r.error) s.setStatus({ code: api.SpanStatusCode.ERROR, message: r.error });
      return s;
    };
    const root = open(spans.root, api.ROOT_CONTEXT);
    const ctx = api.trace.setSpan(api.ROOT_CONTEXT, root);
    for (const c of spans.children) open(c, ctx).end(c.end);
    root.end(spans.root.end);
  }

  async flush(): Promise<void> {
    await this.ready?.catch(() => {});
    // A failed export was already said (once) by the exporter wrapper: flushing never throws at the caller.
    await this.provider?.forceFlush().catch(() => {});
  }

  async shutdown(): Promise<void> {
    await this.ready?.catch(() => {});
    await this.provider?.shutdown().catch((e: unknown) => this.log.warn(`toolhost: telemetry: shutdown: ${(e as Error).message}`));
  }
}
