import type { FastifyRequest } from 'fastify';

/**
 * The request a caller is acting through: its id (X-Request-Id) and the client's address. Both API
 * trees attach it to their caller (`caller.request`), so a service reads it in one place whatever
 * the tree; it is absent outside a request (CLI, jobs). An `Idempotency-Key` is not part of it: an
 * operation that honours one takes it in its input (`input.idempotencyKey`, read by the route with
 * `idempotencyKeyOf`).
 */
export interface RequestOrigin {
  readonly id: string;
  readonly ip: string;
}

export function requestOriginOf(request: FastifyRequest): RequestOrigin {
  return { id: request.id, ip: request.ip };
}
