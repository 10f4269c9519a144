import { describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/app.ts';

const { app, db } = await createTestApp();

describe('health', () => {
  it('/healthz answers while the process runs', async () => {
    const response = await app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
  });

  it('/readyz checks the database and the job queue', async () => {
    const response = await app.inject({ method: 'GET', url: '/readyz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ready', checks: { database: 'ok', jobs: 'ok' } });
  });

  it('/readyz answers 503 once the database is gone', async () => {
    await db.database.close();
    const response = await app.inject({ method: 'GET', url: '/readyz' });
    expect(response.statusCode).toBe(503);
    const body = response.json();
    expect(body).toMatchObject({ error: 'service_unavailable', code: 'NOT_READY' });
    expect(body.details.checks.database).toBe('unavailable');
    const live = await app.inject({ method: 'GET', url: '/healthz' });
    expect(live.statusCode).toBe(200);
  });
});
