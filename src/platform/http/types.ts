import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import type { JobQueue } from '../jobs.ts';

/** What every route and plugin can reach: configuration, the database and the job queue. */
export interface Platform {
  readonly config: Config;
  readonly database: Database;
  readonly jobs: JobQueue;
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
