import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../../platform/config.ts';

export type SecretKeyConfig = Pick<Config, 'WEBHOOK_SECRET_KEY' | 'WEBHOOK_SECRET_KEY_PREVIOUS' | 'DATABASE_URL' | 'DATA_DIR'>;

export interface SecretKeyring {
  current: Buffer;
  previous: Buffer[];
}

/** What a server on Postgres without WEBHOOK_SECRET_KEY says at start-up and in every refusal. */
export const KEY_MISSING_MESSAGE =
  'WEBHOOK_SECRET_KEY is not set: webhook endpoints cannot be created or have their secret rotated, and no webhook can be signed, ' +
  'until the operator sets it (32 random bytes: `openssl rand -base64 32`, the same value on every process). With DATABASE_URL ' +
  'the key is never generated into DATA_DIR: it would sit with the data it protects and differ between machines. A server ' +
  'upgraded from a version that generated $DATA_DIR/webhook-secret.key sets WEBHOOK_SECRET_KEY to that file’s content.';

/**
 * True when the encryption key must come from the environment and does not: on Postgres the key
 * is not generated, since a file beside the app would differ between machines and travel with
 * backups of the data directory.
 */
export function secretKeyMissing(config: SecretKeyConfig): boolean {
  return !config.WEBHOOK_SECRET_KEY && Boolean(config.DATABASE_URL);
}

/** Where the embedded default keeps its generated key: outside the database's own directory. */
export function secretKeyFile(dataDir: string): string {
  return path.resolve(dataDir, 'keys', 'webhook-secret.key');
}

/**
 * The keys that seal and open signing secrets: WEBHOOK_SECRET_KEY (and WEBHOOK_SECRET_KEY_PREVIOUS
 * after a rotation), else — on the embedded database only — a key generated once into
 * `DATA_DIR/keys/` (directory 0700, file 0600). Undefined when secretKeyMissing.
 */
export function loadSecretKeyring(config: SecretKeyConfig): SecretKeyring | undefined {
  const previous = config.WEBHOOK_SECRET_KEY_PREVIOUS ? [parseKey(config.WEBHOOK_SECRET_KEY_PREVIOUS)] : [];
  if (config.WEBHOOK_SECRET_KEY) return { current: parseKey(config.WEBHOOK_SECRET_KEY), previous };
  if (secretKeyMissing(config)) return undefined;
  return { current: keyFromFile(config.DATA_DIR), previous };
}

/** 32 bytes as 64 hex characters or base64 (the config has checked the form). */
export function parseKey(text: string): Buffer {
  return Buffer.from(text, /^[0-9a-fA-F]{64}$/.test(text) ? 'hex' : 'base64');
}

function keyFromFile(dataDir: string): Buffer {
  const file = secretKeyFile(dataDir);
  const directory = path.dirname(file);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  chmodSync(directory, 0o700);
  // Earlier versions wrote the key straight into DATA_DIR: move it, or what it sealed is lost.
  const legacy = path.resolve(dataDir, 'webhook-secret.key');
  if (!existsSync(file) && existsSync(legacy)) renameSync(legacy, file);
  try {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    chmodSync(file, 0o600);
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const key = randomBytes(32);
  try {
    // `wx`: of two processes starting at once, one writes and the other reads what it wrote.
    writeFileSync(file, `${key.toString('base64')}\n`, { flag: 'wx', mode: 0o600 });
    chmodSync(file, 0o600);
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  }
}
