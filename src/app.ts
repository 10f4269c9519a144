import Fastify, { type FastifyBaseLogger } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { flowApi, flowApiDescription } from './flow/flow.api.ts';
import { createFlowModule } from './flow/flow.module.ts';
import type { CrmLinkService } from './flow/messages/crm-link.service.ts';
import type { CrmLink } from './notes/crm-link.ts';
import { notesApi, notesApiDescription } from './notes/notes.api.ts';
import { createNotesModule, type NotesProviders } from './notes/notes.module.ts';
import type { Config } from './platform/config.ts';
import { DatabaseAvailability } from './platform/db/availability.ts';
import { type Database, openDatabase } from './platform/db/client.ts';
import { runMigrations } from './platform/db/migrate.ts';
import { AppError } from './platform/errors.ts';
import { clientErrorHandler } from './platform/http/client-errors.ts';
import { handleFrameworkError, registerErrorHandling } from './platform/http/error-handler.ts';
import { healthRoutes } from './platform/http/health.routes.ts';
import { registerInputBoundary } from './platform/http/input-boundary.ts';
import { registerLingeringClose } from './platform/http/lingering-close.ts';
import { registerOpenApi } from './platform/http/openapi.ts';
import { requestIdFrom } from './platform/http/request-id.ts';
import { RequestLogController } from './platform/http/request-log.ts';
import { registerRouteRegistry } from './platform/http/route-registry.ts';
import type { AppInstance, Platform } from './platform/http/types.ts';
import { warnOnUntrustedProxy } from './platform/http/untrusted-proxy.ts';
import { type JobDefinition, JobQueue } from './platform/jobs.ts';
import { createLogger, type Logger } from './platform/logger.ts';
import { registerHttpMetrics } from './platform/metrics/http.ts';
import { startMetrics } from './platform/metrics/start.ts';
import { retentionJob } from './platform/retention.ts';
import { tracing } from './platform/tracing/tracing.ts';
import { configuredAdapters } from './providers/adapters.ts';
import type { MessagingProvider } from './providers/messaging/port.ts';
import { retentionTasks } from './retention.ts';

export interface AppOverrides {
  /** An already open (and migrated) database; the caller keeps ownership and closes it. */
  database?: Database;
  logger?: Logger;
  /** Extra job definitions, registered next to the features' own (used by tests). */
  jobs?: readonly JobDefinition<any>[];
  /** Transcription and sectioning providers instead of the configured ones. */
  notesProviders?: NotesProviders;
  /** The CRM messaging provider (survey messages) instead of the configured one. */
  messagingProvider?: MessagingProvider;
}

export type { AppInstance };

/**
 * Builds the whole service: database (opened and migrated unless given), job queue (started as a
 * publisher; workers start separately with `app.vetflow.jobs.startWorkers()`), both API trees,
 * OpenAPI documents and health routes. `app.close()` releases everything it opened.
 */
export async function buildApp(config: Config, overrides: AppOverrides = {}): Promise<AppInstance> {
  const logger = overrides.logger ?? createLogger(config);
  const ownsDatabase = overrides.database === undefined;
  const database = overrides.database ?? (await openDatabase(config));
  const availability = new DatabaseAvailability(() => database.ping(), logger.child({ component: 'database' }), database.link);
  // The composition root: the job queue first, then each tree registers its jobs on it and binds
  // its services once, then the queue starts with every queue known.
  const jobs = new JobQueue(database, config, logger, availability);
  // Every port's adapter is chosen in one place (providers/adapters.ts); tests may swap some.
  const adapters = configuredAdapters(config, logger);
  const providers = overrides.notesProviders ? { drafter: null, ...overrides.notesProviders } : adapters;
  // The CRM tree first: the Notes tree sends owner summaries through its side of a clinic's link.
  const flowModule = createFlowModule(config, database, jobs, overrides.messagingProvider ?? adapters.messaging);
  const notesModule = createNotesModule(config, database, jobs, logger, {
    ...providers,
    storage: adapters.storage,
    grounding: adapters.grounding,
    crmLink: notesCrmLink(flowModule.services.crmLink),
  });
  // What both trees and the platform keep only for a while, pruned daily (docs/privacy.md).
  jobs.register(retentionJob(retentionTasks(config, database, adapters.storage)));
  for (const definition of overrides.jobs ?? []) jobs.register(definition);
  try {
    if (config.MIGRATE_ON_START) await runMigrations(database);
    await jobs.start();
    // Audio a killed process left in DATA_DIR/tmp: swept now and hourly (notes/processing/temp-dir.ts).
    await notesModule.tempFiles.start();
  } catch (error) {
    notesModule.tempFiles.stop();
    availability.stop();
    await jobs.stop(1_000).catch(() => {});
    if (ownsDatabase) await database.close().catch(() => {});
    throw error;
  }

  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    genReqId: requestIdFrom,
    requestIdHeader: false,
    logController: new RequestLogController({ requestIdLogLabel: 'request_id' }, logger),
    // A hop count is valid at runtime (proxy-addr) though Fastify's types only list the other forms.
    trustProxy: config.TRUST_PROXY as boolean | string[],
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    connectionTimeout: config.CONNECTION_TIMEOUT_MS,
    keepAliveTimeout: config.KEEP_ALIVE_TIMEOUT_MS,
    bodyLimit: config.BODY_LIMIT_BYTES,
    // Requests that arrive while closing get our 503 (below), not Fastify's own body.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // What Fastify and Node answer on their own (bad URLs, over-long parameters, oversize headers,
    // requests that are not HTTP) still comes in the one documented error body.
    frameworkErrors: handleFrameworkError,
    clientErrorHandler: clientErrorHandler(logger as FastifyBaseLogger),
  }).withTypeProvider<ZodTypeProvider>();

  // Commands queue while Redis is unreachable instead of failing the request at once. ioredis is
  // loaded only when configured (~20 MB of RSS otherwise idle; docs/benchmarks.md).
  const redis = config.REDIS_URL
    ? new (await import('ioredis')).Redis(config.REDIS_URL, { maxRetriesPerRequest: 2, enableOfflineQueue: true })
    : undefined;
  redis?.on('error', (error) => logger.warn({ err: error }, 'redis error'));
  const platform: Platform = { config, database, jobs, redis, availability, draining: false, routes: [], metrics: undefined };
  app.decorate('vetflow', platform);
  registerRouteRegistry(app, platform);
  // First hooks of every request, whoever answers it (guards, the input boundary, 404s).
  if (config.METRICS_PORT !== undefined) {
    registerHttpMetrics(app, [
      { name: 'notes', prefix: notesApiDescription.prefix },
      { name: 'flow', prefix: flowApiDescription.prefix },
    ]);
  }
  const traced = tracing();
  if (traced) {
    app.addHook('onRequest', (request, _reply, done) => {
      if (request.routeOptions.url) traced.nameRequest(request.method, request.routeOptions.url);
      done();
    });
  }
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // JSON is the only body type the APIs take (multipart uploads register their own parser).
  app.removeContentTypeParser('text/plain');
  registerErrorHandling(app, availability);
  // An answer sent before its request's body has all arrived (a 413, say) still reaches the client.
  registerLingeringClose(app);
  registerInputBoundary(app);
  warnOnUntrustedProxy(app, config.TRUST_PROXY);
  // While closing, responses ask clients to drop the connection: a keep-alive socket that goes
  // idle after its last in-flight response would otherwise hold shutdown for the keep-alive timeout.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Callback hooks on the path of every request: an async hook costs a promise each.
  app.addHook('onRequest', (_request, _reply, done) => {
    // New work goes to another instance; in-flight requests still finish.
    if (closing)
      return done(new AppError('SERVICE_UNAVAILABLE', 'The instance is shutting down; retry', undefined, { 'retry-after': '1' }));
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  app.addHook('onClose', async () => {
    // Fastify has stopped accepting and drained in-flight requests by now; then workers, then the pool.
    notesModule.tempFiles.stop();
    await platform.metrics?.close();
    await platform.jobs.stop(Math.max(1_000, config.SHUTDOWN_TIMEOUT_MS - 2_000));
    availability.stop();
    await redis?.quit().catch(() => {});
    if (ownsDatabase) await database.close();
  });

  await app.register(healthRoutes);
  if (config.ROLE !== 'worker') {
    await registerOpenApi(app, [notesApiDescription, flowApiDescription], config.PUBLIC_BASE_URL);
    await app.register(notesApi, { prefix: notesApiDescription.prefix, module: notesModule });
    await app.register(flowApi, { prefix: flowApiDescription.prefix, module: flowModule });
  }
  if (config.METRICS_PORT !== undefined) {
    try {
      platform.metrics = await startMetrics(config, { database, boss: jobs.boss, queues: jobs.queueNames, logger });
    } catch (error) {
      // METRICS_PORT taken, say: release what was opened before refusing to start.
      await app.close().catch(() => {});
      throw error;
    }
  }
  return app;
}

/**
 * The Notes tree's CRM link port over the CRM tree's service: a token becomes the key it names on
 * each send (a revoked key sends nothing: null), and the queued message is reduced to its ids.
 */
function notesCrmLink(crm: CrmLinkService): CrmLink {
  return {
    describeKey: (token) => crm.describeKey(token),
    async sendToTutor(token, recipient, message, idempotencyKey, origin) {
      const key = await crm.describeKey(token);
      if (!key) return null;
      const queued = await crm.sendToTutor(key, recipient, message, idempotencyKey, origin);
      return { id: queued.body.id, contactId: queued.body.contact_id, chatId: queued.body.chat_id, replayed: queued.replayed };
    },
    messageStatus: (messageId) => crm.messageStatus(messageId),
  };
}
