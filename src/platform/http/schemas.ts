import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode, errorNameFor } from '../errors.ts';

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

/** Every catalogue code answered with `status` (errors.ts is the only place a code's status is written). */
export function errorCodesFor(status: number): ErrorCode[] {
  return (Object.keys(ERROR_STATUS) as ErrorCode[]).filter((code) => ERROR_STATUS[code] === status);
}

const errorBodies = new Map<number, typeof ErrorBodySchema>();

/**
 * The error body documented for one status: the flat body whose `code` is an enum of the codes that
 * status can carry, one named component per status (`Error404`), so generated clients can switch on it.
 */
export function errorBodyFor(status: number): typeof ErrorBodySchema {
  let schema = errorBodies.get(status);
  if (!schema) {
    const codes = errorCodesFor(status);
    if (codes.length === 0) throw new Error(`No error code of the catalogue has status ${status}`);
    schema = ErrorBodySchema.extend({
      error: z.literal(errorNameFor(status)),
      code: z.enum(codes as [ErrorCode, ...ErrorCode[]]).meta({ example: codes[0] }),
    }).meta({
      id: `Error${status}`,
      description: `The flat error body of a ${status} response; \`code\` says which.`,
    }) as unknown as typeof ErrorBodySchema;
    errorBodies.set(status, schema);
  }
  return schema;
}

/** `response: { 200: Thing, ...errorResponses(401, 403, 404) }` documents a route's error statuses. */
export function errorResponses<const S extends number>(...statuses: S[]): Record<S, typeof ErrorBodySchema> {
  return Object.fromEntries(statuses.map((status) => [status, errorBodyFor(status)])) as Record<S, typeof ErrorBodySchema>;
}

/** Every timestamp in a body is `YYYY-MM-DDThh:mm:ssZ`: UTC, no fractional seconds. */
export function toTimestamp(value: Date | string): string {
  // Already in the API's form (`YYYY-MM-DDTHH:MM:SSZ`, as SQL formats the single-note read's
  // section timestamps): nothing to parse.
  if (typeof value === 'string' && value.length === 20 && value[10] === 'T' && value[19] === 'Z') return value;
  // toISOString always ends in `.sssZ`; cutting it is cheaper than a regular expression (this runs
  // a dozen times per note read).
  const iso = (value instanceof Date ? value : new Date(value)).toISOString();
  return `${iso.slice(0, -5)}Z`;
}

export const TimestampSchema = z.iso.datetime().meta({ example: '2026-01-31T14:05:09Z' });
export const UuidSchema = z.uuid();

/**
 * The query of a page-numbered list (`?page=` from 1, `?limit=` up to `maxLimit`), read with
 * `pageOf`/`metaOf` (pagination.ts). A list whose items a clinic may hold only so many of takes a
 * default limit that covers that cap, so a client sending no paging parameters still gets them all.
 */
export function pageQuery(defaultLimit: number, maxLimit: number) {
  return z.object({
    page: z.coerce.number().int().min(1).default(1).meta({ description: 'Page number, from 1' }),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(maxLimit)
      .default(defaultLimit)
      .meta({ description: `Items per page, 1-${maxLimit}; default ${defaultLimit}` }),
  });
}

/** The `meta` of a page (`metaOf`): every matching item, the page, its limit and the page count. */
export const PageMetaSchema = z.object({
  total: z.int().meta({ description: 'Every item of the list, on all pages' }),
  page: z.int(),
  limit: z.int(),
  total_pages: z.int(),
});
