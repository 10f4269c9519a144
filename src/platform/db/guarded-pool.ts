import pg from 'pg';
import { DatabaseDownError, isDatabaseUnavailable } from './unavailable.ts';
import { withoutStatementName } from './unnamed-statements.ts';

// A pg Pool that never makes a request wait on a database already known to be unreachable, and
// never lets a connection fault reach the process as an unhandled 'error' event.
//
// Why: a black-holed network never answers, so a statement only fails when its query timeout
// (seconds) runs out, and every request would wait that long for its 503. Here every statement,
// checkout and statement on a checked-out client (drizzle's transactions) is tracked while pending:
// DatabaseAvailability watches how long the oldest has waited, probes when it is too long, and
// once the probe fails marks the pool down. From then on new work is refused at once and what was
// pending is failed at once, with DatabaseDownError (an outage: 503 + Retry-After).

interface Pending {
  readonly started: number;
  fail(): void;
}

/** What DatabaseAvailability sees of, and switches on, a networked pool. */
export interface PendingWork {
  /** How long the oldest statement or checkout still pending has waited, in ms (0 when none). */
  oldestPendingMs(): number;
  /** While down, work is refused at once; going down fails everything pending. */
  setDown(down: boolean): void;
  /** Tells `listener` of every connection the server or the network ended under the pool. */
  onFault(listener: (error: unknown) => void): void;
}

class Tracker implements PendingWork {
  private down = false;
  private faultListener: (error: unknown) => void = () => {};
  // A Set iterates in insertion order: its first entry is always the oldest still pending.
  private readonly pending = new Set<Pending>();

  oldestPendingMs(): number {
    for (const entry of this.pending) return performance.now() - entry.started;
    return 0;
  }

  onFault(listener: (error: unknown) => void): void {
    this.faultListener = listener;
  }

  fault(error: unknown): void {
    this.faultListener(error);
  }

  setDown(down: boolean): void {
    this.down = down;
    if (!down) return;
    for (const entry of [...this.pending]) entry.fail();
  }

  /**
   * Runs `start` unless the database is down; its result is dropped (and handed to `abandon`) if
   * the database goes down first, so the caller is answered at once.
   */
  run<T>(start: () => Promise<T>, abandon: (value: T) => void = () => {}): Promise<T> {
    if (this.down) return Promise.reject(new DatabaseDownError());
    return new Promise<T>((resolve, reject) => {
      const entry: Pending = {
        started: performance.now(),
        fail: () => {
          this.pending.delete(entry);
          reject(new DatabaseDownError());
        },
      };
      this.pending.add(entry);
      let started: Promise<T>;
      try {
        started = start();
      } catch (error) {
        // pg throws some argument errors synchronously: still answered, and no longer pending.
        this.pending.delete(entry);
        reject(error);
        return;
      }
      started.then(
        (value) => {
          if (this.pending.delete(entry)) resolve(value);
          else abandon(value);
        },
        (error: unknown) => {
          if (this.pending.delete(entry)) reject(error);
        },
      );
    });
  }
}

/** Calls with a callback or a stream (Submittable) are pg's internal or streaming paths: untracked. */
function isPromiseCall(args: unknown[]): boolean {
  const [first] = args;
  if (args.some((arg) => typeof arg === 'function')) return false;
  if (first && typeof first === 'object' && typeof (first as { submit?: unknown }).submit === 'function') return false;
  if (first && typeof first === 'object' && typeof (first as { callback?: unknown }).callback === 'function') return false;
  return true;
}

function clientClassFor(tracker: Tracker, unnamedStatements: boolean) {
  return class GuardedClient extends pg.Client {
    constructor(config?: pg.ClientConfig) {
      super(config);
      // pg-pool listens for errors only while a client is idle in the pool: a checked-out client
      // (inside a transaction) whose server ends it (25P03 idle-in-transaction timeout, 57P01
      // terminated) or whose socket resets would emit 'error' with nobody listening and take the
      // process down. The statement it runs, or the next one, fails with the error instead; the
      // fault is reported (a restarting server ends every connection: worth a probe at once).
      this.on('error', (error) => tracker.fault(error));
    }

    override query(...given: unknown[]): any {
      const run = super.query as (...args: unknown[]) => any;
      // Before the promise check: pg-pool's own pool.query() reaches the client with a callback.
      const args = unnamedStatements ? withoutStatementName(given) : given;
      if (!isPromiseCall(args)) return run.apply(this, args);
      return tracker
        .run(() => run.apply(this, args) as Promise<unknown>)
        .catch((error: unknown) => {
          // Abandoned, or timed out on the client: the connection's state is unknown (pg leaves a
          // timed-out statement active on it), so it is never used again. Ending it now makes the
          // caller's rollback fail at once instead of queueing behind that statement, and the pool
          // drops it when it is released.
          if (isDatabaseUnavailable(error)) void this.end().catch(() => {});
          throw error;
        });
    }
  };
}

export interface GuardedPoolConfig extends pg.PoolConfig {
  /** Run every statement unnamed (a transaction-mode pooler: `unnamed-statements.ts`). */
  unnamedStatements?: boolean;
}

export class GuardedPool extends pg.Pool {
  private readonly tracker: Tracker;

  constructor({ unnamedStatements = false, ...config }: GuardedPoolConfig) {
    const tracker = new Tracker();
    super({ ...config, Client: clientClassFor(tracker, unnamedStatements) as unknown as new () => pg.ClientBase });
    this.tracker = tracker;
    // pg-pool re-emits an idle client's error here; without a listener it would crash the process.
    this.on('error', (error) => tracker.fault(error));
  }

  get pendingWork(): PendingWork {
    return this.tracker;
  }

  override connect(...args: unknown[]): any {
    const connect = super.connect as (...args: unknown[]) => any;
    if (!isPromiseCall(args)) return connect.apply(this, args);
    // A checkout that arrives after its caller was answered goes straight back, and is closed.
    return this.tracker.run(
      () => connect.apply(this, args) as Promise<pg.PoolClient>,
      (client) => client.release(new Error('checked out after the database was marked down')),
    );
  }

  override query(...args: unknown[]): any {
    const query = super.query as (...args: unknown[]) => any;
    if (!isPromiseCall(args)) return query.apply(this, args);
    // The pool releases (and on a failure, closes) the client itself when the statement ends.
    return this.tracker.run(() => query.apply(this, args) as Promise<unknown>);
  }
}
