import type { FastifyRequest } from 'fastify';
import { IDEMPOTENCY_KEY_PATTERN } from '../db/idempotency.ts';
import { AppError } from '../errors.ts';

/** The request's `Idempotency-Key` header, if any; a malformed one → 400 INVALID_PARAMETER. */
export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const key = request.headers['idempotency-key'];
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(key)) {
    throw new AppError('INVALID_PARAMETER', 'Idempotency-Key must be 1-255 visible ASCII characters', { field: 'Idempotency-Key' });
  }
  return key;
}
