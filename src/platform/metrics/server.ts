import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { registry } from './registry.ts';

/** The metrics listener: `GET /metrics` on its own port, nothing else. */
export interface MetricsServer {
  readonly port: number;
  close(): Promise<void>;
}

/** Serves the registry at `/metrics` on `host:port` (port 0 picks a free one). */
export async function startMetricsServer(host: string, port: number): Promise<MetricsServer> {
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found: metrics are at GET /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => {
        response.writeHead(200, { 'content-type': registry.contentType });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      () => response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics collection failed\n'),
    );
  });
  // Scrapers keep connections open; they must not hold shutdown.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
