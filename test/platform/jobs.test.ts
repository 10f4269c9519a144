import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sql } from '../../src/platform/db/drizzle.ts';
import { appSettings } from '../../src/platform/db/schema/index.ts';
import { defineJob } from '../../src/platform/jobs.ts';
import { createTestApp, eventually } from '../helpers/app.ts';

const handled: string[] = [];
const attempts = new Map<string, number>();

const recordJob = defineJob({
  name: 'test.record',
  payload: z.object({ marker: z.string() }),
  handle: async ({ marker }) => {
    handled.push(marker);
  },
});

const alwaysFailsJob = defineJob({
  name: 'test.always-fails',
  payload: z.object({ marker: z.string() }),
  queue: { retryLimit: 1, retryDelay: 1, retryBackoff: false },
  handle: async ({ marker }) => {
    attempts.set(marker, (attempts.get(marker) ?? 0) + 1);
    throw new Error(`provider down for ${marker}`);
  },
});

const { app } = await createTestApp({ jobs: [recordJob, alwaysFailsJob], startWorkers: true });
const { jobs, database } = app.vetflow;

describe('job queue', () => {
  it('creates every queue at boot with its retry policy and a dead-letter queue', async () => {
    const queue = await jobs.boss.getQueue('test.always-fails');
    expect(queue).toMatchObject({ retryLimit: 1, retryDelay: 1, deadLetter: 'test.always-fails.dead' });
    const recorded = await jobs.boss.getQueue('test.record');
    expect(recorded).toMatchObject({ retryLimit: 3, retryBackoff: true, expireInSeconds: 900, deadLetter: 'test.record.dead' });
    expect(await jobs.boss.getQueue('test.record.dead')).not.toBeNull();
  });

  it('runs a job sent in a committed transaction, together with its data', async () => {
    await database.db.transaction(async (tx) => {
      await tx.insert(appSettings).values({ key: 'committed', value: { ok: true } });
      await jobs.send(recordJob, { marker: 'committed' }, { tx });
    });
    expect(await eventually(async () => handled.includes('committed'))).toBe(true);
  });

  it('never creates a job whose transaction rolled back', async () => {
    const rollback = new Error('rollback');
    await expect(
      database.db.transaction(async (tx) => {
        await tx.insert(appSettings).values({ key: 'rolled-back', value: { ok: false } });
        await jobs.send(recordJob, { marker: 'rolled-back' }, { tx });
        throw rollback;
      }),
    ).rejects.toBe(rollback);
    // A job sent after the rolled-back one is handled; the rolled-back one never is.
    await jobs.send(recordJob, { marker: 'after' });
    await eventually(async () => handled.includes('after'));
    expect(handled).not.toContain('rolled-back');
    const rows = await database.db.execute(sql`select count(*)::int as n from pgboss.job where data->>'marker' = 'rolled-back'`);
    expect((rows as unknown as { rows: { n: number }[] }).rows[0]?.n).toBe(0);
  });

  it('retries a failing job, then moves it to the dead-letter queue', async () => {
    await jobs.send(alwaysFailsJob, { marker: 'doomed' });
    const dead = await eventually(async () => {
      const found = await jobs.boss.findJobs('test.always-fails.dead', { data: { marker: 'doomed' } });
      return found.length > 0 ? found : undefined;
    }, 20_000);
    expect(dead).toHaveLength(1);
    expect(attempts.get('doomed')).toBe(2);
  });

  it('rejects a payload that breaks the job schema before sending', async () => {
    await expect(jobs.send(recordJob, { marker: 42 } as never)).rejects.toThrow();
  });
});
