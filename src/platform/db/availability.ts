import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../logger.ts';
import { isDatabaseUnavailable } from './unavailable.ts';

const PROBE_TIMEOUT_MS = 2_000;
const PROBE_INTERVAL_MS = 1_000;
const PROBE_INTERVAL_MAX_MS = 5_000;

/**
 * Whether the database answers, decided by probes rather than guessed from errors: an error that
 * looks like an outage (`suspect`) triggers one probe; a failed probe turns the state to down and
 * logs ONE warning, then probes back off until one succeeds and logs that the database is back.
 * During an outage every request still gets its own fast 503, but the log gets two lines, not one
 * stack per request; jobs wait here instead of burning their retries.
 */
export class DatabaseAvailability {
  private down = false;
  private downSince = 0;
  private probing: Promise<boolean> | undefined;
  private recovering: Promise<void> | undefined;
  private stopped = false;
  private readonly stopController = new AbortController();

  private readonly ping: () => Promise<void>;
  private readonly logger: Logger;

  constructor(ping: () => Promise<void>, logger: Logger) {
    this.ping = ping;
    this.logger = logger;
  }

  get isDown(): boolean {
    return this.down;
  }

  /**
   * Reports an error seen while using the database. True when it is an outage (the caller answers
   * 503 or waits); false for any other error, which is the caller's to handle as before.
   */
  suspect(error: unknown): boolean {
    if (!isDatabaseUnavailable(error)) return false;
    if (!this.down && !this.stopped) void this.probeOnce();
    return true;
  }

  /**
   * After an error that `suspect` called an outage: `up` when the database answers at once (it was
   * not an outage, or it is already over), `recovered` when it was down and came back within
   * `timeoutMs`, `down` when it is still down then (or `signal` aborted).
   */
  async waitUntilAvailable(timeoutMs: number, signal?: AbortSignal): Promise<'up' | 'recovered' | 'down'> {
    const deadline = Date.now() + timeoutMs;
    if (!this.down && (await this.probeOnce())) return 'up';
    while (this.down && !this.stopped && !signal?.aborted && Date.now() < deadline) {
      const pause = Math.min(PROBE_INTERVAL_MS, Math.max(0, deadline - Date.now()));
      await sleep(pause, undefined, { signal: this.stopController.signal }).catch(() => {});
    }
    return this.down ? 'down' : 'recovered';
  }

  stop(): void {
    this.stopped = true;
    this.stopController.abort();
  }

  /** One probe at a time; a failure starts the recovery loop. */
  private probeOnce(): Promise<boolean> {
    this.probing ??= this.probe().finally(() => {
      this.probing = undefined;
    });
    return this.probing;
  }

  private async probe(): Promise<boolean> {
    try {
      await withTimeout(this.ping(), PROBE_TIMEOUT_MS);
      return true;
    } catch (error) {
      this.markDown(error);
      return false;
    }
  }

  private markDown(error: unknown): void {
    if (this.down) return;
    this.down = true;
    this.downSince = Date.now();
    // Code and message of a failed `select 1`: no stack, no parameters.
    this.logger.warn({ cause: describe(error) }, 'database unreachable: requests answer 503 and jobs wait until it is back');
    this.recovering ??= this.recover().finally(() => {
      this.recovering = undefined;
    });
  }

  private async recover(): Promise<void> {
    let interval = PROBE_INTERVAL_MS;
    while (!this.stopped) {
      await sleep(interval, undefined, { signal: this.stopController.signal }).catch(() => {});
      if (this.stopped) return;
      try {
        await withTimeout(this.ping(), PROBE_TIMEOUT_MS);
        this.down = false;
        this.logger.warn({ outage_ms: Date.now() - this.downSince }, 'database reachable again');
        return;
      } catch {
        interval = Math.min(interval * 2, PROBE_INTERVAL_MAX_MS);
      }
    }
  }
}

function describe(error: unknown): { code?: string; message: string } {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return { ...(typeof code === 'string' ? { code } : {}), message: typeof message === 'string' ? message.slice(0, 200) : 'unknown' };
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(Object.assign(new Error('database probe timed out'), { code: 'ETIMEDOUT' })), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
