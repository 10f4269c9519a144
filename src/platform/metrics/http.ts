import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppInstance } from '../http/types.ts';
import { FAST_BUCKETS, gauge, histogram } from './registry.ts';
import { authFailures, rateLimited } from './security.ts';

// HTTP metrics for every route of the app, whoever registers it: the route is Fastify's template
// (`/notes/v1/notes/:id`), never the raw path; requests no route matched are `unmatched`.

export const requestDuration = histogram(
  'vetflow_http_request_duration_seconds',
  'HTTP requests, by API, method, route template and status class.',
  FAST_BUCKETS,
  ['api', 'method', 'route', 'status_class'],
);
export const requestsInFlight = gauge('vetflow_http_requests_in_flight', 'HTTP requests being served, by API.', ['api']);

/** An API tree: its metrics label and its URL prefix (`notes`, `/notes/v1`). */
export interface ApiPrefix {
  readonly name: string;
  readonly prefix: string;
}

interface RequestMarks {
  api: string;
  counted: boolean;
  code?: string;
  rateLimitRole?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    metricsMarks?: RequestMarks;
  }
}

/** Called by the error handler: the catalogue code this request is answered with. */
export function markErrorCode(request: FastifyRequest, code: string): void {
  if (request.metricsMarks) request.metricsMarks.code = code;
}

/** Called by the rate limiter when it refuses a request: the role kind of the refused caller. */
export function markRateLimited(request: FastifyRequest, role: string): void {
  if (request.metricsMarks) request.metricsMarks.rateLimitRole = role;
}

/**
 * Times every request from Fastify's own start (reply.elapsedTime) and counts those in flight.
 * Register on the root instance before anything that may refuse a request in onRequest.
 */
export function registerHttpMetrics(app: AppInstance, apis: readonly ApiPrefix[]): void {
  const apiOf = (url: string) => apis.find((api) => url === api.prefix || url.startsWith(`${api.prefix}/`))?.name ?? 'platform';
  const finish = (request: FastifyRequest, reply: FastifyReply | undefined) => {
    const marks = request.metricsMarks;
    if (!marks || marks.counted) return;
    marks.counted = true;
    requestsInFlight.dec({ api: marks.api });
    if (!reply) return;
    const status = reply.statusCode;
    requestDuration.observe(
      {
        api: marks.api,
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status_class: `${Math.floor(status / 100)}xx`,
      },
      reply.elapsedTime / 1000,
    );
    if ((status === 401 || status === 403) && marks.code) authFailures.inc({ api: marks.api, reason: marks.code });
    if (status === 429 && marks.rateLimitRole) rateLimited.inc({ api: marks.api, role: marks.rateLimitRole });
  };
  app.addHook('onRequest', (request, _reply, done) => {
    const api = apiOf(request.routeOptions.url ?? request.url);
    request.metricsMarks = { api, counted: false };
    requestsInFlight.inc({ api });
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    finish(request, reply);
    done();
  });
  // A client that goes away before its answer: no longer in flight, not timed.
  app.addHook('onRequestAbort', (request, done) => {
    finish(request, undefined);
    done();
  });
}
