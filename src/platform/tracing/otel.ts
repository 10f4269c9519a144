import { createRequire } from 'node:module';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { Tracing } from './port.ts';

// The OpenTelemetry SDK, configured by the standard OTEL_* variables (endpoint, protocol, headers,
// sampler, service name, resource attributes), exporting traces only: metrics are Prometheus's
// (src/platform/metrics/), logs stay pino's. Imported only when tracing is on (tracing.ts).
//
// Spans: incoming HTTP (named after the route template by the app), SQL statements (pg) below a
// request or job span, outgoing HTTP to providers (fetch, through undici) and webhook receivers
// (node:http), and one span per job, linked to the span of whoever sent the job.

// Attributes of an incoming request span that may hold the query string.
const QUERY_ATTRIBUTES = ['http.target', 'http.url', 'url.full'];

export async function startOpenTelemetry(service: { role: string; version: string }): Promise<Tracing> {
  const sdk = new NodeSDK({
    resource: defaultResource().merge(
      resourceFromAttributes({ 'service.name': 'vetflow', 'service.version': service.version, 'vetflow.role': service.role }),
    ),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        // The metrics listener's own scrapes and the probes are not worth a trace each.
        ignoreIncomingRequestHook: (request) => /^\/(healthz|readyz|metrics)\b/.test(request.url ?? ''),
        // Outgoing calls only as part of a request or a job (pg-boss and the SDK's own export are not).
        requireParentforOutgoingSpans: true,
      }),
      // Statements only below a request or job span: pg-boss's polling would otherwise be most traces.
      new PgInstrumentation({ requireParentSpan: true }),
      new UndiciInstrumentation({ requireParentforSpans: true }),
    ],
  });
  sdk.start();
  // The instrumentations patch modules as they are required; the app imports `pg` and `node:http`
  // as ES modules, possibly before this ran. Requiring them here patches the very objects the
  // app's imports share (CommonJS exports and built-in modules are singletons).
  const require = createRequire(import.meta.url);
  require('node:http');
  require('node:https');
  require('pg');

  const tracer = trace.getTracer('vetflow', service.version);
  return {
    carrier() {
      const carrier: Record<string, string> = {};
      propagation.inject(context.active(), carrier);
      return carrier.traceparent ? carrier : undefined;
    },
    inJobSpan(queue, jobId, carrier, run) {
      const sender = carrier && typeof carrier === 'object' ? propagation.extract(ROOT_CONTEXT, carrier) : ROOT_CONTEXT;
      const senderSpan = trace.getSpanContext(sender);
      // A new trace per job, linked to the request (or job) that sent it: a job may run long after
      // its sender's trace ended, and retries are separate runs.
      return tracer.startActiveSpan(
        `job ${queue}`,
        {
          root: true,
          kind: SpanKind.CONSUMER,
          attributes: { 'messaging.system': 'pg-boss', 'messaging.destination.name': queue, 'messaging.message.id': jobId },
          links: senderSpan ? [{ context: senderSpan }] : [],
        },
        async (span) => {
          try {
            return await run();
          } catch (error) {
            // The code only: a message may quote a provider's answer or a patient's name.
            const code = (error as { code?: unknown }).code;
            span.setAttribute('error.type', typeof code === 'string' ? code : 'error');
            span.setStatus({ code: SpanStatusCode.ERROR });
            throw error;
          } finally {
            span.end();
          }
        },
      );
    },
    nameRequest(method, route) {
      const span = trace.getActiveSpan();
      if (!span) return;
      span.setAttribute('http.route', route);
      span.updateName(`${method} ${route}`);
      // Query values (a patient's name in a list filter) stay out of traces.
      const attributes = (span as unknown as { attributes?: Record<string, unknown> }).attributes ?? {};
      for (const key of QUERY_ATTRIBUTES) {
        const value = attributes[key];
        if (typeof value === 'string' && value.includes('?')) span.setAttribute(key, value.slice(0, value.indexOf('?')));
      }
      if (attributes['url.query'] !== undefined) span.setAttribute('url.query', '[redacted]');
    },
    shutdown: () => sdk.shutdown(),
  };
}
