import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedTarget } from './target-guard.ts';

export interface SendResult {
  statusCode: number;
  /** The start of the response body, for the delivery log. */
  bodyStart: string;
}

export class SendTimeoutError extends Error {
  override name = 'SendTimeoutError';
}

const BODY_READ_LIMIT = 4_096;

/**
 * POSTs `body` to the resolved target, connecting to its checked address only (the lookup is
 * pinned), without following redirects, reading at most a few KB of the answer, within `timeoutMs`
 * for the whole exchange.
 */
export function postJson(
  target: ResolvedTarget,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  /** When the exchange began (before the DNS lookup, say): the timeout counts from there. */
  startedAt = Date.now(),
): Promise<SendResult> {
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const client = target.url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(target.url, {
      method: 'POST',
      lookup: pinned,
      agent: false,
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'vetflow-webhooks/1',
      },
    });
    // Once the status has arrived it decides: a receiver that answers 2xx and then holds its body
    // open past the timeout was still reached (a retry would send a duplicate).
    let answered: (() => void) | undefined;
    const timer = setTimeout(
      () => {
        if (answered) answered();
        else request.destroy(new SendTimeoutError(`no answer within ${timeoutMs} ms`));
      },
      Math.max(1, startedAt + timeoutMs - Date.now()),
    );
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = () => {
        clearTimeout(timer);
        response.destroy();
        resolve({ statusCode: response.statusCode ?? 0, bodyStart: Buffer.concat(chunks).toString('utf8').slice(0, 500) });
      };
      answered = finish;
      response.on('data', (chunk: Buffer) => {
        if (size < BODY_READ_LIMIT) chunks.push(chunk.subarray(0, BODY_READ_LIMIT - size));
        size += chunk.length;
        // Enough read: the status decides; the rest of a large body is not our business.
        if (size >= BODY_READ_LIMIT) finish();
      });
      response.on('end', finish);
      response.on('error', finish);
    });
    request.end(body);
  });
}

/** `promise`, or a SendTimeoutError after `ms` (for the DNS lookup that precedes the request). */
export function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new SendTimeoutError(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
