import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import type { DatabaseAvailability } from '../db/availability.ts';
import { AppError, type ErrorCode, errorNameFor } from '../errors.ts';

export interface ErrorBody {
  error: string;
  message: string;
  code: string;
  details?: Record<string, unknown>;
  request_id: string;
}

interface ErrorResponse {
  status: number;
  code: string;
  message: string;
  details?: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** Seconds a client is asked to wait after a 503 caused by a database outage. */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;

/**
 * The one place that turns any thrown error into the documented flat error body. Errors Fastify
 * raises before routing (bad URLs, over-long parameters) come through `frameworkErrors`, which
 * buildApp passes to Fastify; errors raised before a request exists at all go through
 * client-errors.ts.
 */
export function registerErrorHandling(app: FastifyInstance, availability: DatabaseAvailability): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (clientWentAway(request)) {
      // Nobody is left to answer: an aborted upload is the client's choice, not our failure.
      request.log.info({ code: (error as { code?: string }).code }, 'client aborted the request');
      return sendError(request, reply, { status: 400, code: 'INVALID_REQUEST', message: 'The request was aborted by the client' });
    }
    if (availability.suspect(error)) {
      // One warning per outage comes from DatabaseAvailability; per request, one quiet line.
      // The cause's code (ECONNREFUSED, 57014...) only: its message may quote values.
      const { code, cause: inner } = error as { code?: unknown; cause?: { code?: unknown } };
      const cause = code ?? inner?.code;
      request.log.info({ code: 'SERVICE_UNAVAILABLE', status: 503, cause }, 'request rejected: database unavailable');
      return sendError(request, reply, {
        status: 503,
        code: 'SERVICE_UNAVAILABLE',
        message: 'The service is temporarily unavailable; retry after a pause',
        headers: { 'retry-after': String(OUTAGE_RETRY_AFTER_SECONDS) },
      });
    }
    const response = toErrorResponse(error);
    // A deliberate answer (any AppError, 503 NOT_READY included) is not a failure of ours.
    if (response.status >= 500 && !(error instanceof AppError)) request.log.error({ err: error }, 'request failed');
    else request.log.info({ code: response.code, status: response.status }, 'request rejected');
    return sendError(request, reply, response);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, {
      status: 404,
      code: 'ROUTE_NOT_FOUND',
      message: `No route ${request.method} ${request.url.split('?')[0]}`,
    }),
  );
}

/** Fastify's `frameworkErrors`: a URL it cannot decode or route, answered in the one error body. */
export function handleFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const response = toErrorResponse(error);
  request.log.info({ code: response.code, status: response.status }, 'request rejected');
  return sendError(request, reply, response);
}

function clientWentAway(request: FastifyRequest): boolean {
  return request.raw.readableAborted || request.raw.socket?.destroyed === true;
}

function sendError(request: FastifyRequest, reply: FastifyReply, response: ErrorResponse) {
  const body: ErrorBody = {
    error: errorNameFor(response.status),
    message: response.message,
    code: response.code,
    ...(response.details ? { details: response.details } : {}),
    request_id: request.id,
  };
  if (response.headers) reply.headers(response.headers);
  // Also set here: framework errors are answered outside the routes' onSend hooks.
  reply.header('x-request-id', request.id);
  // Bypass any route response schema: an error body is not the route's success shape.
  return reply.code(response.status).type('application/json; charset=utf-8').serializer(JSON.stringify).send(body);
}

const FASTIFY_CODES: Record<string, { status: number; code: ErrorCode; message?: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'MALFORMED_JSON', message: 'The request body is not valid JSON' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'MALFORMED_JSON', message: 'The request body is empty but declared as JSON' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'INVALID_REQUEST' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'PAYLOAD_TOO_LARGE', message: 'The request body is too large' },
  FST_ERR_BAD_URL: { status: 400, code: 'INVALID_REQUEST', message: 'The URL is not valid: a percent-encoded sequence does not decode' },
  FST_ERR_MAX_PARAM_LENGTH: { status: 400, code: 'INVALID_PARAMETER', message: 'A path parameter is longer than 100 characters' },
  FST_ERR_ASYNC_CONSTRAINT: { status: 400, code: 'INVALID_REQUEST', message: 'The request matches no route' },
  FST_INVALID_MULTIPART_CONTENT_TYPE: { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Send the upload as multipart/form-data' },
};

function toErrorResponse(error: FastifyError): ErrorResponse {
  if (error instanceof AppError) {
    return { status: error.statusCode, code: error.code, message: error.message, details: error.details, headers: error.headers };
  }
  if (hasZodFastifySchemaValidationErrors(error)) return validationResponse(error);
  if (isResponseSerializationError(error)) {
    return { status: 500, code: 'INTERNAL_ERROR', message: 'Internal server error' };
  }
  const known = error.code ? FASTIFY_CODES[error.code] : undefined;
  if (known) {
    const message = known.code === 'UNSUPPORTED_MEDIA_TYPE' ? unsupportedMediaTypeMessage(error) : (known.message ?? error.message);
    return { status: known.status, code: known.code, message };
  }
  if (error instanceof SyntaxError && error.statusCode === 400) {
    return { status: 400, code: 'MALFORMED_JSON', message: 'The request body is not valid JSON' };
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return { status, code: status === 429 ? 'RATE_LIMIT_EXCEEDED' : 'INVALID_REQUEST', message: error.message };
  }
  // Never leak internals: the log has the stack, the client gets the request id to quote.
  return { status: 500, code: 'INTERNAL_ERROR', message: 'Internal server error' };
}

function unsupportedMediaTypeMessage(error: FastifyError): string {
  const match = /: (.+)$/.exec(error.message);
  return `Unsupported Content-Type${match ? ` ${match[1]}` : ''}; send application/json`;
}

type ValidationError = Parameters<typeof hasZodFastifySchemaValidationErrors>[0] & {
  validation: { instancePath: string; message?: string; params?: Record<string, unknown> }[];
  validationContext?: string;
};

// Path parameters and headers that fail their schema are a malformed request (400); a well-formed
// body or query string that breaks its schema is unprocessable (422), with the field and reason.
function validationResponse(error: ValidationError): ErrorResponse {
  const context = error.validationContext ?? 'body';
  const issues = error.validation.map((issue) => ({
    field: issue.instancePath.replace(/^\//, '').replaceAll('/', '.') || context,
    reason: issue.message ?? 'invalid value',
  }));
  const first = issues[0] ?? { field: context, reason: 'invalid value' };
  const details = { field: first.field, reason: first.reason, location: context, ...(issues.length > 1 ? { issues } : {}) };
  if (context === 'params' || context === 'headers') {
    return {
      status: 400,
      code: 'INVALID_PARAMETER',
      message: `Invalid ${context === 'params' ? 'path parameter' : 'header'} ${first.field}: ${first.reason}`,
      details,
    };
  }
  return { status: 422, code: 'VALIDATION_ERROR', message: `Invalid ${first.field}: ${first.reason}`, details };
}
