import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../logger.ts';
import type { DatabaseLink } from './client.ts';
import { isDatabaseUnavailable } from './unavailable.ts';
import { within } from './within.ts';

// Deciding that the database is down: a probe that gets no answer within this long. Short, because
// requests wait meanwhile; it is one round trip on a kept connection (probe-connection.ts).
const DETECT_PROBE_TIMEOUT_MS = 1_000;
// Deciding that it is back: connecting afresh may take longer (TLS, a distant server), and a probe
// too impatient to ever succeed would keep a healthy database marked down.
const RECOVERY_PROBE_TIMEOUT_MS = 3_000;
const EMBEDDED_PROBE_TIMEOUT_MS = 2_000;
const PROBE_INTERVAL_MS = 1_000;
const PROBE_INTERVAL_MAX_MS = 2_000;
// A black hole raises no error: statements just stop answering. When the oldest pending one has
// waited this long, a probe asks the database directly (at most once per PROBE_INTERVAL_MS).
const SUSPECT_PENDING_MS = 500;
const WATCH_INTERVAL_MS = 250;

/**
 * Whether the database answers, decided by probes rather than guessed from errors: an error that
 * looks like an outage (`suspect`), or on a networked database a statement pending for too long,
 * triggers one probe; a failed probe turns the state to down and logs ONE warning, then probes
 * back off until one succeeds and logs that the database is back. While down, the pool refuses
 * work at once and fails what was pending (a circuit breaker: guarded-pool.ts), so every request
 * gets its 503 in milliseconds rather than after a query timeout, and the log gets two lines, not
 * one stack per request; jobs wait here instead of burning their retries.
 */
export class DatabaseAvailability {
  private down = false;
  private downSince = 0;
  private lastProbeAt = 0;
  private probing: Promise<boolean> | undefined;
  private recovering: Promise<void> | undefined;
  private stopped = false;
  private readonly stopController = new AbortController();
  private readonly watch: NodeJS.Timeout | undefined;

  private readonly ping: () => Promise<void>;
  private readonly logger: Logger;
  private readonly link: DatabaseLink | undefined;

  constructor(ping: () => Promise<void>, logger: Logger, link?: DatabaseLink) {
    this.ping = ping;
    this.logger = logger;
    this.link = link;
    if (link) {
      // A connection ended under the pool (a server restarting ends them all): probe now.
      link.onFault((error) => this.suspect(error));
      this.watch = setInterval(() => this.watchPending(link), WATCH_INTERVAL_MS).unref();
      // Opens the probe's own connection now, so the first real probe is a single round trip.
      void this.probeOnce();
    }
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
    clearInterval(this.watch);
    this.stopController.abort();
  }

  private watchPending(link: DatabaseLink): void {
    if (this.down || this.stopped || this.probing) return;
    if (link.oldestPendingMs() < SUSPECT_PENDING_MS || Date.now() - this.lastProbeAt < PROBE_INTERVAL_MS) return;
    void this.probeOnce();
  }

  /** One probe at a time; a failure starts the recovery loop. */
  private probeOnce(): Promise<boolean> {
    this.probing ??= this.probe().finally(() => {
      this.probing = undefined;
    });
    return this.probing;
  }

  private async probe(): Promise<boolean> {
    this.lastProbeAt = Date.now();
    try {
      await this.answers(DETECT_PROBE_TIMEOUT_MS);
      return true;
    } catch (error) {
      this.markDown(error);
      return false;
    }
  }

  private answers(timeoutMs: number): Promise<void> {
    // The embedded database has no network to lose: only a busy single connection to wait for.
    if (!this.link) return within(this.ping(), EMBEDDED_PROBE_TIMEOUT_MS, 'database probe timed out');
    // The link's probe bounds itself; this only backstops it.
    return within(this.link.probe(timeoutMs), timeoutMs + 500, 'database probe timed out');
  }

  private markDown(error: unknown): void {
    if (this.down || this.stopped) return;
    this.down = true;
    this.downSince = Date.now();
    // Requests and jobs waiting on the pool get their answer now, not at their query timeout.
    this.link?.setDown(true);
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
        await this.answers(RECOVERY_PROBE_TIMEOUT_MS);
        this.link?.setDown(false);
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
