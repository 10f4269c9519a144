import http from 'node:http';
import { percentile } from './report.ts';

// Timed HTTP requests for a mixed workload: keep-alive sockets (one agent per server, as a load
// balancer keeps them), the latency of every answer by route label, and every unexpected answer
// kept with its body so that the report can print each distinct error.

export interface Answer {
  status: number;
  body: string;
  ms: number;
}

export interface RouteSummary {
  requests: number;
  per_second: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  errors: number;
}

export class RouteStats {
  readonly #latencies = new Map<string, number[]>();
  readonly #errors = new Map<string, { count: number }>();
  readonly #errorsByRoute = new Map<string, number>();
  /** Requests that started before this instant (warm-up) or after `measureUntil` are not counted. */
  measureFrom = Number.POSITIVE_INFINITY;
  measureUntil = Number.POSITIVE_INFINITY;

  record(route: string, startedAt: number, ms: number): void {
    if (startedAt < this.measureFrom || startedAt > this.measureUntil) return;
    const list = this.#latencies.get(route);
    if (list) list.push(ms);
    else this.#latencies.set(route, [ms]);
  }

  /** An unexpected answer or a socket error: counted whenever it happens, warm-up included. */
  error(route: string, description: string): void {
    this.other(`${route}: ${description}`);
    this.#errorsByRoute.set(route, (this.#errorsByRoute.get(route) ?? 0) + 1);
  }

  /** An error that is not a route's answer (a failed note, a logged error). */
  other(description: string): void {
    const seen = this.#errors.get(description);
    if (seen) seen.count += 1;
    else this.#errors.set(description, { count: 1 });
  }

  get errorCount(): number {
    return [...this.#errors.values()].reduce((sum, e) => sum + e.count, 0);
  }

  distinctErrors(): { error: string; count: number }[] {
    return [...this.#errors.entries()].map(([error, { count }]) => ({ error, count }));
  }

  routes(): string[] {
    return [...new Set([...this.#latencies.keys(), ...this.#errorsByRoute.keys()])];
  }

  summary(route: string, seconds: number): RouteSummary {
    const list = this.#latencies.get(route) ?? [];
    return {
      requests: list.length,
      per_second: list.length / seconds,
      p50_ms: percentile(list, 50),
      p99_ms: percentile(list, 99),
      max_ms: list.reduce((a, b) => Math.max(a, b), 0),
      errors: this.#errorsByRoute.get(route) ?? 0,
    };
  }

  /** p99 over several routes' answers together. */
  p99Of(routes: string[]): number {
    return percentile(
      routes.flatMap((route) => this.#latencies.get(route) ?? []),
      99,
    );
  }
}

/** One request over `agent`, timed from the first byte sent to the last byte of the answer. */
export function timedRequest(
  agent: http.Agent,
  url: string,
  options: { method: string; headers?: Record<string, string>; body?: Buffer | string },
): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : Buffer.isBuffer(options.body) ? options.body : Buffer.from(options.body);
    const req = http.request(url, {
      method: options.method,
      agent,
      headers: { ...options.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
