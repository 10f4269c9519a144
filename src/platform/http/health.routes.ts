import { z } from 'zod';
import { AppError } from '../errors.ts';
import type { AppInstance } from './types.ts';

const CHECK_TIMEOUT_MS = 2_000;

export async function healthRoutes(app: AppInstance) {
  // Liveness: the process answers; no dependency is consulted, so a database outage does not
  // get the process restarted in a loop.
  app.get(
    '/healthz',
    { config: { access: 'public' }, schema: { hide: true, response: { 200: z.object({ status: z.literal('ok') }) } } },
    async () => ({
      status: 'ok' as const,
    }),
  );

  // Readiness: the database and the job queue both answer, each within a bound.
  app.get('/readyz', { config: { access: 'public' }, schema: { hide: true } }, async () => {
    const { database, jobs } = app.vetflow;
    if (app.vetflow.draining) throw new AppError('NOT_READY', 'The instance is shutting down', { checks: { shutdown: 'draining' } });
    const [db, queue] = await Promise.all([probe(() => database.ping()), probe(() => jobs.ping())]);
    const checks = { database: db, jobs: queue };
    if (db !== 'ok' || queue !== 'ok') {
      throw new AppError('NOT_READY', 'A dependency is not reachable', { checks });
    }
    return { status: 'ready', checks };
  });
}

async function probe(check: () => Promise<void>): Promise<'ok' | 'unavailable'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([check(), timeout]);
    return 'ok';
  } catch {
    return 'unavailable';
  } finally {
    clearTimeout(timer);
  }
}
