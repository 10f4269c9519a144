import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Redis } from 'ioredis';
import type { Config } from '../config.ts';
import type { DatabaseAvailability } from '../db/availability.ts';
import type { Database } from '../db/client.ts';
import type { JobQueue } from '../jobs.ts';
import type { MetricsServer } from '../metrics/start.ts';
import type { RouteAccess } from './route-access.ts';

/** What every route and plugin can reach: configuration, the database and the job queue. */
export interface Platform {
  readonly config: Config;
  readonly database: Database;
  readonly jobs: JobQueue;
  /** Shared counters (rate limits) when REDIS_URL is set; Postgres serves otherwise. */
  readonly redis: Redis | undefined;
  /** Whether the database answers; outages are logged once per transition and answered 503. */
  readonly availability: DatabaseAvailability;
  /** Set on SIGTERM: /readyz fails so load balancers stop sending, while requests are still served. */
  draining: boolean;
  /** Every route the app registered, with its config and access: the start-up check and the shared suites read it. */
  readonly routes: RouteRecord[];
  /** The `/metrics` listener when METRICS_PORT is set (its port: 0 in the config picks a free one). */
  metrics: MetricsServer | undefined;
}

export interface RouteRecord {
  readonly method: string;
  readonly url: string;
  readonly config: Record<string, unknown>;
  /** What the route demands of its caller (`config.access`); undefined only until start-up refuses it. */
  readonly access: RouteAccess | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    vetflow: Platform;
  }
}

export type AppInstance = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;
