// What the app asks of tracing (tracing.ts holds the running one; otel.ts implements it).

/** What the app asks of tracing; every call site works (untraced) when `tracing()` is undefined. */
export interface Tracing {
  /** The active span's context as W3C headers (`traceparent`), to carry in a job payload. */
  carrier(): Record<string, string> | undefined;
  /** Runs a job inside its own span, linked to the span that sent it (the carrier's). */
  inJobSpan<T>(queue: string, jobId: string, carrier: unknown, run: () => Promise<T>): Promise<T>;
  /** Names the current request's span after its route template (`GET /notes/v1/notes/:id`). */
  nameRequest(method: string, route: string): void;
  /** Sends what is buffered and stops. */
  shutdown(): Promise<void>;
}
