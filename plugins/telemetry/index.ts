/**
 * Telemetry a fleet needs, off by default (config key `telemetry`):
 *   traces   every call's trace as OpenTelemetry spans over OTLP/HTTP — a root span per call and one
 *            child per core stage and per hook tap, with plugin, rule and decision as attributes;
 *   metrics  per-instance counters and latency histograms (Prometheus text, served at `/metrics` by
 *            `toolhost serve --http`; also `host.service("telemetry").metricsText()`).
 * It reads what the pipeline already records (`build.persist`: the call and its outcome with its trace),
 * so it adds nothing to a call's stages; with the key absent it taps nothing at all.
 *
 *   spans.ts   a call's trace as span records (pure)
 *   export.ts  the OTel SDK, loaded only when traces are on; export failures said once
 *   metrics.ts counters and histograms
 */
import os from "node:os";
import { definePlugin, stableStringify, type CallRecord } from "../../core/index.ts";
import { SpanExport, type TracesConfig } from "./export.ts";
import { Metrics } from "./metrics.ts";
import { callSpans } from "./spans.ts";

const PLUGIN_NAME = "telemetry";
export const TELEMETRY_SERVICE = "telemetry";

export interface TelemetryConfig {
  /** true: export to the OTEL_EXPORTER_OTLP_* endpoint; an object: where and how. Absent/false: no spans. */
  traces?: boolean | TracesConfig;
  /** Count calls, decisions and latencies for `/metrics`. */
  metrics?: boolean;
  /** This instance's name (span resource `service.instance.id`, metric label); default TOOLHOST_INSTANCE_ID or `<hostname>:<pid>`. */
  instance?: string;
}

/** What the plugin offers other plugins (mcp-serve's `/metrics`) and tests. */
export interface TelemetryService {
  readonly instance: string;
  /** Prometheus text of this instance's metrics, or undefined when `telemetry.metrics` is off. */
  metricsText(): string | undefined;
  metrics(): Metrics | undefined;
  /** Send the spans waiting in the batch (tests, shutdown). */
  flush(): Promise<void>;
  /** Spans exported and failed so far. */
  exportStats(): { exported: number; failed: number } | undefined;
}

export function defaultInstance(): string {
  return process.env.TOOLHOST_INSTANCE_ID || `${os.hostname()}:${process.pid}`;
}

const SCHEMA = {
  type: "object",
  additionalProperties: false,
  properties: {
    traces: {
      anyOf: [
        { type: "boolean" },
        {
          type: "object",
          additionalProperties: false,
          properties: {
            endpoint: { type: "string", pattern: "^https?://" },
            headers: { type: "object", additionalProperties: { type: "string" } },
            serviceName: { type: "string", minLength: 1 },
            flushMs: { type: "number", minimum: 1 },
            maxQueue: { type: "integer", minimum: 1 },
          },
        },
      ],
    },
    metrics: { type: "boolean" },
    instance: { type: "string", minLength: 1 },
  },
};

export default definePlugin({
  name: PLUGIN_NAME,
  apply(ctx) {
    ctx.contributeConfig("telemetry", SCHEMA);
    let exp: SpanExport | undefined;
    let expKey = "";
    let metrics: Metrics | undefined;
    let instance = defaultInstance();
    const log = { warn: (m: string) => ctx.host.log.warn(m) };
    const service: TelemetryService = {
      get instance() {
        return instance;
      },
      metricsText: () => metrics?.text(),
      metrics: () => metrics,
      flush: async () => exp?.flush(),
      exportStats: () => (exp ? { exported: exp.exported, failed: exp.failed } : undefined),
    };
    ctx.provide(TELEMETRY_SERVICE, service);

    ctx.hooks.build.tap(PLUGIN_NAME, (build) => {
      const cfg = (build.config.telemetry ?? {}) as TelemetryConfig;
      instance = cfg.instance ?? defaultInstance();
      const traces: TracesConfig | undefined = cfg.traces === true ? {} : cfg.traces || undefined;
      const key = traces ? stableStringify({ traces, instance }) : "";
      if (key !== expKey) {
        // A changed endpoint gets a new provider; the old one sends what it holds, then stops.
        void exp?.shutdown();
        exp = traces ? new SpanExport(traces, instance, log) : undefined;
        expKey = key;
        void exp?.start().catch((e: unknown) => {
          ctx.report({ path: "telemetry.traces", message: `telemetry: cannot load the OpenTelemetry SDK: ${(e as Error).message}`, severity: "error" });
          exp = undefined;
        });
      }
      if (cfg.metrics) metrics ??= new Metrics(instance);
      else metrics = undefined;
      const spans = exp;
      const counts = metrics;
      if (!spans && !counts) return;
      const inst = instance;
      build.hooks.persist.tap(PLUGIN_NAME, (rec: CallRecord) => {
        const end = Date.now();
        counts?.record(rec, end);
        spans?.emit(callSpans(rec, end, inst));
      });
    });
    ctx.onDispose(async () => {
      await exp?.shutdown();
      exp = undefined;
    });
  },
});
