import type { z } from 'zod';
import { AppError } from '../../platform/errors.ts';
import { fieldIssueOf } from '../../platform/field-issue.ts';

/**
 * Validates a CRM request body against its zod schema and answers 400 `INVALID_REQUEST` with
 * `details.field` and `details.reason` when it does not fit. The CRM contract says 400 for invalid
 * data, where the platform's schema validation answers 422 (the Notes API's rule), so these routes
 * declare their body schema for the OpenAPI document with `attachValidation: true` and parse here.
 */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new AppError('INVALID_REQUEST', 'The request body must be a JSON object', { field: 'body', reason: 'expected a JSON object' });
  }
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const { field, reason } = fieldIssueOf(result.error.issues[0], 'body');
  throw new AppError('INVALID_REQUEST', `Invalid ${field}: ${reason}`, { field, reason });
}
