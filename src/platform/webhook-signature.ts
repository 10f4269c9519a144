import { createHmac, randomBytes } from 'node:crypto';

// Standard Webhooks (standardwebhooks.com): the signing scheme of every webhook vetflow sends, the
// clinics' note webhooks and the operator's messaging webhook alike, so a receiver verifies both
// with one library. Secrets are `whsec_` + base64 of random bytes; the bytes are the HMAC key.
const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 24;

/** `whsec_` and base64 of at least 24 bytes: what generateSigningSecret makes and operators configure. */
export const SIGNING_SECRET_PATTERN = /^whsec_[A-Za-z0-9+/]{32,}={0,2}$/;

export function generateSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one per secret, space-separated (the scheme's form). */
export function signatureHeader(secrets: readonly string[], id: string, timestampSeconds: number, body: string): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
      return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
    })
    .join(' ');
}

/**
 * The three headers of a signed request: `webhook-id` (the same on every retry, so a receiver can
 * drop duplicates), `webhook-timestamp` (seconds; receivers refuse old ones, which stops replays)
 * and `webhook-signature`.
 */
export function signedHeaders(secrets: readonly string[], id: string, body: string, now = Date.now()): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(secrets, id, timestamp, body),
  };
}
