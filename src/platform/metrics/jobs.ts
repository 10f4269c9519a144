import type { PgBoss } from 'pg-boss';
import type { Logger } from '../logger.ts';
import { oldestWaitingSeconds } from './queue-stats.repo.ts';
import { FAST_BUCKETS, gauge, histogram, SLOW_BUCKETS } from './registry.ts';

// Job queues. Wait and run times are measured by the process that runs the job; depth, age and
// dead letters come from the database (pg-boss's queue statistics, refreshed by its monitor in
// worker processes) and are read on an interval, never per scrape: every process reports the same
// figures for them (docs/operations.md: take max, never sum).

export const jobQueueWait = histogram(
  'vetflow_job_queue_wait_seconds',
  'From when a job was due to when a worker started it, by queue.',
  [0.01, 0.05, 0.1, 0.5, ...SLOW_BUCKETS],
  ['queue'],
);
export const jobDuration = histogram(
  'vetflow_job_duration_seconds',
  'Job handler runs, by queue and outcome.',
  [...FAST_BUCKETS, 300, 900],
  ['queue', 'outcome'],
);

const queueDepth = gauge('vetflow_job_queue_depth', 'Jobs due and waiting for a worker, by queue (database-wide).', ['queue']);
const queueDeferred = gauge(
  'vetflow_job_queue_deferred',
  'Jobs scheduled for later (retries, webhook back-offs), by queue (database-wide).',
  ['queue'],
);
const queueActive = gauge('vetflow_job_queue_active', 'Jobs being worked on, by queue (database-wide).', ['queue']);
const oldestWaiting = gauge(
  'vetflow_job_queue_oldest_waiting_seconds',
  'Age of the oldest due job still waiting, by queue (database-wide).',
  ['queue'],
);
const deadLettered = gauge(
  'vetflow_job_dead_letter_depth',
  "Jobs in a queue's dead-letter queue after their last retry, by queue (database-wide).",
  ['queue'],
);
const statsAge = gauge('vetflow_job_queue_stats_timestamp_seconds', 'When the queue figures above were last read (Unix seconds).');

const DEAD_SUFFIX = '.dead';

/** Reads the queue figures now (one query for pg-boss's statistics, one for the ages). */
export async function refreshQueueStats(boss: PgBoss, queues: readonly string[]): Promise<void> {
  const rows = await boss.getQueues();
  const byName = new Map(rows.map((row) => [row.name, row]));
  const ages = await oldestWaitingSeconds(boss.getDb());
  for (const queue of queues) {
    const row = byName.get(queue);
    queueDepth.set({ queue }, row?.readyCount ?? 0);
    queueDeferred.set({ queue }, row?.deferredCount ?? 0);
    queueActive.set({ queue }, row?.activeCount ?? 0);
    oldestWaiting.set({ queue }, ages.get(queue) ?? 0);
    deadLettered.set({ queue }, byName.get(`${queue}${DEAD_SUFFIX}`)?.queuedCount ?? 0);
  }
  statsAge.set(Date.now() / 1000);
}

/** Refreshes the queue figures every `intervalSeconds` until the returned stop is called. */
export function pollQueueStats(boss: PgBoss, queues: readonly string[], intervalSeconds: number, logger: Logger): () => void {
  let failedBefore = false;
  const refresh = () =>
    refreshQueueStats(boss, queues).then(
      () => {
        failedBefore = false;
      },
      (error) => {
        // Once per failing stretch: a database outage is logged by DatabaseAvailability already.
        if (!failedBefore) logger.warn({ err: error }, 'could not read the job queue statistics');
        failedBefore = true;
      },
    );
  void refresh();
  const timer = setInterval(refresh, intervalSeconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}
