import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

// A caller's X-Request-Id is kept when it is a sane token, so logs join across systems; anything
// else (too long, odd characters that could forge log lines) is replaced by a fresh UUID.
const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdFrom(request: IncomingMessage): string {
  const header = request.headers['x-request-id'];
  const candidate = Array.isArray(header) ? header[0] : header;
  return candidate && ACCEPTABLE_ID.test(candidate) ? candidate : randomUUID();
}
