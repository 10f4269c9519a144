import Fastify from 'fastify';
import type { AppInstance } from '../src/platform/http/types.ts';
import { registerHttpMetrics } from '../src/platform/metrics/http.ts';
import { median } from './lib/report.ts';

// The HTTP metrics hooks' own cost, in process: the same one-route Fastify app without and with
// them, driven by inject (no sockets, so the hooks are a visible share of each request), rounds
// alternated. The difference per request, set against a real request's server CPU time, is the
// overhead; end-to-end throughput on this shared machine swings far more than 3 % between runs.

async function appWith(metrics: boolean) {
  const app = Fastify() as unknown as AppInstance;
  if (metrics) registerHttpMetrics(app, [{ name: 'notes', prefix: '/notes/v1' }]);
  app.get('/notes/v1/notes/:id', async (request) => ({ status: 'success', data: { id: (request.params as { id: string }).id } }));
  await app.ready();
  return app;
}

async function timePerRequest(app: AppInstance, requests: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < requests; i++) await app.inject({ method: 'GET', url: '/notes/v1/notes/0b8e0a39-5d1c-4c6e-9d8e-2f8f2b1c3a4d' });
  return ((performance.now() - started) / requests) * 1000;
}

/** Microseconds per request added by the metrics hooks (median of alternated rounds). */
export async function measureMetricsHooks(rounds = 5, requests = 10_000) {
  const [off, on] = [await appWith(false), await appWith(true)];
  await timePerRequest(off, 2_000);
  await timePerRequest(on, 2_000);
  const offUs: number[] = [];
  const onUs: number[] = [];
  for (let round = 0; round < rounds; round++) {
    offUs.push(await timePerRequest(off, requests));
    onUs.push(await timePerRequest(on, requests));
  }
  await off.close();
  await on.close();
  return { offUs: median(offUs), onUs: median(onUs), addedUs: median(onUs) - median(offUs) };
}

if (import.meta.main) console.log(JSON.stringify(await measureMetricsHooks()));
