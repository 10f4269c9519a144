import { z } from 'zod';

// Shared zod pieces for route schemas: they validate, type and document at once.

export const ErrorBodySchema = z
  .object({
    error: z.string().meta({ example: 'not_found' }),
    message: z.string(),
    code: z.string().meta({ example: 'NOTE_NOT_FOUND' }),
    details: z.record(z.string(), z.unknown()).optional(),
    request_id: z.string(),
  })
  .meta({ id: 'ErrorBody', description: 'The flat error body of every 4xx and 5xx response.' });

/** `response: { 200: Thing, ...errorResponses(401, 403, 404) }` documents a route's error statuses. */
export function errorResponses<const S extends number>(...statuses: S[]): Record<S, typeof ErrorBodySchema> {
  return Object.fromEntries(statuses.map((status) => [status, ErrorBodySchema])) as Record<S, typeof ErrorBodySchema>;
}

/** Every timestamp in a body is `YYYY-MM-DDThh:mm:ssZ`: UTC, no fractional seconds. */
export function toTimestamp(value: Date | string): string {
  return new Date(value).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export const TimestampSchema = z.iso.datetime().meta({ example: '2026-01-31T14:05:09Z' });
export const UuidSchema = z.uuid();
