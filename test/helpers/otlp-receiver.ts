import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

// A local OTLP/HTTP trace receiver speaking the JSON encoding (OTEL_EXPORTER_OTLP_PROTOCOL=http/json):
// POST /v1/traces with an ExportTraceServiceRequest, answered 200 with an empty ExportTraceServiceResponse.

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
  service: string;
}

interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
type KeyValues = { key: string; value: AnyValue }[] | undefined;

const plain = (attributes: KeyValues) =>
  Object.fromEntries(
    (attributes ?? []).map(({ key, value }) => [key, value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue]),
  );

export async function startOtlpReceiver() {
  const spans: ReceivedSpan[] = [];
  const paths: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      paths.push(`${request.method} ${request.url} ${request.headers['content-type']}`);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      for (const resourceSpans of body.resourceSpans ?? []) {
        const service = String(plain(resourceSpans.resource?.attributes)['service.name']);
        for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
          for (const span of scopeSpans.spans ?? []) {
            spans.push({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId || undefined,
              name: span.name,
              kind: span.kind,
              attributes: plain(span.attributes),
              links: (span.links ?? []).map((link: { traceId: string; spanId: string }) => ({
                traceId: link.traceId,
                spanId: link.spanId,
              })),
              service,
            });
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    paths,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
