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
  // Callback hooks: every request of both APIs passes them, and an async hook costs a promise each.
  app.addHook('onRequest', (request, _reply, done) => {
    try {
      rejectUnstorable(request.params, 'params');
      rejectUnstorable(request.query, 'querystring');
      rejectUnstorable(request.headers, 'headers');
    } catch (error) {
      return done(error as Error);
    }
    done();
  });
  app.addHook('preValidation', (request: FastifyRequest, _reply, done) => {
    try {
      rejectUnstorable(request.body, 'body');
    } catch (error) {
      return done(error as Error);
    }
    done();
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
