import { type DestinationStream, type Logger, pino } from 'pino';
import type { Config } from './config.ts';
import { serializeError } from './log-errors.ts';

// Anything that can authenticate a caller is censored wherever it appears in a log line:
// request headers, response headers and fields of logged objects.
export const REDACTED_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  // @fastify/multipart traces the busboy options, which carry every request header.
  'busboyOptions.headers',
  'headers["x-api-key"]',
  'headers.authorization',
  'headers.cookie',
  '*.password',
  '*.token',
  '*.secret',
  '*.apiKey',
  '*.api_key',
  '*.admin_key',
  '*.key',
  'password',
  'token',
  'secret',
  'admin_key',
];

export type { Logger };

// Query parameters whose values are logged: paging, filters and formats. Every other value is
// censored: `name`, `external_id`, `q` (patients, contacts) and credentials a client put in the
// URL. Our credential formats are censored wherever they appear (a key pasted into a path).
const LOGGED_QUERY_PARAMS = new Set([
  'page',
  'limit',
  'transcription_status',
  'from',
  'to',
  'days',
  'count',
  'format',
  'section_id',
  'status',
]);
const PARAMETER_NAME = /^[A-Za-z_][\w.-]{0,63}$/;
const SECRET_VALUES = /vnk_[0-9a-f]{32}|crm_live_[0-9A-Za-z]+|whsec_[0-9A-Za-z+/=]+/g;

/** The URL as logged: query values other than paging and filters censored, and any credential. */
export function redactUrl(url: string): string {
  const queryStart = url.indexOf('?');
  if (queryStart === -1) return url.replace(SECRET_VALUES, '[redacted]');
  const fragmentStart = url.indexOf('#', queryStart);
  const query = url.slice(queryStart + 1, fragmentStart === -1 ? undefined : fragmentStart);
  const fragment = fragmentStart === -1 ? '' : url.slice(fragmentStart);
  const pairs = query.split('&').map((pair) => {
    const equals = pair.indexOf('=');
    const name = equals === -1 ? pair : pair.slice(0, equals);
    if (LOGGED_QUERY_PARAMS.has(name.toLowerCase())) return pair;
    // A bare value (`?Thor`) or a name that is not an identifier may itself be the personal data.
    if (equals === -1) return '[redacted]';
    return `${PARAMETER_NAME.test(name) ? name : '[redacted]'}=[redacted]`;
  });
  return `${url.slice(0, queryStart + 1)}${pairs.join('&')}${fragment}`.replace(SECRET_VALUES, '[redacted]');
}

// Request headers that are logged: an allowlist, because a client may send a credential under any
// name (Api-Key, X-Auth-Token, Proxy-Authorization, ...) and a denylist would always miss one.
const LOGGED_HEADERS = [
  'host',
  'user-agent',
  'content-type',
  'content-length',
  'transfer-encoding',
  'accept',
  'accept-encoding',
  'connection',
  'x-request-id',
  'x-forwarded-for',
  'x-forwarded-proto',
  'origin',
];

/** The allowlisted headers of a request, values of other headers never copied. */
export function loggedHeaders(headers: Record<string, unknown>): Record<string, unknown> {
  const logged: Record<string, unknown> = {};
  for (const name of LOGGED_HEADERS) if (headers[name] !== undefined) logged[name] = headers[name];
  return logged;
}

export function createLogger(config: Pick<Config, 'LOG_LEVEL'>, destination?: DestinationStream): Logger {
  return pino(
    {
      level: config.LOG_LEVEL,
      base: { service: 'vetflow' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: {
        req: (req) => ({
          method: req.method,
          url: redactUrl(req.url),
          remoteAddress: req.ip,
          headers: loggedHeaders(req.headers),
        }),
        err: serializeError,
        error: serializeError,
      },
    },
    destination,
  );
}
