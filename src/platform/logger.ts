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
          url: req.url,
          remoteAddress: req.ip,
          headers: req.headers,
        }),
      },
    },
    destination,
  );
}
