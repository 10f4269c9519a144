import { readFile } from 'node:fs/promises';
import { type CliCommand, CliError, CliFailure, type OfflineCliCommand, requiredFlag } from '../platform/cli.ts';
import { ROLES, type Role } from './callers.ts';
import { ClinicNotFoundError, createClinic, issueOperatorKey } from './clinics/clinics.service.ts';
import { verifyRecordText } from './export/verify-file.ts';
import { resealSecrets } from './webhooks/reseal.ts';
import { KEY_MISSING_MESSAGE, loadSecretKeyring } from './webhooks/secret-key.ts';
import { SecretBox } from './webhooks/secrets.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const tenantCreate: CliCommand = {
  name: 'tenant create',
  options: { name: { type: 'string' }, 'quota-minutes': { type: 'string' } },
  async run({ database }, values) {
    const name = requiredFlag(values, 'name');
    if (name.length > 200) throw new CliError('--name is longer than 200 characters');
    const quotaText = values['quota-minutes'];
    let quotaMinutes: number | null = null;
    if (quotaText !== undefined) {
      if (typeof quotaText !== 'string' || !/^\d+$/.test(quotaText)) throw new CliError('--quota-minutes must be a whole number');
      quotaMinutes = Number(quotaText);
    }
    const { clinic, adminKey, adminKeyId } = await createClinic({ name, quotaMinutes }, database.db);
    return { tenant_id: clinic.id, name: clinic.name, admin_key: adminKey, admin_key_id: adminKeyId };
  },
};

const keyCreate: CliCommand = {
  name: 'key create',
  options: { tenant: { type: 'string' }, role: { type: 'string' }, name: { type: 'string' }, 'expires-at': { type: 'string' } },
  async run({ database }, values) {
    const tenant = requiredFlag(values, 'tenant');
    if (!UUID.test(tenant)) throw new CliError('--tenant must be a UUID');
    const role = requiredFlag(values, 'role');
    if (!ROLES.includes(role as Role)) throw new CliError(`--role must be one of ${ROLES.join(', ')}`);
    const name = requiredFlag(values, 'name');
    let expiresAt: Date | null = null;
    if (values['expires-at'] !== undefined) {
      expiresAt = new Date(String(values['expires-at']));
      if (Number.isNaN(expiresAt.getTime())) throw new CliError('--expires-at must be an ISO 8601 timestamp');
      if (expiresAt.getTime() <= Date.now()) throw new CliError('--expires-at must be in the future');
    }
    try {
      return await issueOperatorKey({ clinicId: tenant.toLowerCase(), role: role as Role, name, expiresAt }, database.db);
    } catch (error) {
      if (error instanceof ClinicNotFoundError) throw new CliError(`no tenant ${tenant}`);
      throw error;
    }
  },
};

/** After a key rotation: every webhook signing secret re-encrypted under WEBHOOK_SECRET_KEY. */
const webhooksReseal: CliCommand = {
  name: 'webhooks reseal-secrets',
  async run({ config, database }) {
    const keyring = loadSecretKeyring(config);
    if (!keyring) throw new CliError(KEY_MISSING_MESSAGE);
    return resealSecrets(new SecretBox(keyring.current, keyring.previous), database.db);
  },
};

/**
 * `record verify FILE`: recomputes every hash of a JSON or FHIR export of the record, offline. Prints
 * `{notes, links, verified: true}`, or the first broken link and exits 1 (docs/notes-record.md).
 */
const recordVerify: OfflineCliCommand = {
  name: 'record verify',
  offline: true,
  positionals: ['file'],
  async run(_values, [file]) {
    let text: string;
    try {
      text = await readFile(file!, 'utf8');
    } catch (error) {
      throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    let verification: ReturnType<typeof verifyRecordText>;
    try {
      verification = verifyRecordText(text);
    } catch (error) {
      throw new CliError((error as Error).message);
    }
    if (!verification.verified) {
      const { note_id, link } = verification.broken;
      throw new CliFailure(`the record does not verify: note ${note_id}, ${link}`, verification);
    }
    return verification;
  },
};

export const notesCommands: readonly CliCommand[] = [tenantCreate, keyCreate, webhooksReseal];

/** The Notes commands that need no database. */
export const notesOfflineCommands: readonly OfflineCliCommand[] = [recordVerify];
