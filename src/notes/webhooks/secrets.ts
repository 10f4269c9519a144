import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** A short public name of a key (the start of its SHA-256): stored with each ciphertext, so a
 * rotation knows which key sealed what; it reveals nothing usable about the key. */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/**
 * Encrypts signing secrets at rest with AES-256-GCM. The endpoint id is the additional data, so a
 * ciphertext copied onto another endpoint's row does not decrypt. Format: `v2.<key id>.<iv>.<tag>.<data>`,
 * sealed with the current key; opened with whichever configured key the id names. The first
 * format, `v1.<iv>.<tag>.<data>` (no key id), stays readable: every configured key is tried.
 */
export class SecretBox {
  private readonly current: { id: string; key: Buffer };
  private readonly keys: { id: string; key: Buffer }[];

  constructor(current: Buffer, previous: readonly Buffer[] = []) {
    for (const key of [current, ...previous]) {
      if (key.length !== 32) throw new Error('the webhook secret key must be 32 bytes');
    }
    this.keys = [current, ...previous].map((key) => ({ id: keyIdOf(key), key }));
    this.current = this.keys[0]!;
  }

  get currentKeyId(): string {
    return this.current.id;
  }

  seal(plain: string, endpointId: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    cipher.setAAD(Buffer.from(endpointId));
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v2', this.current.id, iv.toString('base64'), cipher.getAuthTag().toString('base64'), data.toString('base64')].join('.');
  }

  open(sealed: string, endpointId: string): string {
    const parts = sealed.split('.');
    if (parts[0] === 'v2' && parts.length === 5) {
      const [, keyId, iv, tag, data] = parts as [string, string, string, string, string];
      const entry = this.keys.find((candidate) => candidate.id === keyId);
      if (!entry) throw new SecretUnreadableError(keyId);
      const plain = decrypt(entry.key, iv, tag, data, endpointId);
      if (plain === undefined) throw new SecretUnreadableError();
      return plain;
    }
    if (parts[0] === 'v1' && parts.length === 4) {
      const [, iv, tag, data] = parts as [string, string, string, string];
      for (const { key } of this.keys) {
        const plain = decrypt(key, iv, tag, data, endpointId);
        if (plain !== undefined) return plain;
      }
    }
    throw new SecretUnreadableError();
  }

  /** Whether `sealed` is not (yet) under the current key: what a re-encryption after a rotation rewrites. */
  isStale(sealed: string): boolean {
    return !sealed.startsWith(`v2.${this.current.id}.`);
  }
}

function decrypt(key: Buffer, iv: string, tag: string, data: string, endpointId: string): string | undefined {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
    decipher.setAAD(Buffer.from(endpointId));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

export class SecretUnreadableError extends Error {
  override name = 'SecretUnreadableError';
  constructor(keyId?: string) {
    super(
      keyId
        ? `The signing secret was encrypted with key ${keyId}, which is neither WEBHOOK_SECRET_KEY nor WEBHOOK_SECRET_KEY_PREVIOUS`
        : 'The signing secret cannot be decrypted: WEBHOOK_SECRET_KEY differs from the key that encrypted it',
    );
  }
}
