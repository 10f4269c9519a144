import { z } from 'zod';
import { defineJob } from './jobs.ts';
import type { Logger } from './logger.ts';
import { secondsSince } from './metrics/registry.ts';
import { retentionDuration, retentionRemoved } from './metrics/retention.ts';

// Retention: what vetflow keeps only for a while (docs/privacy.md, "How long") goes through one
// runner, so the daily job and the operator's `vetflow retention run` do the same work and report it
// the same way. The platform knows no feature: each tree hands its tasks to the composition root
// (src/retention.ts), which lists them; adding a task is one line there.

/**
 * One kind of data past its retention. `run` must be idempotent (a second run at once removes
 * nothing more) and batched: never one long transaction, so writers of the same table are never
 * held up for long and a crash loses at most one batch's work (see `deleteInBatches`).
 */
export interface RetentionTask {
  /** The key of its count in the run's report, e.g. `contact_changes_deleted`. */
  readonly name: string;
  /** Removes what is past its retention at `now`; returns how many rows (or files) it removed. */
  run(now: Date): Promise<number>;
}

/** What one run removed, per task: `{"contact_changes_deleted": 120, "idempotency_keys_deleted": 9, ...}`. */
export type RetentionReport = Record<string, number>;

/** Rows per batch: each batch is one short statement (one transaction) of at most this many rows. */
export const RETENTION_BATCH = 1_000;

/**
 * Calls `deleteBatch(limit)` until it removes fewer than `limit`: each call deletes at most `limit`
 * rows in its own statement (its own transaction). Returns the total.
 */
export async function deleteInBatches(deleteBatch: (limit: number) => Promise<number>, limit = RETENTION_BATCH): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await deleteBatch(limit);
    total += deleted;
    if (deleted < limit) return total;
  }
}

/**
 * Runs every task, one after the other, at one `now`; each is logged (count and duration) and
 * counted in the metrics. A failing task does not stop the others; the run then fails (after they
 * ran) naming it, and a retry repeats only what is still to do (the tasks are idempotent).
 */
export async function runRetention(tasks: readonly RetentionTask[], logger: Logger, now = new Date()): Promise<RetentionReport> {
  const report: RetentionReport = {};
  const failed: string[] = [];
  for (const task of tasks) {
    const started = performance.now();
    try {
      const removed = await task.run(now);
      report[task.name] = removed;
      retentionRemoved.inc({ task: task.name }, removed);
      retentionDuration.observe({ task: task.name, outcome: 'completed' }, secondsSince(started));
      logger.info({ task: task.name, removed, ms: Math.round(performance.now() - started) }, 'retention task done');
    } catch (error) {
      failed.push(task.name);
      retentionDuration.observe({ task: task.name, outcome: 'failed' }, secondsSince(started));
      logger.error({ err: error, task: task.name, ms: Math.round(performance.now() - started) }, 'retention task failed');
    }
  }
  if (failed.length > 0) throw new Error(`retention tasks failed: ${failed.join(', ')}`);
  return report;
}

/** Daily (03:30 UTC, in worker processes): every retention task, through `runRetention`. */
export function retentionJob(tasks: readonly RetentionTask[]) {
  return defineJob({
    name: 'retention',
    payload: z.unknown(),
    cron: '30 3 * * *',
    queue: { retryLimit: 2, expireInSeconds: 3_600 },
    async handle(_payload, { logger }) {
      const report = await runRetention(tasks, logger);
      logger.info({ report }, 'retention run done');
    },
  });
}
