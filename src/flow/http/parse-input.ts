import type { z } from 'zod';
import { AppError } from '../../platform/errors.ts';
import { fieldIssueOf } from '../../platform/field-issue.ts';

/**
 * Validates a part of a CRM request (its JSON body, or its query string) against a zod schema and
 * answers 400 `INVALID_REQUEST` with `details.field` and `details.reason` when it does not fit. The
 * CRM contract says 400 for invalid data, where the platform's schema validation answers 422 (the
 * Notes API's rule), so these routes declare the schema for the OpenAPI document with
 * `attachValidation: true` and parse here.
 */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown, part: 'body' | 'query' = 'body'): z.output<T> {
  if (input === undefined || input === null || typeof input !== 'object' || Array.isArray(input)) {
    const what = part === 'body' ? 'The request body must be a JSON object' : 'The query string could not be read';
    throw new AppError('INVALID_REQUEST', what, { field: part, reason: 'expected a JSON object' });
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const { field, reason } = fieldIssueOf(result.error.issues[0], part);
  throw new AppError('INVALID_REQUEST', `Invalid ${field}: ${reason}`, { field, reason });
}
