import {
  type DrizzleTransactionLike,
  fromDrizzle,
  type JobResult,
  type JobWithMetadata,
  PgBoss,
  type Queue,
  type SendOptions,
  type WorkOptions,
} from 'pg-boss';
import type { z } from 'zod';
import type { Config } from './config.ts';
import type { DatabaseAvailability } from './db/availability.ts';
import type { Database, Db } from './db/client.ts';
import { sql } from './db/drizzle.ts';
import { backOffBeyondShare, type FairShares, fairPriority } from './fair-shares.ts';
import type { Logger } from './logger.ts';
import { jobDuration, jobQueueWait } from './metrics/jobs.ts';
import { secondsSince } from './metrics/registry.ts';
import { tracing } from './tracing/tracing.ts';

/**
 * A background job: its queue name, payload schema, retry policy and handler, in one place.
 * Every queue gets a dead-letter queue `<name>.dead` where jobs land after their last retry.
 */
export interface JobDefinition<Payload = unknown> {
  readonly name: string;
  readonly payload: z.ZodType<Payload>;
  readonly queue?: Omit<Queue, 'name' | 'deadLetter' | 'notify'>;
  /**
   * How this process runs the queue: `localConcurrency` handlers at once; with
   * `localGroupConcurrency`, at most that many of them on jobs of one group (the `group` a job is
   * sent with): a group at its share is left out of the fetch, so other groups' jobs are taken first.
   */
  readonly work?: Pick<WorkOptions, 'batchSize' | 'localConcurrency' | 'localGroupConcurrency'>;
  /**
   * Fair shares between the groups its jobs are sent with (fair-shares.ts): each job is sent with
   * its group (`group: { id }`) and waits its group's turn; at most `maxPerGroup` of a group run at
   * once across every process. The queue then runs `work.localConcurrency` handlers, each fetching
   * one job as soon as it is free (a batch would wait for its slowest job before the next turn).
   */
  readonly shares?: FairShares;
  /** Cron expression: the job also runs on this schedule (in worker processes). */
  readonly cron?: string;
  handle(payload: Payload, context: JobContext): Promise<void>;
}

export interface JobContext {
  readonly jobId: string;
  /** Retries so far (0 on the first attempt) and how many the queue allows. */
  readonly retryCount: number;
  readonly retryLimit: number;
  readonly logger: Logger;
  readonly signal: AbortSignal;
}

export function defineJob<Payload>(definition: JobDefinition<Payload>): JobDefinition<Payload> {
  return definition;
}

// Defaults chosen for work that calls remote providers: a few retries with exponential
// backoff, and a job that stops reporting for 15 minutes is handed to another worker.
const DEFAULT_QUEUE: Omit<Queue, 'name'> = {
  retryLimit: 3,
  retryDelay: 5,
  retryBackoff: true,
  retryDelayMax: 300,
  expireInSeconds: 900,
  deleteAfterSeconds: 7 * 24 * 3600,
};

/** The payload field that carries the sender's trace context (W3C traceparent) when tracing is on. */
const TRACE_FIELD = '_trace';

// Bounds the waiting loop should a database flap for the whole life of a job.
const MAX_OUTAGE_RERUNS = 10;

export interface SendJobOptions extends Omit<SendOptions, 'db' | 'priority'> {
  /** The transaction creating the job's data: the job exists only if it commits. */
  tx?: Db;
  /** On a queue with fair shares: ahead of its group's other waiting jobs (a live capture's). */
  ahead?: boolean;
}

export class JobQueue {
  readonly boss: PgBoss;
  private readonly definitions = new Map<string, JobDefinition<any>>();
  private readonly logger: Logger;
  private readonly availability: DatabaseAvailability | undefined;
  private readonly pollingIntervalSeconds: number;
  private readonly db: Db;
  private started = false;
  private working = false;

  constructor(
    database: Database,
    config: Pick<Config, 'ROLE' | 'JOB_POLLING_INTERVAL_SECONDS' | 'JOB_SUPERVISE_INTERVAL_SECONDS'>,
    logger: Logger,
    availability?: DatabaseAvailability,
  ) {
    this.availability = availability;
    this.db = database.db;
    this.logger = logger.child({ component: 'jobs' });
    this.pollingIntervalSeconds = config.JOB_POLLING_INTERVAL_SECONDS;
    const isWorker = config.ROLE !== 'api';
    this.boss = new PgBoss({
      // Workers wake on NOTIFY instead of waiting out the poll (~4 ms from send to handler, against
      // ~1.5 s of polling: docs/benchmarks.md), unless the database says it cannot carry LISTEN
      // (a transaction-mode pooler: client.ts).
      useListenNotify: true,
      ...database.bossOptions,
      // An API-only process publishes jobs; supervision and cron belong to the workers.
      supervise: isWorker,
      schedule: isWorker,
      superviseIntervalSeconds: config.JOB_SUPERVISE_INTERVAL_SECONDS,
      monitorIntervalSeconds: config.JOB_SUPERVISE_INTERVAL_SECONDS,
    });
    this.boss.on('error', (error) => {
      // Every poll fails while the database is away: the outage is logged once, not per poll.
      if (this.availability?.suspect(error)) return;
      this.logger.error({ err: error }, 'job queue error');
    });
  }

  /**
   * Adds a job definition: the composition root creates the queue first, then each module
   * registers its jobs, then `start()` creates their queues. Returns the definition, so a module
   * keeps what it sends.
   */
  register<Payload>(definition: JobDefinition<Payload>): JobDefinition<Payload> {
    if (this.started) throw new Error(`job ${definition.name} registered after the queue started`);
    if (this.definitions.has(definition.name)) throw new Error(`job ${definition.name} registered twice`);
    this.definitions.set(definition.name, definition);
    return definition;
  }

  /** The registered definition of queue `name` (tests send it to run the app's own handler). */
  definition(name: string): JobDefinition<unknown> {
    const definition = this.definitions.get(name);
    if (!definition) throw new Error(`job ${name} is not registered`);
    return definition;
  }

  /** Installs or upgrades pg-boss's schema and creates every queue with its dead-letter queue. */
  async start(): Promise<void> {
    if (this.started) return;
    await this.boss.start();
    this.started = true;
    for (const definition of this.definitions.values()) {
      const deadLetter = `${definition.name}.dead`;
      await this.ensureQueue(deadLetter, { ...DEFAULT_QUEUE, retryLimit: 0 });
      await this.ensureQueue(definition.name, { ...DEFAULT_QUEUE, ...definition.queue, deadLetter, notify: true });
    }
    // pg-boss resolves a queue through an in-process cache filled at start, before these queues
    // existed. A send inside a caller's transaction would then look the queue up on another
    // connection, which on the single-connection embedded database waits for that very
    // transaction: a deadlock. A harmless settle call warms the cache now, outside any transaction.
    for (const definition of this.definitions.values()) {
      await this.boss.deleteJob(definition.name, '00000000-0000-4000-8000-000000000000');
    }
    // Fresh queues leave the planner with stale statistics, and pg-boss's fetch then scans the
    // whole job table (measured 20x slower without it: docs/architecture.md).
    await this.boss.getDb().executeSql('ANALYZE pgboss.job_common');
  }

  private async ensureQueue(name: string, requested: Omit<Queue, 'name'>): Promise<void> {
    // pg-boss refuses a maximum backoff delay on a queue that does not back off.
    const { retryDelayMax, ...rest } = requested;
    const options = requested.retryBackoff ? requested : rest;
    const existing = await this.boss.getQueue(name);
    if (!existing) {
      await this.boss.createQueue(name, options);
      return;
    }
    // Dead letter, partitioning, policy and heartbeat are fixed at creation; the rest follows the code.
    const { deadLetter: _deadLetter, heartbeatSeconds: _hb, policy: _p, partition: _part, ...updatable } = rest;
    await this.boss.updateQueue(name, updatable);
  }

  /** The name of every queue this process defines (metrics read their statistics). */
  get queueNames(): string[] {
    return [...this.definitions.keys()];
  }

  /** Starts handlers for every queue in this process (ROLE=worker or all). */
  async startWorkers(): Promise<void> {
    if (this.working) return;
    this.working = true;
    for (const definition of this.definitions.values()) {
      if (definition.shares) {
        await this.startFairWorkers(definition, definition.shares);
        continue;
      }
      const batchSize = definition.work?.batchSize ?? 1;
      await this.boss.work<unknown>(
        definition.name,
        {
          includeMetadata: true,
          perJobResults: true,
          batchSize,
          // A full batch means more is waiting: fetch again at once instead of after the poll
          // interval, so a backlog drains at the handlers' speed.
          burstWhenBatchFull: batchSize > 1,
          pollingIntervalSeconds: this.pollingIntervalSeconds,
          // NOTIFY wakes workers for new jobs; retries only surface through this slower poll.
          notifyPollingIntervalSeconds: this.pollingIntervalSeconds * 2,
          localConcurrency: definition.work?.localConcurrency ?? 1,
          ...(definition.work?.localGroupConcurrency === undefined ? {} : { localGroupConcurrency: definition.work.localGroupConcurrency }),
        },
        // includeMetadata is set above, so every job carries its retry counters.
        (jobs) => this.runBatch(definition, jobs as JobWithMetadata<unknown>[]),
      );
      if (definition.cron) await this.boss.schedule(definition.name, definition.cron, {});
    }
  }

  /**
   * A queue with fair shares: `localConcurrency` handlers, each fetching one job at a time, with
   * pg-boss's cluster-wide group limit. A handler that ends wakes its own fetcher at once: pg-boss
   * would otherwise sleep out the poll before the next job whenever a job took less than the poll
   * interval, which would idle the slots of a backlog.
   */
  private async startFairWorkers(definition: JobDefinition<any>, shares: FairShares): Promise<void> {
    for (let slot = 0; slot < (definition.work?.localConcurrency ?? 1); slot++) {
      let workerId = '';
      workerId = await this.boss.work<unknown>(
        definition.name,
        {
          includeMetadata: true,
          perJobResults: true,
          batchSize: 1,
          pollingIntervalSeconds: this.pollingIntervalSeconds,
          notifyPollingIntervalSeconds: this.pollingIntervalSeconds * 2,
          localConcurrency: 1,
          groupConcurrency: shares.maxPerGroup,
        },
        async (jobs) => {
          try {
            return await this.runBatch(definition, jobs as JobWithMetadata<unknown>[]);
          } finally {
            if (workerId) this.boss.notifyWorker(workerId);
          }
        },
      );
    }
  }

  /** Runs a batch's jobs side by side; each job succeeds or fails (and is retried) on its own. */
  private async runBatch(definition: JobDefinition<any>, jobs: JobWithMetadata<unknown>[]): Promise<JobResult[]> {
    return Promise.all(
      jobs.map(async (job): Promise<JobResult> => {
        const logger = this.logger.child({ job: definition.name, jobId: job.id });
        const started = performance.now();
        const queue = definition.name;
        // Waiting counts from when the job was due: a retry's back-off is not waiting.
        const due = Math.max(job.createdOn.getTime(), job.startAfter.getTime());
        jobQueueWait.observe({ queue }, Math.max(0, job.startedOn.getTime() - due) / 1000);
        try {
          if (definition.shares && job.groupId && (await backOffBeyondShare(queue, job.groupId, job, definition.shares, this.db))) {
            // Given back: pg-boss's settle of this attempt finds it no longer active and leaves it alone.
            logger.debug({ group: job.groupId }, 'job given back: its group had its share running');
            return { id: job.id, status: 'completed' };
          }
          const payload = definition.payload.parse(job.data);
          const context = { jobId: job.id, retryCount: job.retryCount, retryLimit: job.retryLimit, logger, signal: job.signal };
          const run = () => this.handleThroughOutages(definition, payload, context, job.expireInSeconds);
          const traced = tracing();
          await (traced ? traced.inJobSpan(queue, job.id, (job.data as { [TRACE_FIELD]?: unknown } | null)?.[TRACE_FIELD], run) : run());
          logger.debug({ ms: Math.round(performance.now() - started) }, 'job done');
          jobDuration.observe({ queue, outcome: 'completed' }, secondsSince(started));
          return { id: job.id, status: 'completed' };
        } catch (error) {
          jobDuration.observe({ queue, outcome: 'failed' }, secondsSince(started));
          logger.warn({ err: error, ms: Math.round(performance.now() - started) }, 'job failed');
          const message = error instanceof Error ? error.message : String(error);
          return { id: job.id, status: 'failed', output: { message } };
        }
      }),
    );
  }

  /**
   * Runs the handler; when it fails because the database is away, waits for the database (within
   * the job's expiry) and runs it again, so an outage does not burn the job's retries (pg-boss
   * would count every failed attempt, and a few seconds of outage would exhaust them). Handlers
   * are already safe to re-run: pg-boss retries them.
   */
  private async handleThroughOutages(
    definition: JobDefinition<any>,
    payload: unknown,
    context: JobContext,
    expireInSeconds: number,
  ): Promise<void> {
    const deadline = Date.now() + Math.max(1, expireInSeconds - 5) * 1000;
    let blipRerun = false;
    for (let rerun = 0; ; rerun++) {
      try {
        await definition.handle(payload, context);
        return;
      } catch (error) {
        if (!this.availability?.suspect(error) || rerun >= MAX_OUTAGE_RERUNS) throw error;
        const state = await this.availability.waitUntilAvailable(deadline - Date.now(), context.signal);
        if (state === 'down') throw error;
        // `up`: the database answers already. Either a blip (a restart) ended before the probe, or
        // the error only looked like an outage: one more run, then it is an ordinary failure.
        if (state === 'up') {
          if (blipRerun) throw error;
          blipRerun = true;
        }
        context.logger.info({ rerun: rerun + 1 }, 'job re-run after the database came back');
      }
    }
  }

  /** Sends a job; with `tx`, inside that transaction so it exists only if the transaction commits. */
  async send<Payload>(definition: JobDefinition<Payload>, payload: Payload, options: SendJobOptions = {}): Promise<string | null> {
    if (!this.definitions.has(definition.name)) throw new Error(`job ${definition.name} is not registered`);
    const { tx, ahead, ...rest } = options;
    const parsed = definition.payload.parse(payload) as object;
    const sendOptions: SendOptions = { ...rest };
    if (definition.shares) {
      const group = rest.group?.id;
      if (!group) throw new Error(`job ${definition.name} has fair shares: send it with its group`);
      sendOptions.priority = await fairPriority(definition.name, group, ahead === true, tx ?? this.db);
    }
    // With tracing on, the sender's trace context travels with the job (payload schemas drop it).
    const carrier = tracing()?.carrier();
    const data = carrier ? { ...parsed, [TRACE_FIELD]: carrier } : parsed;
    return this.boss.send(
      definition.name,
      data,
      tx ? { ...sendOptions, db: fromDrizzle(tx as unknown as DrizzleTransactionLike, sql) } : sendOptions,
    );
  }

  async ping(): Promise<void> {
    await this.boss.getDb().executeSql('select 1 from pgboss.version');
  }

  async stop(timeoutMs: number): Promise<void> {
    if (!this.started) return;
    this.started = false;
    // Graceful: in-flight handlers get `timeoutMs` to finish before their jobs are released.
    await this.boss.stop({ graceful: true, close: true, timeout: timeoutMs });
  }
}
