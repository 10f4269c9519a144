import type { Config } from '../config.ts';
import type { Tracing } from './port.ts';

export type { Tracing };

// OpenTelemetry traces, off unless an OTLP endpoint is configured. This file loads nothing of
// OpenTelemetry: the SDK (otel.ts) is imported only when tracing is on, so a process without it
// keeps its start time and memory.

let active: Tracing | undefined;

/** The running tracing, or undefined when traces are off. */
export function tracing(): Tracing | undefined {
  return active;
}

type TracingConfig = Pick<Config, 'OTEL_EXPORTER_OTLP_ENDPOINT' | 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' | 'OTEL_SDK_DISABLED'>;

export function tracingConfigured(config: TracingConfig): boolean {
  return !config.OTEL_SDK_DISABLED && Boolean(config.OTEL_EXPORTER_OTLP_ENDPOINT ?? config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * Starts the OpenTelemetry SDK when configured (once per process; later calls return the running
 * one). Call before the app opens its database, so the pg and HTTP instrumentations are in place.
 */
export async function startTracing(config: TracingConfig & Pick<Config, 'ROLE'>, version: string): Promise<Tracing | undefined> {
  if (active || !tracingConfigured(config)) return active;
  const { startOpenTelemetry } = await import('./otel.ts');
  active = await startOpenTelemetry({ role: config.ROLE, version });
  return active;
}

/** Stops tracing (flushing its spans); tracing() is undefined afterwards. */
export async function stopTracing(): Promise<void> {
  const running = active;
  active = undefined;
  await running?.shutdown();
}
