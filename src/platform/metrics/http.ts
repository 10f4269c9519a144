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
// Counted in plain numbers per request and handed to the gauge at scrape time.
const inFlight = new Map<string, number>();
export const requestsInFlight = gauge(
  'vetflow_http_requests_in_flight',
  'HTTP requests being served, by API.',
  ['api'],
  function collect() {
    for (const [api, count] of inFlight) this.set({ api }, count);
  },
);

// One labelled child per (api, method, route, status class), looked up by a joined key: the
// per-request cost is a string and a map lookup, not prom-client's label hashing.
type Observer = { observe(value: number): void };
const children = new Map<string, Observer>();
function observeRequest(api: string, method: string, route: string, status: number, seconds: number): void {
  const statusClass = `${Math.floor(status / 100)}xx`;
  const key = `${api} ${method} ${route} ${statusClass}`;
  let child = children.get(key);
  if (!child) {
    child = requestDuration.labels({ api, method, route, status_class: statusClass });
    children.set(key, child);
  }
  child.observe(seconds);
}

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
  // Route templates are few: their API is looked up once each.
  const apiOfRoute = new Map<string, string>();
  const finish = (request: FastifyRequest, reply: FastifyReply | undefined) => {
    const marks = request.metricsMarks;
    if (!marks || marks.counted) return;
    marks.counted = true;
    inFlight.set(marks.api, (inFlight.get(marks.api) ?? 1) - 1);
    if (!reply) return;
    const status = reply.statusCode;
    observeRequest(marks.api, request.method, request.routeOptions.url ?? 'unmatched', status, reply.elapsedTime / 1000);
    if ((status === 401 || status === 403) && marks.code) authFailures.inc({ api: marks.api, reason: marks.code });
    if (status === 429 && marks.rateLimitRole) rateLimited.inc({ api: marks.api, role: marks.rateLimitRole });
  };
  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url;
    let api = route === undefined ? undefined : apiOfRoute.get(route);
    if (api === undefined) {
      api = apiOf(route ?? request.url);
      if (route !== undefined) apiOfRoute.set(route, api);
    }
    request.metricsMarks = { api, counted: false };
    inFlight.set(api, (inFlight.get(api) ?? 0) + 1);
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
