import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

// CRM tokens: `crm_live_` + 32 random base62 characters + a 6-character base62 CRC32 of everything
// before it (the GitHub token scheme). A mistyped or forged token fails the checksum and is refused
// without looking it up, and the fixed shape lets secret scanners recognise a leaked one.

export const TOKEN_PREFIX = 'crm_live_';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const TOKEN_PATTERN = /^crm_live_[0-9A-Za-z]{38}$/;
/** How many characters of a token are shown in lists and `/external/me`. */
export const DISPLAY_PREFIX_LENGTH = 12;

export function generateToken(): string {
  const body = `${TOKEN_PREFIX}${randomBase62(RANDOM_LENGTH)}`;
  return `${body}${checksum(body)}`;
}

/** True when `token` has our shape and its checksum matches: worth a database lookup. */
export function isWellFormedToken(token: string): boolean {
  if (!TOKEN_PATTERN.test(token)) return false;
  const body = token.slice(0, -CHECKSUM_LENGTH);
  return token.slice(-CHECKSUM_LENGTH) === checksum(body);
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function displayPrefix(token: string): string {
  return token.slice(0, DISPLAY_PREFIX_LENGTH);
}

function checksum(body: string): string {
  let value = crc32(body);
  let text = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    text = ALPHABET[value % 62] + text;
    value = Math.floor(value / 62);
  }
  return text;
}

// Rejection sampling: bytes >= 248 are dropped so every character is equally likely (248 = 4 * 62).
function randomBase62(length: number): string {
  let text = '';
  while (text.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && text.length < length) text += ALPHABET[byte % 62];
    }
  }
  return text;
}
