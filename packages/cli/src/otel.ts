/**
 * `--otel`: the OpenTelemetry SDK for this process, set up before the engine exists (a meter taken before a
 * provider is registered stays a no-op): traces and metrics exported over OTLP/HTTP, configured by the
 * standard `OTEL_*` variables (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_HEADERS`,
 * `OTEL_SERVICE_NAME`, `OTEL_METRIC_EXPORT_INTERVAL`, …). Loaded only when asked, so a command without the flag
 * pays nothing for it.
 *
 * @module
 */
import { metrics } from '@opentelemetry/api';

/** The SDK as set up: `shutdown` flushes what is buffered and stops exporting. */
export interface OtelSdk {
  shutdown(): Promise<void>;
}

/** Register tracer and meter providers that export to the OTLP endpoint the environment names. */
export async function startOtel(env: Record<string, string | undefined>): Promise<OtelSdk> {
  const [{ NodeTracerProvider, BatchSpanProcessor }, traces, sdkMetrics, metricExport, resources] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/sdk-metrics'),
    import('@opentelemetry/exporter-metrics-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME ?? 'thresher' }));
  const tracerProvider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new traces.OTLPTraceExporter())],
  });
  // Global tracer, the async-local context manager (a handler's own calls join its job's span) and W3C propagation.
  tracerProvider.register();
  const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL ?? 60_000);
  const meterProvider = new sdkMetrics.MeterProvider({
    resource,
    readers: [
      new sdkMetrics.PeriodicExportingMetricReader({
        exporter: new metricExport.OTLPMetricExporter(),
        exportIntervalMillis: Number.isFinite(interval) && interval > 0 ? interval : 60_000,
      }),
    ],
  });
  metrics.setGlobalMeterProvider(meterProvider);
  return {
    async shutdown() {
      await Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]);
    },
  };
}
