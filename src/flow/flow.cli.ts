import { z } from 'zod';
import { type CliCommand, type CliContext, CliError, requiredFlag } from '../platform/cli.ts';
import { AppError } from '../platform/errors.ts';
import { OPERATOR } from './callers.ts';
import { crmKeysService } from './keys/keys.service.ts';
import { workspacesService } from './operator/workspaces.service.ts';
import { usersService } from './users/users.service.ts';

// Operator commands of the CRM side . Output shapes are a contract that operators script against: change them never.

type Values = Record<string, string | boolean | undefined>;

const text = { type: 'string' } as const;

function uuidFlag(values: Values, name: string): string {
  const value = requiredFlag(values, name);
  if (!z.uuid().safeParse(value).success) throw new CliError(`--${name} must be a UUID`);
  return value.toLowerCase();
}

function choiceFlag<const T extends string>(values: Values, name: string, choices: readonly T[]): T | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !choices.includes(value as T)) throw new CliError(`--${name} must be one of ${choices.join(', ')}`);
  return value as T;
}

/** Services speak AppError; the operator gets its message as the one-line CLI error. */
async function asCli<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AppError) throw new CliError(error.message);
    throw error;
  }
}

const workspaceCreate: CliCommand = {
  name: 'workspace create',
  options: { name: text, 'admin-email': text, 'admin-password': text, 'sync-policy': text },
  async run({ config, database }: CliContext, values) {
    const input = {
      name: requiredFlag(values, 'name'),
      adminEmail: requiredFlag(values, 'admin-email'),
      adminPassword: requiredFlag(values, 'admin-password'),
      contactSyncPolicy: choiceFlag(values, 'sync-policy', ['flow', 'erp'] as const),
    };
    const { workspace, adminUserId } = await asCli(() =>
      workspacesService({ db: database.db, logN: config.PASSWORD_SCRYPT_LOG_N }).createWorkspace(OPERATOR, input),
    );
    return { workspace_id: workspace.id, admin_user_id: adminUserId };
  },
};

const workspaceUpdate: CliCommand = {
  name: 'workspace update',
  options: { workspace: text, billing: text, 'sync-policy': text, 'external-id-rekeying': text },
  async run({ config, database }: CliContext, values) {
    const workspaceId = uuidFlag(values, 'workspace');
    const billingStatus = choiceFlag(values, 'billing', ['active', 'suspended'] as const);
    const contactSyncPolicy = choiceFlag(values, 'sync-policy', ['flow', 'erp'] as const);
    const externalIdRekeying = choiceFlag(values, 'external-id-rekeying', ['replace', 'refuse'] as const);
    const changes = {
      ...(billingStatus ? { billingStatus } : {}),
      ...(contactSyncPolicy ? { contactSyncPolicy } : {}),
      ...(externalIdRekeying ? { externalIdRekeying } : {}),
    };
    const workspace = await asCli(() =>
      workspacesService({ db: database.db, logN: config.PASSWORD_SCRYPT_LOG_N }).changeWorkspace(OPERATOR, workspaceId, changes),
    );
    return {
      workspace_id: workspace.id,
      billing_status: workspace.billingStatus,
      contact_sync_policy: workspace.contactSyncPolicy,
      external_id_rekeying: workspace.externalIdRekeying,
    };
  },
};

const userCreate: CliCommand = {
  name: 'user create',
  options: { workspace: text, email: text, password: text, role: text },
  async run({ config, database }: CliContext, values) {
    const role = choiceFlag(values, 'role', ['administrator', 'agent'] as const);
    if (!role) throw new CliError('--role is required (administrator or agent)');
    const input = {
      workspaceId: uuidFlag(values, 'workspace'),
      email: requiredFlag(values, 'email'),
      password: requiredFlag(values, 'password'),
      role,
    };
    const user = await asCli(() => usersService({ db: database.db, logN: config.PASSWORD_SCRYPT_LOG_N }).createUser(OPERATOR, input));
    return { user_id: user.id };
  },
};

const crmKeyCreate: CliCommand = {
  name: 'crm-key create',
  options: { workspace: text, name: text, scopes: text },
  async run({ database }: CliContext, values) {
    const workspaceId = uuidFlag(values, 'workspace');
    const scopes = requiredFlag(values, 'scopes')
      .split(',')
      .map((scope) => scope.trim())
      .filter(Boolean);
    const { key, token } = await asCli(() =>
      crmKeysService({ db: database.db }).issueApiKey(OPERATOR, workspaceId, { name: requiredFlag(values, 'name'), scopes }),
    );
    return { id: key.id, token, workspace_id: key.workspaceId, scopes: key.scopes };
  },
};

export const flowCommands: readonly CliCommand[] = [workspaceCreate, workspaceUpdate, userCreate, crmKeyCreate];
