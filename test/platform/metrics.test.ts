import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineJob } from '../../src/platform/jobs.ts';
import { createTestApp, eventually } from '../helpers/app.ts';
import { as, awayFromMinuteBoundary, createClinicWithKeys } from '../helpers/notes.ts';
import { ROOT } from '../helpers/processes.ts';
import { type Scrape, scrape } from '../helpers/prometheus.ts';
import { uploadNote, waitUntilSettled } from '../helpers/uploads.ts';
import { registerWebhook, startReceiver } from '../notes/webhooks-receiver.ts';

// A held job keeps its queue busy so the next ones wait; a failing one lands in its dead-letter queue.
let release: () => void = () => {};
const held = new Promise<void>((resolve) => {
  release = resolve;
});
const holdJob = defineJob({ name: 'test.metrics-hold', payload: z.object({}), handle: () => held });
const failJob = defineJob({
  name: 'test.metrics-fail',
  payload: z.object({}),
  queue: { retryLimit: 0 },
  handle: async () => {
    throw new Error('always fails');
  },
});

const { app, db } = await createTestApp({
  startWorkers: true,
  jobs: [holdJob, failJob],
  env: {
    METRICS_PORT: '0',
    METRICS_QUEUE_INTERVAL_SECONDS: '1',
    JOB_SUPERVISE_INTERVAL_SECONDS: '1',
    RATE_LIMIT_VIEWER_PER_MINUTE: '3',
    AUTH_FAILURE_LIMIT: '2',
    WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,1,1,1',
    WEBHOOK_DISABLE_AFTER_SECONDS: '1',
    BUILD_COMMIT: 'abc1234',
  },
});
const clinic = await createClinicWithKeys(db.database, 'Clínica Secreta');
const port = app.vetflow.metrics!.port;
const metrics = () => scrape(port);

/** The change of each figure between two scrapes. */
function delta(before: Scrape, after: Scrape) {
  return (name: string, labels: Record<string, string> = {}) => after.value(name, labels) - before.value(name, labels);
}

describe('GET /metrics on METRICS_PORT', () => {
  it('times requests by route template, never by raw path: a hundred note ids add no series', async () => {
    const first = randomUUID();
    await app.inject({ method: 'GET', url: `/notes/v1/notes/${first}`, headers: as(clinic.admin) });
    const before = await metrics();
    const ids = Array.from({ length: 100 }, () => randomUUID());
    for (const id of ids) {
      const response = await app.inject({ method: 'GET', url: `/notes/v1/notes/${id}`, headers: as(clinic.admin) });
      expect(response.statusCode).toBe(404);
    }
    const after = await metrics();
    const labels = { api: 'notes', method: 'GET', route: '/notes/v1/notes/:id', status_class: '4xx' };
    expect(delta(before, after)('vetflow_http_request_duration_seconds', labels)).toBe(100);
    expect(after.series('vetflow_http_request_duration_seconds')).toBe(before.series('vetflow_http_request_duration_seconds'));
    const values = after.labelValues();
    for (const id of [first, ...ids]) expect(values.some((value) => value.includes(id))).toBe(false);
    // The scrape itself is served on its own listener, not counted as an API request.
    expect(after.value('vetflow_http_requests_in_flight', { api: 'notes' })).toBe(0);
  });

  it('is absent (404) on the API port', async () => {
    const response = await app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'ROUTE_NOT_FOUND' });
    const unmatched = await metrics();
    expect(
      unmatched.value('vetflow_http_request_duration_seconds', { route: 'unmatched', api: 'platform', status_class: '4xx' }),
    ).toBeGreaterThanOrEqual(1);
  });

  it('counts authentication failures by API and reason, and rate-limit refusals by API and role', async () => {
    await awayFromMinuteBoundary(10);
    const before = await metrics();
    // From an address of its own: a wrong Notes key counts toward the brute-force limit too.
    const wrongKey = await app.inject({ method: 'GET', url: '/notes/v1/notes', headers: as('vnk_0000'), remoteAddress: '198.51.100.99' });
    expect(wrongKey.statusCode).toBe(401);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await app.inject({ method: 'GET', url: '/notes/v1/notes', headers: as(clinic.viewer) })).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);
    // Three malformed bearer tokens from one address: two failures, then the address is blocked.
    const bearer = { authorization: 'Bearer not-a-token' };
    const crm = [];
    for (let i = 0; i < 3; i++) crm.push((await app.inject({ method: 'GET', url: '/flow/v1/external/me', headers: bearer })).statusCode);
    expect(crm).toEqual([401, 401, 429]);
    const after = await metrics();
    const moved = delta(before, after);
    expect(moved('vetflow_auth_failures_total', { api: 'notes', reason: 'INVALID_API_KEY' })).toBe(1);
    expect(moved('vetflow_auth_failures_total', { api: 'flow', reason: 'INVALID_API_KEY' })).toBe(2);
    expect(moved('vetflow_rate_limit_rejections_total', { api: 'notes', role: 'viewer' })).toBe(1);
    expect(moved('vetflow_ip_blocks_total')).toBe(1);
    expect(moved('vetflow_http_request_duration_seconds', { api: 'notes', route: '/notes/v1/notes', status_class: '4xx' })).toBe(2);
  });

  it('follows the notes funnel: created, completed, failed by code, with their durations and provider calls', async () => {
    const before = await metrics();
    const completed = await uploadNote(app, clinic.editor, { name: 'Thor Bolinha' });
    const failed = await uploadNote(app, clinic.editor, { name: 'FAIL' });
    expect(await waitUntilSettled(app, clinic.viewer, completed)).toBe('completed');
    expect(await waitUntilSettled(app, clinic.viewer, failed)).toBe('failed');
    const after = await metrics();
    const moved = delta(before, after);
    expect(moved('vetflow_notes_created_total')).toBe(2);
    expect(moved('vetflow_notes_completed_total')).toBe(1);
    expect(moved('vetflow_notes_failed_total', { code: 'SANDBOX_FORCED_FAILURE' })).toBe(1);
    expect(moved('vetflow_note_upload_to_completed_seconds')).toBe(1);
    expect(moved('vetflow_note_transcription_duration_seconds', { provider: 'sandbox', outcome: 'ok' })).toBe(1);
    expect(moved('vetflow_note_transcription_duration_seconds', { provider: 'sandbox', outcome: 'SANDBOX_FORCED_FAILURE' })).toBe(1);
    expect(moved('vetflow_note_sectioning_duration_seconds', { style: 'verbatim' })).toBe(1);
    expect(moved('vetflow_note_transcription_chunks')).toBe(2);
    expect(after.sum('vetflow_note_transcription_chunks') - before.sum('vetflow_note_transcription_chunks')).toBe(2);
    expect(moved('vetflow_provider_requests_total', { kind: 'transcription', provider: 'sandbox', outcome: 'ok' })).toBe(1);
    expect(
      moved('vetflow_provider_requests_total', { kind: 'transcription', provider: 'sandbox', outcome: 'SANDBOX_FORCED_FAILURE' }),
    ).toBe(1);
    expect(moved('vetflow_provider_requests_total', { kind: 'sectioning', provider: 'rules', outcome: 'ok' })).toBe(1);
    expect(moved('vetflow_job_queue_wait_seconds', { queue: 'notes.transcribe' })).toBe(2);
    expect(moved('vetflow_job_duration_seconds', { queue: 'notes.transcribe', outcome: 'completed' })).toBe(2);
    expect(
      moved('vetflow_http_request_duration_seconds', { api: 'notes', method: 'POST', route: '/notes/v1/notes', status_class: '2xx' }),
    ).toBe(2);
    // Nothing identifying in any label: no patient, clinic, key or note.
    const secrets = ['Thor', 'Bolinha', 'Secreta', clinic.clinicId, clinic.editor, clinic.viewer, clinic.admin, completed, failed];
    for (const value of after.labelValues()) for (const secret of secrets) expect(value).not.toContain(secret);
  });

  it('counts webhook deliveries, attempts, lag and endpoints disabled after failing too long', async () => {
    const good = await startReceiver();
    const bad = await startReceiver(() => 500);
    const register = async (url: string) => (await registerWebhook(app, clinic.admin, url)).id;
    const before = await metrics();
    for (const id of [await register(good.url), await register(bad.url)]) {
      expect((await app.inject({ method: 'POST', url: `/notes/v1/webhooks/${id}/test`, headers: as(clinic.admin) })).statusCode).toBe(202);
    }
    const after = await eventually(async () => {
      const now = await metrics();
      return now.value('vetflow_webhook_endpoints_disabled_total') > before.value('vetflow_webhook_endpoints_disabled_total') && now;
    }, 20_000);
    const moved = delta(before, after);
    expect(good.received).toHaveLength(1);
    expect(moved('vetflow_webhook_deliveries_total', { outcome: 'delivered' })).toBe(1);
    expect(moved('vetflow_webhook_attempts_total', { result: 'delivered' })).toBe(1);
    expect(moved('vetflow_webhook_attempts_total', { result: 'retry' })).toBe(bad.received.length);
    expect(moved('vetflow_webhook_delivery_lag_seconds')).toBe(1);
    expect(moved('vetflow_webhook_endpoints_disabled_total')).toBe(1);
  });

  it('reads queue depth, the oldest waiting job and dead letters from the database on an interval', async () => {
    for (let i = 0; i < 3; i++) await app.vetflow.jobs.send(holdJob, {});
    await app.vetflow.jobs.send(failJob, {});
    try {
      const figures = await eventually(async () => {
        const now = await metrics();
        const ready =
          now.value('vetflow_job_queue_depth', { queue: 'test.metrics-hold' }) === 2 &&
          now.value('vetflow_job_queue_active', { queue: 'test.metrics-hold' }) === 1 &&
          now.value('vetflow_job_dead_letter_depth', { queue: 'test.metrics-fail' }) === 1 &&
          now.value('vetflow_job_queue_oldest_waiting_seconds', { queue: 'test.metrics-hold' }) > 0;
        return ready && now;
      }, 20_000);
      expect(figures.value('vetflow_job_dead_letter_depth', { queue: 'test.metrics-hold' })).toBe(0);
      expect(figures.value('vetflow_job_queue_stats_timestamp_seconds')).toBeGreaterThan(Date.now() / 1000 - 10);
    } finally {
      release();
    }
  });

  it('reports the pool, the process and the build', async () => {
    const now = await metrics();
    // The embedded database has no pool: its gauges stay 0.
    if (app.vetflow.database.kind === 'postgres') expect(now.value('vetflow_db_pool_connections')).toBeGreaterThan(0);
    expect(now.families.has('vetflow_db_pool_connections')).toBe(true);
    expect(now.families.has('vetflow_db_pool_idle')).toBe(true);
    expect(now.value('vetflow_db_pool_waiting')).toBe(0);
    expect(now.value('vetflow_build_info', { version: '0.1.0', commit: 'abc1234', role: 'all' })).toBe(1);
    // prom-client's defaults under their standard names, as stock dashboards and alerts expect.
    expect(now.value('process_resident_memory_bytes')).toBeGreaterThan(10_000_000);
    expect(now.families.has('nodejs_eventloop_lag_seconds')).toBe(true);
    expect([...now.families.keys()].filter((name) => /^vetflow_(process|nodejs)_/.test(name))).toEqual([]);
  });
});

describe('the Grafana dashboard', () => {
  it('queries only metrics the app exposes', async () => {
    const dashboard = readFileSync(path.join(ROOT, 'ops/grafana/dashboards/vetflow.json'), 'utf8');
    const names = new Set(
      [...dashboard.matchAll(/\b((?:vetflow|process|nodejs)_[a-z0-9_]+)/g)].map((match) => match[1]!.replace(/_(bucket|sum|count)$/, '')),
    );
    expect(names.size).toBeGreaterThan(20);
    const now = await metrics();
    const missing = [...names].filter((name) => !now.families.has(name) && !now.families.has(`${name}_count`));
    expect(missing).toEqual([]);
  });
});

describe('without METRICS_PORT', () => {
  it('opens no metrics listener', async () => {
    // A port that was free a moment ago: with the listener off, nothing answers on it.
    const free = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: found } = probe.address() as { port: number };
        probe.close(() => resolve(found));
      });
    });
    const { app: quiet } = await createTestApp();
    expect(quiet.vetflow.metrics).toBeUndefined();
    await expect(fetch(`http://127.0.0.1:${free}/metrics`)).rejects.toThrow();
    expect((await quiet.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
  });
});
