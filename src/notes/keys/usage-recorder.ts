import type { Db } from '../../platform/db/client.ts';
import { isDatabaseUnavailable } from '../../platform/db/unavailable.ts';
import type { Logger } from '../../platform/logger.ts';
import { addUsage } from './usage.repo.ts';

const DAY_MS = 86_400_000;
// Joins the parts of a count's key: none of them (key id, route pattern) can hold a NUL.
const SEPARATOR = '\u0000';

/**
 * Counts requests per key, UTC day, endpoint and status class in memory and writes them in one
 * statement every `intervalMs` (and at close), so counting adds no database write to a request.
 * A crash loses at most one interval of counts.
 */
export class UsageRecorder {
  private counts = new Map<string, number>();
  /** Key id → last use, ms since the epoch. */
  private lastUsed = new Map<string, number>();
  private dayStartMs = 0;
  private day = '';
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  private readonly db: Db;
  private readonly logger: Pick<Logger, 'error'>;

  constructor(db: Db, logger: Pick<Logger, 'error'>) {
    this.db = db;
    this.logger = logger;
  }

  record(keyId: string, endpoint: string, statusCode: number, now = Date.now()): void {
    // Runs on every Notes API request: a string key and a cached day instead of a Date, an ISO
    // string and JSON per request (3 % of the CPU of GET /notes/{id} under load, docs/benchmarks.md).
    if (now < this.dayStartMs || now >= this.dayStartMs + DAY_MS) {
      this.dayStartMs = now - (now % DAY_MS);
      this.day = new Date(this.dayStartMs).toISOString().slice(0, 10);
    }
    const cell = `${keyId}${SEPARATOR}${this.day}${SEPARATOR}${endpoint}${SEPARATOR}${Math.floor(statusCode / 100)}xx`;
    this.counts.set(cell, (this.counts.get(cell) ?? 0) + 1);
    const previous = this.lastUsed.get(keyId);
    if (previous === undefined || previous < now) this.lastUsed.set(keyId, now);
  }

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  /** Writes what has been counted so far; concurrent calls run one after the other. */
  flush(): Promise<void> {
    this.flushing = this.flushing
      .then(() => this.write())
      .catch((error) => {
        // The counts are kept for the next flush; an outage is logged once elsewhere, not per flush.
        if (!isDatabaseUnavailable(error)) this.logger.error({ err: error }, 'usage flush failed');
      });
    return this.flushing;
  }

  private async write(): Promise<void> {
    if (this.counts.size === 0) return;
    const counts = this.counts;
    const lastUsed = this.lastUsed;
    this.counts = new Map();
    this.lastUsed = new Map();
    try {
      await addUsage(
        [...counts].map(([cell, count]) => {
          const [keyId, day, endpoint, statusClass] = cell.split(SEPARATOR);
          return { keyId: keyId!, day: day!, endpoint: endpoint!, statusClass: statusClass!, count };
        }),
        [...lastUsed].map(([keyId, at]) => ({ keyId, at: new Date(at) })),
        this.db,
      );
    } catch (error) {
      // Put the counts back so the next flush retries them.
      for (const [cell, count] of counts) this.counts.set(cell, (this.counts.get(cell) ?? 0) + count);
      for (const [keyId, at] of lastUsed) {
        const current = this.lastUsed.get(keyId);
        if (!current || current < at) this.lastUsed.set(keyId, at);
      }
      throw error;
    }
  }
}
