import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { Config } from '../../platform/config.ts';
import { claimSetting, readSetting } from '../../platform/db/app-settings.repo.ts';
import type { Db } from '../../platform/db/client.ts';
import type { Logger } from '../../platform/logger.ts';
import { parseKey } from '../webhooks/secret-key.ts';
import { keyErasure, unkeyedErasures } from './erasure.repo.ts';

export type ErasureLogKeyConfig = Pick<Config, 'ERASURE_LOG_KEY' | 'ERASURE_LOG_KEY_PREVIOUS'>;

/** Where the key generated for a server without ERASURE_LOG_KEY is kept (app_settings). */
export const GENERATED_KEY_SETTING = 'erasure_log_key';

/**
 * What the erasure log keeps of an external id: the hex HMAC-SHA-256, under `key`, of the hex
 * SHA-256 of its UTF-8 bytes. The SHA-256 inside is what rows written before the log was keyed
 * held, so those rows could be keyed in place without the ids; the key is what makes the value
 * useless to anyone who guesses an id but does not hold the key.
 */
export function externalIdDigest(key: Buffer, externalId: string): string {
  return digestOfSha256(key, createHash('sha256').update(externalId, 'utf8').digest('hex'));
}

function digestOfSha256(key: Buffer, sha256: string): string {
  return createHmac('sha256', key).update(sha256, 'utf8').digest('hex');
}

interface Keyring {
  current: Buffer;
  /** Keys earlier rows may be under: ERASURE_LOG_KEY_PREVIOUS, and the generated key once a configured one replaced it. */
  previous: Buffer[];
}

/**
 * The erasure log's keys, loaded once per process on first use: ERASURE_LOG_KEY (and
 * ERASURE_LOG_KEY_PREVIOUS after a rotation), or, when it is unset, a key generated once and kept
 * in the database (so `npm start` needs no configuration, every process shares it, and a reader of
 * the log through the API cannot test a guessed id; an operator who wants the key apart from the
 * data and its backups sets ERASURE_LOG_KEY). The first load also keys the rows written before the
 * log was keyed (their plain SHA-256 becomes its digest under the current key).
 */
export class ErasureLogKeys {
  private loaded: Promise<Keyring> | undefined;
  private readonly config: ErasureLogKeyConfig;
  private readonly db: Db;
  private readonly logger: Logger;

  constructor(config: ErasureLogKeyConfig, db: Db, logger: Logger) {
    this.config = config;
    this.db = db;
    this.logger = logger;
  }

  /** The digest a new log entry keeps (under the current key). */
  async digest(externalId: string): Promise<string> {
    return externalIdDigest((await this.keys()).current, externalId);
  }

  /** The digests an entry of this external id may hold: one per key, the current one first. */
  async digests(externalId: string): Promise<string[]> {
    const { current, previous } = await this.keys();
    return [current, ...previous].map((key) => externalIdDigest(key, externalId));
  }

  keys(): Promise<Keyring> {
    this.loaded ??= this.load().catch((error: unknown) => {
      this.loaded = undefined;
      throw error;
    });
    return this.loaded;
  }

  private async load(): Promise<Keyring> {
    const configuredPrevious = this.config.ERASURE_LOG_KEY_PREVIOUS ? [parseKey(this.config.ERASURE_LOG_KEY_PREVIOUS)] : [];
    let keyring: Keyring;
    if (this.config.ERASURE_LOG_KEY) {
      const generated = await this.generatedKey(false);
      keyring = { current: parseKey(this.config.ERASURE_LOG_KEY), previous: [...configuredPrevious, ...(generated ? [generated] : [])] };
    } else {
      keyring = { current: (await this.generatedKey(true))!, previous: configuredPrevious };
    }
    await this.keyLegacyRows(keyring.current);
    return keyring;
  }

  /** The key kept in the database, generated first when `create` (of two processes, one writes it). */
  private async generatedKey(create: boolean): Promise<Buffer | undefined> {
    const read = async () => (await readSetting<{ key: string }>(GENERATED_KEY_SETTING, this.db))?.key;
    let text = await read();
    if (text === undefined && create) {
      await claimSetting(GENERATED_KEY_SETTING, { key: randomBytes(32).toString('base64') }, this.db);
      text = await read();
    }
    return text === undefined ? undefined : Buffer.from(text, 'base64');
  }

  private async keyLegacyRows(key: Buffer): Promise<void> {
    let keyed = 0;
    for (;;) {
      const rows = await unkeyedErasures(500, this.db);
      for (const row of rows) await keyErasure(row.id, row.sha256, digestOfSha256(key, row.sha256), this.db);
      keyed += rows.length;
      if (rows.length < 500) break;
    }
    if (keyed > 0) this.logger.info({ entries: keyed }, 'erasure log: entries written before it was keyed now hold their keyed digest');
  }
}
