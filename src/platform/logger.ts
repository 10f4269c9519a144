import { type DestinationStream, type Logger, pino } from 'pino';
import type { Config } from './config.ts';

// Anything that can authenticate a caller is censored wherever it appears in a log line:
// request headers, response headers and fields of logged objects.
export const REDACTED_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
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

// Query parameters whose value is a credential, and our credential formats wherever they appear
// in a URL (a client that puts its key in the query string must not get it logged).
const SECRET_QUERY_PARAMS = /([?&](?:x[-_]?api[-_]?key|api[-_]?key|key|token|access[-_]?token|secret|password)=)[^&#]*/gi;
const SECRET_VALUES = /vnk_[0-9a-f]{32}|crm_live_[0-9A-Za-z]+|whsec_[0-9A-Za-z+/=]+/g;

/** The URL as logged: credentials in the query string (or anywhere in it) censored. */
export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY_PARAMS, '$1[redacted]').replace(SECRET_VALUES, '[redacted]');
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
          headers: req.headers,
        }),
      },
    },
    destination,
  );
}
