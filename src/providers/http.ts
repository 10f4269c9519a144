// One way to call an OpenAI-compatible server: a deadline, the caller's AbortSignal, and the
// mapping of failures to retryable or final ProviderErrors — without ever echoing a secret.

import { ProviderError } from './provider-error.ts';

/** The codes one provider family uses, e.g. TRANSCRIPTION_TIMEOUT, TRANSCRIPTION_REJECTED. */
export interface ErrorCodes {
  timeout: string;
  unavailable: string;
  rateLimited: string;
  rejected: string;
}

export function errorCodes(prefix: 'TRANSCRIPTION' | 'SECTIONING' | 'DRAFTING'): ErrorCodes {
  return {
    timeout: `${prefix}_TIMEOUT`,
    unavailable: `${prefix}_UNAVAILABLE`,
    rateLimited: `${prefix}_RATE_LIMITED`,
    rejected: `${prefix}_REJECTED`,
  };
}

export interface ProviderResponse {
  status: number;
  headers: Headers;
  body: string;
}

export interface SendOptions {
  url: string;
  /** The request; a function receives the signal that ends it (caller's abort or the deadline). */
  init: RequestInit | ((signal: AbortSignal) => RequestInit | Transport);
  timeoutMs: number;
  signal: AbortSignal;
  codes: ErrorCodes;
  /** What the error messages call the server: "transcription server". */
  serverName: string;
  /** Values that must never appear in an error message (the API key). */
  secrets: (string | undefined)[];
  /** Lets the caller turn a failure of its own request body (e.g. the audio stream) into an error. */
  describeBodyFailure?: (cause: unknown) => ProviderError | null;
}

/** A request sent by the caller instead of `fetch` (failing like `fetch`: a body failure as `cause`), within the signal given to `init`. */
export type Transport = { send(): Promise<ProviderResponse> };

/** Sends the request and reads the whole response body, both within `timeoutMs`. */
export async function send(options: SendOptions): Promise<ProviderResponse> {
  const { codes, serverName } = options;
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = AbortSignal.any([options.signal, deadline]);
  try {
    const init = typeof options.init === 'function' ? options.init(signal) : options.init;
    if ('send' in init) return await init.send();
    const response = await fetch(options.url, { ...init, signal });
    return { status: response.status, headers: response.headers, body: await response.text() };
  } catch (error) {
    if (deadline.aborted && !options.signal.aborted) {
      throw new ProviderError(codes.timeout, `The ${serverName} did not answer within ${options.timeoutMs} ms`, {
        retryable: true,
        cause: error,
      });
    }
    if (options.signal.aborted) {
      throw new ProviderError(codes.unavailable, `The request to the ${serverName} was aborted`, {
        retryable: true,
        cause: options.signal.reason,
      });
    }
    const bodyFailure = options.describeBodyFailure?.((error as { cause?: unknown }).cause);
    if (bodyFailure) throw bodyFailure;
    const reason = redact(describeNetworkError(error), options.secrets);
    throw new ProviderError(codes.unavailable, `Could not reach the ${serverName}: ${reason}`, { retryable: true });
  }
}

function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : 'network error');
}

/** The ProviderError for a non-2xx answer: 408, 429 and 5xx may pass; other 4xx will not. */
export function statusError(response: ProviderResponse, options: Pick<SendOptions, 'codes' | 'serverName' | 'secrets'>): ProviderError {
  const { status } = response;
  const detail = redact(serverMessage(response.body), options.secrets);
  const suffix = detail ? `: ${detail}` : '';
  if (status === 429) {
    const retryAfter = response.headers.get('retry-after');
    const wait = retryAfter ? ` (retry after ${retryAfter.slice(0, 20)} s)` : '';
    return new ProviderError(options.codes.rateLimited, `The ${options.serverName} is rate limiting us${wait}${suffix}`, {
      retryable: true,
    });
  }
  if (status === 408)
    return new ProviderError(options.codes.timeout, `The ${options.serverName} timed out (HTTP 408)${suffix}`, { retryable: true });
  if (status >= 500)
    return new ProviderError(options.codes.unavailable, `The ${options.serverName} failed (HTTP ${status})${suffix}`, { retryable: true });
  return new ProviderError(options.codes.rejected, `The ${options.serverName} rejected the request (HTTP ${status})${suffix}`, {
    retryable: false,
  });
}

/** The human part of an error body: OpenAI `{error: {message}}`, FastAPI `{detail}`, or text. */
export function serverMessage(body: string): string {
  let message = body;
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; detail?: unknown; message?: unknown };
    const candidate = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? parsed.detail ?? parsed.message);
    if (candidate !== undefined) message = typeof candidate === 'string' ? candidate : JSON.stringify(candidate);
  } catch {
    // Not JSON: an HTML error page or plain text; keep a short, single-line excerpt.
  }
  return message.replace(/\s+/g, ' ').trim().slice(0, 300);
}

export function redact(text: string, secrets: (string | undefined)[]): string {
  let safe = text.replace(/Bearer\s+\S+/gi, 'Bearer [redacted]');
  for (const secret of secrets) if (secret) safe = safe.split(secret).join('[redacted]');
  return safe;
}

/** `{baseUrl}/path` whether or not the base URL ends with a slash. */
export function endpoint(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${path}`;
}

export function authorization(apiKey: string | undefined): Record<string, string> {
  return apiKey ? { authorization: `Bearer ${apiKey}` } : {};
}

export interface ChatCompletionRequest {
  baseUrl: string;
  apiKey?: string | undefined;
  model: string;
  system: string;
  user: string;
  /** A strict JSON schema for the answer (`json_schema`), or null to ask only for a JSON object. */
  jsonSchema: object | null;
  timeoutMs: number;
}

/**
 * One `POST {base}/chat/completions` asking for a JSON answer at temperature 0, as every
 * OpenAI-compatible server takes it; retries and fallbacks are the caller's.
 */
export function postChatCompletion(
  request: ChatCompletionRequest,
  signal: AbortSignal,
  errors: Pick<SendOptions, 'codes' | 'serverName'>,
): Promise<ProviderResponse> {
  const body = {
    model: request.model,
    temperature: 0,
    messages: [
      { role: 'system', content: request.system },
      { role: 'user', content: request.user },
    ],
    response_format: request.jsonSchema ? { type: 'json_schema', json_schema: request.jsonSchema } : { type: 'json_object' },
  };
  return send({
    url: endpoint(request.baseUrl, 'chat/completions'),
    init: {
      method: 'POST',
      headers: { ...authorization(request.apiKey), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    },
    timeoutMs: request.timeoutMs,
    signal,
    ...errors,
    secrets: [request.apiKey],
  });
}
