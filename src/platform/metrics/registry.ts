import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';

// One registry for every vetflow metric: the metrics listener serves exactly this one. Metrics are
// created at import and counted always (a counter increment costs nanoseconds); the HTTP hooks,
// the queue poller, Node's default collectors and the listener exist only when METRICS_PORT is set.
//
// Labels never carry a key, token, clinic, patient, note id or raw path: only values from small
// fixed sets (route templates, methods, status classes, error codes of the catalogue, queue names).

// prom-client's classes from their own files: its index also loads the default collectors, one
// of which requires @opentelemetry/api, and a process without METRICS_PORT or traces must load
// nothing of OpenTelemetry. The defaults are loaded by startProcessMetrics, only when scraped.
const require = createRequire(import.meta.url);
const Registry = require('prom-client/lib/registry') as typeof PromClient.Registry;
const Counter = require('prom-client/lib/counter') as typeof PromClient.Counter;
const Gauge = require('prom-client/lib/gauge') as typeof PromClient.Gauge;
const Histogram = require('prom-client/lib/histogram') as typeof PromClient.Histogram;

export const registry = new Registry();

/** Seconds, from 5 ms to a minute: requests, queries, provider calls. */
export const FAST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Seconds, from a second to two hours: a note's way through processing, a webhook's delay. */
export const SLOW_BUCKETS = [1, 2, 5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200];

export function counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []) {
  return new Counter<L>({ name, help, labelNames, registers: [registry] });
}

export function gauge<L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[] = [],
  collect?: (this: PromClient.Gauge<L>) => void,
) {
  return new Gauge<L>({ name, help, labelNames, registers: [registry], ...(collect ? { collect } : {}) });
}

export function histogram<L extends string>(name: string, help: string, buckets: number[], labelNames: readonly L[] = []) {
  return new Histogram<L>({ name, help, labelNames, buckets, registers: [registry] });
}

/** Seconds since `startedMs` (a `performance.now()` reading). */
export function secondsSince(startedMs: number): number {
  return (performance.now() - startedMs) / 1000;
}
