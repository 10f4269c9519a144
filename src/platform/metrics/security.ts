import { counter } from './registry.ts';

// Refused callers. `reason` is the error code of the catalogue (INVALID_API_KEY, UNAUTHORIZED,
// INSUFFICIENT_SCOPE, ...), `role` the caller's role kind: never the key, the token or the address.

export const authFailures = counter(
  'vetflow_auth_failures_total',
  'Requests refused for their credentials (401, 403), by API and reason.',
  ['api', 'reason'],
);
export const rateLimited = counter('vetflow_rate_limit_rejections_total', 'Requests refused by a rate limit (429), by API and role.', [
  'api',
  'role',
]);
export const ipBlocks = counter('vetflow_ip_blocks_total', 'Addresses blocked after too many failed authentications.');
export const passwordVerifications = counter(
  'vetflow_password_verifications_total',
  'Passwords checked against a stored hash (scrypt, the costly part of a login).',
);
