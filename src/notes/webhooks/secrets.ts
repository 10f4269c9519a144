import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Encrypts signing secrets at rest with AES-256-GCM. The endpoint id is the additional data, so a
 * ciphertext copied onto another endpoint's row does not decrypt. Format: `v1.<iv>.<tag>.<data>`.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('the webhook secret key must be 32 bytes');
    this.key = key;
  }

  seal(plain: string, endpointId: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(endpointId));
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), data.toString('base64')].join('.');
  }

  open(sealed: string, endpointId: string): string {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || data === undefined) throw new SecretUnreadableError();
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
      decipher.setAAD(Buffer.from(endpointId));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretUnreadableError();
    }
  }
}

export class SecretUnreadableError extends Error {
  override name = 'SecretUnreadableError';
  constructor() {
    super('The signing secret cannot be decrypted: WEBHOOK_SECRET_KEY differs from the key that encrypted it');
  }
}

/** The configured key, else one generated once into DATA_DIR (readable by its owner only). */
export function loadSecretKey(configured: string | undefined, dataDir: string): Buffer {
  if (configured) return Buffer.from(configured, /^[0-9a-fA-F]{64}$/.test(configured) ? 'hex' : 'base64');
  const file = path.resolve(dataDir, 'webhook-secret.key');
  try {
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(path.dirname(file), { recursive: true });
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
