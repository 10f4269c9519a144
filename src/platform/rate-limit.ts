import rateLimit from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';
import { counterBatches } from './counter-batches.ts';
import type { Db } from './db/client.ts';
import { sql } from './db/drizzle.ts';
import { rateLimitCounters } from './db/schema/index.ts';
import { AppError } from './errors.ts';
import { toTimestamp } from './http/schemas.ts';
import type { AppInstance } from './http/types.ts';
import { markRateLimited } from './metrics/http.ts';

const WINDOW_MS = 60_000;

/** Who a request counts against, and how many requests per minute that caller gets. */
export interface RateLimitSubject {
  key: string;
  limitPerMinute: number;
  /** The caller's kind for metrics (`administrator`, `crm_key`): never the key itself. */
  role: string;
}

export interface RateLimitOptions {
  /** The subject of a request, or null to leave it unlimited (e.g. unauthenticated). */
  subjectOf(request: FastifyRequest): RateLimitSubject | null;
  /** Shared counter store; Postgres unless a Redis client is given. */
  db: Db;
  redis?: unknown;
}

/**
 * Per-minute fixed-window limits through @fastify/rate-limit, on every route of the calling scope
 * except those with `config: { rateLimit: false }`. Counters live in a store every app process
 * shares (Postgres, or Redis when configured), so N processes together admit the limit, not N×.
 * Headers follow the API description: X-RateLimit-{Limit,Remaining,Reset}-Minute, the reset as
 * Unix seconds, and Retry-After on 429.
 */
export async function registerRateLimit(app: AppInstance, options: RateLimitOptions) {
  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    timeWindow: WINDOW_MS,
    keyGenerator: (request) => options.subjectOf(request)?.key ?? 'unlimited',
    max: (request) => options.subjectOf(request)?.limitPerMinute ?? Number.MAX_SAFE_INTEGER,
    allowList: (request) => options.subjectOf(request) === null,
    ...(options.redis ? { redis: options.redis, nameSpace: 'vetflow-rl:' } : { store: postgresStore(options.db) }),
    errorResponseBuilder: (request, context) => {
      markRateLimited(request, options.subjectOf(request)?.role ?? 'unknown');
      const resetAt = new Date(Date.now() + context.ttl);
      return new AppError('RATE_LIMIT_EXCEEDED', `Rate limit of ${context.max} requests per minute exceeded; retry in ${context.after}`, {
        limit: context.max,
        remaining: 0,
        reset_at: toTimestamp(resetAt),
      });
    },
  });

  // Rename the plugin's headers to the documented ones (the reset becomes an absolute Unix time).
  app.addHook('onSend', (_request, reply, payload, done) => {
    const limit = reply.getHeader('x-ratelimit-limit');
    if (limit === undefined) return done(null, payload);
    const remaining = reply.getHeader('x-ratelimit-remaining');
    const resetInSeconds = Number(reply.getHeader('x-ratelimit-reset') ?? 0);
    reply.removeHeader('x-ratelimit-limit');
    reply.removeHeader('x-ratelimit-remaining');
    reply.removeHeader('x-ratelimit-reset');
    reply.header('X-RateLimit-Limit-Minute', String(limit));
    reply.header('X-RateLimit-Remaining-Minute', String(remaining ?? 0));
    reply.header('X-RateLimit-Reset-Minute', String(Math.floor(Date.now() / 1000) + resetInSeconds));
    done(null, payload);
  });
}

/** How many counts one counter statement takes for a key with this limit (see postgresStore). */
function leaseFor(limitPerWindow: number): number {
  return Math.min(100, Math.max(1, Math.floor(limitPerWindow / 100)));
}

interface StoreResult {
  current: number;
  ttl: number;
}

// A @fastify/rate-limit store over one upsert per burst or lease (see counterBatches). Windows are
// aligned to the clock (minute boundaries), so every process agrees on when a window starts and resets.
//
// Each statement takes at least 1 % of the limit (at most 100 counts): the process hands those
// counts to the key's next requests without a statement. Every count is in the shared store
// before a request is admitted, so N processes together never admit more than the limit; near
// the limit, counts another process leased and has not used yet may refuse a request early (at
// most 1.5 % of the limit per other process: the next lease is asked for before the last one is
// spent), and X-RateLimit-Remaining counts what this process has seen. A counter statement per
// request cost more than the contact upsert's own work under load (one hot row;
// bench/contacts-upsert.ts: 0.39x -> 0.5x the bare route without it).
//
// Every request of a key updates the same row, so requests queue on that row's lock for as long as
// each commit takes to reach disk. The counter's commit is made asynchronous (set_config(...,
// true) lasts only for this statement's transaction): a crash may forget the last few hundred
// milliseconds of counts, which a rate limit can afford, while everything else stays durable.
function postgresStore(db: Db) {
  const add = prepareCounterAdd(db, 'rate_limit_add');
  // A counter's slot is "<window start>:<key>".
  const windowOf = (slot: string) => Number(slot.slice(0, slot.indexOf(':')));
  const counters = counterBatches((slot, by) => add(slot.slice(slot.indexOf(':') + 1), windowOf(slot), by));
  let lastSweep = 0;

  return class PostgresRateLimitStore {
    incr(key: string, callback: (error: Error | null, result?: StoreResult) => void, timeWindow: number, max: number) {
      const now = Date.now();
      const windowStart = Math.floor(now / timeWindow) * timeWindow;
      if (now - lastSweep > timeWindow) {
        lastSweep = now;
        // Old windows are dead weight; one process sweeping now and then is enough.
        db.delete(rateLimitCounters)
          .where(sql`${rateLimitCounters.windowStart} < ${windowStart - 10 * timeWindow}`)
          .catch(() => {});
        counters.dropLeases((slot) => windowOf(slot) < windowStart);
      }
      counters.hit(`${windowStart}:${key}`, leaseFor(max), (error, count) => {
        if (error) callback(error);
        else callback(null, { current: count!, ttl: windowStart + timeWindow - now });
      });
    }

    child() {
      return this;
    }
  };
}

/**
 * Adds `by` to the counter of `key` in the window starting at `windowStart` and answers its new
 * total: one upsert of the shared counters table, prepared once per database as `name`.
 * set_config(..., true) in the inserted value makes this statement's own transaction commit
 * asynchronously (see postgresStore).
 */
function prepareCounterAdd(db: Db, name: string) {
  const statement = db
    .insert(rateLimitCounters)
    .values({
      key: sql`${sql.placeholder('key')}::text`,
      windowStart: sql`${sql.placeholder('windowStart')}::bigint`,
      count: sql`(select ${sql.placeholder('by')}::int from set_config('synchronous_commit', 'off', true))`,
    })
    .onConflictDoUpdate({
      target: [rateLimitCounters.key, rateLimitCounters.windowStart],
      set: { count: sql`${rateLimitCounters.count} + excluded.count` },
    })
    .returning({ count: rateLimitCounters.count })
    .prepare(name);
  return async (key: string, windowStart: number, by: number): Promise<number> => {
    const [row] = await statement.execute({ key, windowStart, by });
    return Number(row?.count ?? by);
  };
}

/**
 * A per-minute budget of items per caller, on top of the request limit: a batch request counts once
 * against the request limit and its items against this budget (docs/flow-sync.md). Counted in the
 * Postgres counters table (also when the request limit uses Redis), in the same clock-aligned
 * windows. `take` answers the X-RateLimit-Items-*-Minute headers to send, or throws 429
 * RATE_LIMIT_EXCEEDED (with them and Retry-After) and gives the items back when they do not fit.
 */
export function itemBudget(db: Db) {
  const add = prepareCounterAdd(db, 'item_budget_add');
  return async function take(key: string, items: number, limitPerMinute: number): Promise<Record<string, string>> {
    const now = Date.now();
    const windowStart = Math.floor(now / WINDOW_MS) * WINDOW_MS;
    const resetAt = windowStart + WINDOW_MS;
    const used = await add(key, windowStart, items);
    const headers = {
      'X-RateLimit-Items-Limit-Minute': String(limitPerMinute),
      'X-RateLimit-Items-Remaining-Minute': String(Math.max(0, limitPerMinute - Math.min(used, limitPerMinute))),
      'X-RateLimit-Items-Reset-Minute': String(Math.floor(resetAt / 1000)),
    };
    if (used <= limitPerMinute) return headers;
    const left = await add(key, windowStart, -items);
    throw new AppError(
      'RATE_LIMIT_EXCEEDED',
      `Item budget of ${limitPerMinute} per minute exceeded: ${items} items asked, ${Math.max(0, limitPerMinute - left)} left`,
      { limit: limitPerMinute, remaining: Math.max(0, limitPerMinute - left), reset_at: toTimestamp(new Date(resetAt)) },
      {
        ...headers,
        'X-RateLimit-Items-Remaining-Minute': String(Math.max(0, limitPerMinute - left)),
        'retry-after': String(Math.max(1, Math.ceil((resetAt - now) / 1000))),
      },
    );
  };
}
