import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { passwordVerifications } from '../../platform/metrics/security.ts';

// Passwords are hashed with scrypt (memory-hard). The hash names its own parameters, so raising
// PASSWORD_SCRYPT_LOG_N later only affects new hashes and old ones still verify.

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number, options: object) => Promise<Buffer>;
const KEY_LENGTH = 32;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 1024;

export async function hashPassword(password: string, logN: number): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, logN, BLOCK_SIZE, PARALLELISM);
  return ['scrypt', logN, BLOCK_SIZE, PARALLELISM, salt.toString('base64'), hash.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, logN, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  // Counted so an operator (and the brute-force tests) can see how many guesses reached scrypt.
  passwordVerifications.inc();
  const actual = await derive(password, Buffer.from(salt, 'base64'), Number(logN), Number(r), Number(p));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

const dummies = new Map<number, Promise<string>>();

/**
 * A hash of a random password at the current cost: verifying against it when the email is unknown
 * takes as long as a real check, so response time does not reveal which emails exist.
 */
export function dummyPasswordHash(logN: number): Promise<string> {
  let dummy = dummies.get(logN);
  if (!dummy) {
    dummy = hashPassword(randomBytes(16).toString('hex'), logN);
    dummies.set(logN, dummy);
  }
  return dummy;
}

function derive(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** logN;
  return scryptAsync(password, salt, KEY_LENGTH, { N, r, p, maxmem: 256 * N * r });
}
