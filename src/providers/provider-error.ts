/**
 * A failure of a remote (or sandbox) provider. `retryable` failures (timeouts, 429, 5xx, network)
 * are retried by the job with backoff; the others fail the note at once with `code`.
 */
export class ProviderError extends Error {
  override name = 'ProviderError';
  readonly code: string;
  readonly retryable: boolean;

  constructor(code: string, message: string, options: { retryable: boolean; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.code = code;
    this.retryable = options.retryable;
  }
}
