import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { definitions, serviceProcess, spawnThresher, Workspace } from './helpers.js';

/** An OTLP/HTTP collector: what the exporters posted, by path, as parsed JSON. */
async function collector(): Promise<{ server: Server; url: string; posted: Map<string, unknown[]> }> {
  const posted = new Map<string, unknown[]>();
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const path = request.url ?? '';
      posted.set(path, [...(posted.get(path) ?? []), JSON.parse(body || '{}')]);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, posted };
}

interface OtlpSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: { key: string; value: { stringValue?: string } }[];
}

const workspaces: Workspace[] = [];
const servers: Server[] = [];
afterEach(() => {
  for (const workspace of workspaces.splice(0)) workspace.remove();
  for (const server of servers.splice(0)) server.close();
});

describe('thresher run --otel', () => {
  it("should export the run's spans and metrics over OTLP/HTTP to the endpoint OTEL_* names, the handler given its job's trace context", async () => {
    // given a collector, a model and a handler that returns the trace context it was given
    const otlp = await collector();
    servers.push(otlp.server);
    const workspace = new Workspace();
    workspaces.push(workspace);
    workspace.write('greeting.bpmn', definitions('greeting-defs', serviceProcess));
    workspace.write('handlers.mjs', 'export const greet = (job) => ({ traceparent: job.traceContext });\n');

    // when the process runs with --otel
    const run = spawnThresher(
      ['run', 'greeting.bpmn', '--handlers', 'handlers.mjs', '--store', 'memory:', '--otel', '--json'],
      {
        cwd: workspace.dir,
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
          OTEL_SERVICE_NAME: 'thresher-otel-test',
          OTEL_METRIC_EXPORT_INTERVAL: '600000',
        },
      },
    );
    const exit = await run.exit;

    // then the spans of the instance, its elements and its job reached the collector, in one trace
    expect(exit.code, exit.stderr).toBe(0);
    const batches = (otlp.posted.get('/v1/traces') ?? []) as {
      resourceSpans: { resource: { attributes: OtlpSpan['attributes'] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
    }[];
    const resourceSpans = batches.flatMap((batch) => batch.resourceSpans);
    const service = resourceSpans[0]?.resource.attributes.find((attribute) => attribute.key === 'service.name');
    expect(service?.value.stringValue).toBe('thresher-otel-test');
    const spans = resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans));
    const byName = (name: string) => spans.find((span) => span.name === name);
    expect(spans.map((span) => span.name)).toEqual(
      expect.arrayContaining(['instance greeting', 'element greet', 'job greet']),
    );
    const job = byName('job greet')!;
    expect(job.parentSpanId).toBe(byName('element greet')!.spanId);
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
    const outcome = JSON.parse(exit.stdout) as { variables: { traceparent: string } };
    expect(outcome.variables.traceparent).toBe(`00-${job.traceId}-${job.spanId}-01`);
    // and the metrics, flushed as the command ended
    const metricBatches = (otlp.posted.get('/v1/metrics') ?? []) as {
      resourceMetrics: { scopeMetrics: { metrics: { name: string }[] }[] }[];
    }[];
    const names = metricBatches.flatMap((batch) =>
      batch.resourceMetrics.flatMap((resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics)),
    );
    expect(names.map((metric) => metric.name)).toEqual(
      expect.arrayContaining(['thresher.instances.started', 'thresher.instances.completed', 'thresher.jobs']),
    );
  });
});
