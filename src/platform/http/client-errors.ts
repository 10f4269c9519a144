import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { ERROR_STATUS, type ErrorCode, errorNameFor } from '../errors.ts';

// Node's HTTP parser refuses some requests before Fastify sees them (headers or URL over 16 kB,
// bytes that are not HTTP, a NUL in a header, headers too slow). Fastify's default answer is not
// our error body and keeps no Connection: close although the socket is dropped, so a keep-alive
// client's next request dies on it. This answers in the documented body, with a request id, and
// says the connection closes.

// By parser error code: the catalogue code answered (its status comes from errors.ts) and the message.
const PARSE_ERRORS: Record<string, { code: ErrorCode; message: string }> = {
  HPE_HEADER_OVERFLOW: { code: 'HEADERS_TOO_LARGE', message: 'The request line and headers exceed 16 kB' },
  ERR_HTTP_REQUEST_TIMEOUT: { code: 'REQUEST_TIMEOUT', message: 'The request was not received in time' },
  HPE_HEADER_TIMEOUT: { code: 'REQUEST_TIMEOUT', message: 'The request headers were not received in time' },
};
const MALFORMED: { code: ErrorCode; message: string } = { code: 'INVALID_REQUEST', message: 'The request is not valid HTTP' };

export function clientErrorHandler(logger: FastifyBaseLogger) {
  return (error: NodeJS.ErrnoException, socket: Socket): void => {
    // A reset connection has nobody to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const known = (error.code && PARSE_ERRORS[error.code]) || MALFORMED;
    const status = ERROR_STATUS[known.code];
    const requestId = randomUUID();
    const body = JSON.stringify({ error: errorNameFor(status), message: known.message, code: known.code, request_id: requestId });
    logger.info({ request_id: requestId, code: known.code, status, parser: error.code }, 'request rejected by the HTTP parser');
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
    // end() lets the answer reach a client that is still sending; a client that never reads or
    // closes does not get to hold the socket.
    setTimeout(() => socket.destroy(), 1_000).unref();
  };
}
