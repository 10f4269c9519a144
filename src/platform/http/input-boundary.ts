import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import { findUnstorableText } from './storable-text.ts';

/**
 * Refuses, for every route, text Postgres cannot store (NUL, lone surrogates) before any hook or
 * handler can put it in a query: path, query string and headers in onRequest (authentication and
 * rate limits run there and read headers), the parsed body in preValidation. Multipart uploads are
 * streamed by their handler and check their own parts (see notes/upload).
 */
export function registerInputBoundary(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    rejectUnstorable(request.params, 'params');
    rejectUnstorable(request.query, 'querystring');
    rejectUnstorable(request.headers, 'headers');
  });
  app.addHook('preValidation', async (request: FastifyRequest) => {
    rejectUnstorable(request.body, 'body');
  });
}

/** Throws the documented 400 (path, headers) or 422 (body, query string) naming the field. */
export function rejectUnstorable(value: unknown, location: 'params' | 'querystring' | 'headers' | 'body', prefix = ''): void {
  const found = findUnstorableText(value);
  if (!found) return;
  const field = [prefix, found.field].filter(Boolean).join('.') || location;
  const details = { field, reason: found.reason, location };
  if (location === 'params' || location === 'headers') {
    const what = location === 'params' ? 'path parameter' : 'header';
    throw new AppError('INVALID_PARAMETER', `Invalid ${what} ${field}: ${found.reason}`, details);
  }
  throw new AppError('VALIDATION_ERROR', `Invalid ${field}: ${found.reason}`, details);
}
