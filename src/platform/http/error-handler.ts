import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import type { DatabaseAvailability } from '../db/availability.ts';
import { AppError, ERROR_STATUS, type ErrorCode, errorNameFor } from '../errors.ts';
import { fieldIssueOf } from '../field-issue.ts';
import { markErrorCode } from '../metrics/http.ts';

export interface ErrorBody {
  error: string;
  message: string;
  code: string;
  details?: Record<string, unknown>;
  request_id: string;
}

interface ErrorResponse {
  status: number;
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** An answer by code: the status comes from the catalogue (errors.ts), never restated here. */
function answer(code: ErrorCode, message: string, details?: Record<string, unknown>, headers?: Record<string, string>): ErrorResponse {
  return { status: ERROR_STATUS[code], code, message, ...(details ? { details } : {}), ...(headers ? { headers } : {}) };
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
      return sendError(request, reply, answer('INVALID_REQUEST', 'The request was aborted by the client'));
    }
    if (availability.suspect(error)) {
      // One warning per outage comes from DatabaseAvailability; per request, one quiet line.
      // The cause's code (ECONNREFUSED, 57014...) only: its message may quote values.
      const { code, cause: inner } = error as { code?: unknown; cause?: { code?: unknown } };
      const cause = code ?? inner?.code;
      const response = answer('SERVICE_UNAVAILABLE', 'The service is temporarily unavailable; retry after a pause', undefined, {
        'retry-after': String(OUTAGE_RETRY_AFTER_SECONDS),
      });
      request.log.info({ code: response.code, status: response.status, cause }, 'request rejected: database unavailable');
      return sendError(request, reply, response);
    }
    const response = toErrorResponse(error);
    // A deliberate answer (any AppError, 503 NOT_READY included) is not a failure of ours.
    if (response.status >= 500 && !(error instanceof AppError)) request.log.error({ err: error }, 'request failed');
    else request.log.info({ code: response.code, status: response.status }, 'request rejected');
    return sendError(request, reply, response);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, answer('ROUTE_NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}`)),
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

/** The documented error body of an AppError: what a request failing with it would answer. */
export function errorBodyOf(error: AppError, requestId: string): ErrorBody {
  return bodyOf(answer(error.code, error.message, error.details), requestId);
}

function bodyOf(response: ErrorResponse, requestId: string): ErrorBody {
  return {
    error: errorNameFor(response.status),
    message: response.message,
    code: response.code,
    ...(response.details ? { details: response.details } : {}),
    request_id: requestId,
  };
}

function sendError(request: FastifyRequest, reply: FastifyReply, response: ErrorResponse) {
  markErrorCode(request, response.code);
  const body = bodyOf(response, request.id);
  if (response.headers) reply.headers(response.headers);
  // Also set here: framework errors are answered outside the routes' onSend hooks.
  reply.header('x-request-id', request.id);
  // Bypass any route response schema: an error body is not the route's success shape.
  return reply.code(response.status).type('application/json; charset=utf-8').serializer(JSON.stringify).send(body);
}

// Fastify's own error codes, by the catalogue code they are answered with (the status follows from it).
const FASTIFY_CODES: Record<string, { code: ErrorCode; message?: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'MALFORMED_JSON', message: 'The request body is not valid JSON' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'MALFORMED_JSON', message: 'The request body is empty but declared as JSON' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'UNSUPPORTED_MEDIA_TYPE' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'INVALID_REQUEST' },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'PAYLOAD_TOO_LARGE', message: 'The request body is too large' },
  FST_ERR_BAD_URL: { code: 'INVALID_REQUEST', message: 'The URL is not valid: a percent-encoded sequence does not decode' },
  FST_ERR_MAX_PARAM_LENGTH: { code: 'INVALID_PARAMETER', message: 'A path parameter is longer than 100 characters' },
  FST_ERR_ASYNC_CONSTRAINT: { code: 'INVALID_REQUEST', message: 'The request matches no route' },
  FST_INVALID_MULTIPART_CONTENT_TYPE: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Send the upload as multipart/form-data' },
};

// Any other client error a plugin raises with only a status: the catalogue code for that status.
// A status the catalogue has no code for is answered as a plain 400 INVALID_REQUEST.
const CODE_FOR_CLIENT_STATUS: Partial<Record<number, ErrorCode>> = {
  400: 'INVALID_REQUEST',
  408: 'REQUEST_TIMEOUT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMIT_EXCEEDED',
  431: 'HEADERS_TOO_LARGE',
};

function toErrorResponse(error: FastifyError): ErrorResponse {
  if (error instanceof AppError) return answer(error.code, error.message, error.details, error.headers);
  if (hasZodFastifySchemaValidationErrors(error)) return validationResponse(error);
  // Never leak internals: the log has the stack, the client gets the request id to quote.
  if (isResponseSerializationError(error)) return answer('INTERNAL_ERROR', 'Internal server error');
  const known = error.code ? FASTIFY_CODES[error.code] : undefined;
  if (known) {
    const message = known.code === 'UNSUPPORTED_MEDIA_TYPE' ? unsupportedMediaTypeMessage(error) : (known.message ?? error.message);
    return answer(known.code, message);
  }
  if (error instanceof SyntaxError && error.statusCode === 400) return answer('MALFORMED_JSON', 'The request body is not valid JSON');
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return answer(CODE_FOR_CLIENT_STATUS[status] ?? 'INVALID_REQUEST', error.message);
  return answer('INTERNAL_ERROR', 'Internal server error');
}

function unsupportedMediaTypeMessage(error: FastifyError): string {
  const match = /: (.+)$/.exec(error.message);
  return `Unsupported Content-Type${match ? ` ${match[1]}` : ''}; send application/json`;
}

type ValidationError = Parameters<typeof hasZodFastifySchemaValidationErrors>[0] & {
  validation: { keyword?: string; instancePath: string; message?: string; params?: Record<string, unknown> }[];
  validationContext?: string;
};

// Path parameters and headers that fail their schema are a malformed request (400); a well-formed
// body or query string that breaks its schema is unprocessable (422), with the field and reason.
function validationResponse(error: ValidationError): ErrorResponse {
  const context = error.validationContext ?? 'body';
  // fastify-type-provider-zod renders each zod issue as `{keyword: code, instancePath, message,
  // params: the issue's other fields}`: read it back as the issue it was.
  const issues = error.validation.map((issue) =>
    fieldIssueOf(
      {
        path: issue.instancePath.split('/').filter(Boolean),
        message: issue.message,
        code: issue.keyword,
        keys: issue.params?.keys as string[] | undefined,
      },
      context,
    ),
  );
  const first = issues[0] ?? { field: context, reason: 'invalid value' };
  const details = { field: first.field, reason: first.reason, location: context, ...(issues.length > 1 ? { issues } : {}) };
  if (context === 'params' || context === 'headers') {
    return answer(
      'INVALID_PARAMETER',
      `Invalid ${context === 'params' ? 'path parameter' : 'header'} ${first.field}: ${first.reason}`,
      details,
    );
  }
  return answer('VALIDATION_ERROR', `Invalid ${first.field}: ${first.reason}`, details);
}
