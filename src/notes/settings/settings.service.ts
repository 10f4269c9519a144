import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import type { StoredClinicProfile, StoredCrmLink } from '../../platform/db/schema/index.ts';
import { AppError } from '../../platform/errors.ts';
import type { NotesCaller } from '../callers.ts';
import { CRM_SEND_SCOPE, type CrmLink } from '../crm-link.ts';
import { lockClinic } from '../store/notes.repo.ts';
import { DEFAULT_TIMEZONE, findSettings, type SettingsRow, type SettingsValues, saveSettings } from '../store/settings.repo.ts';
import { findTemplateBySlug } from '../templates/find-template.ts';
import { effectiveRanges, patchOverrides, type RangeOverrides } from '../vitals/reference-ranges.ts';
import type { SecretBox } from '../webhooks/secrets.ts';
import type { Settings, SettingsPatch } from './settings.schemas.ts';

export interface SettingsDeps {
  db: Db;
  /** The CRM's answer about a key (the composition root's bridge to the CRM tree). */
  crmLink: Pick<CrmLink, 'describeKey'>;
  /** Seals the CRM token as webhook signing secrets are sealed (throws 503 when the server has no key). */
  secrets: () => SecretBox;
}

/** The API's settings: every setting, at the clinic's value or its default. */
export function toSettingsBody(row: SettingsRow | undefined): Settings {
  return {
    default_template: row?.defaultTemplate ?? 'padrao',
    reference_ranges: effectiveRanges((row?.referenceRanges ?? {}) as RangeOverrides),
    audio_retention_days: row?.audioRetentionDays ?? null,
    clinic_profile: row?.clinicProfile ?? null,
    timezone: row?.timezone ?? DEFAULT_TIMEZONE,
    drug_names: row?.drugNames ?? [],
    crm_link: row?.crmLink
      ? { workspace_id: row.crmLink.workspace_id, workspace_name: row.crmLink.workspace_name, key_prefix: row.crmLink.key_prefix }
      : null,
    owner_summary_template: row?.ownerSummaryTemplate ?? null,
  };
}

async function getSettings(deps: SettingsDeps, caller: NotesCaller): Promise<Settings> {
  return toSettingsBody(await findSettings(caller.clinicId, deps.db));
}

/**
 * Changes what the patch names, all or nothing; a setting left out keeps its value. One transaction
 * under the clinic's lock (lockClinic): simultaneous patches apply one after the other, none lost,
 * and a template deleted at the same time is either still there or refused (never a default that
 * names a deleted template).
 */
async function updateSettings(deps: SettingsDeps, caller: NotesCaller, patch: SettingsPatch): Promise<Settings> {
  if (Object.values(patch).every((value) => value === undefined)) return getSettings(deps, caller);
  // The key is looked up and sealed before the transaction: a refused token changes nothing.
  const crmLink = patch.crm_link ? await linkOf(deps, caller, patch.crm_link.token) : patch.crm_link;
  return deps.db.transaction(async (tx) => {
    await lockClinic(caller.clinicId, tx);
    const values: SettingsValues = {};
    if (crmLink !== undefined) values.crmLink = crmLink;
    if (patch.owner_summary_template !== undefined) values.ownerSummaryTemplate = patch.owner_summary_template;
    if (patch.default_template !== undefined) {
      // A built-in or one of the clinic's own templates, never another clinic's.
      if (!(await findTemplateBySlug(caller.clinicId, patch.default_template, tx))) {
        throw new AppError('TEMPLATE_NOT_FOUND', `No template "${patch.default_template}" in this clinic`, {
          field: 'default_template',
        });
      }
      values.defaultTemplate = patch.default_template;
    }
    if (patch.reference_ranges !== undefined) {
      const current = (await findSettings(caller.clinicId, tx))?.referenceRanges ?? {};
      values.referenceRanges = patchedRanges(current as RangeOverrides, patch.reference_ranges);
    }
    if (patch.audio_retention_days !== undefined) values.audioRetentionDays = patch.audio_retention_days;
    if (patch.clinic_profile !== undefined) values.clinicProfile = storedProfile(patch.clinic_profile);
    if (patch.timezone !== undefined) values.timezone = patch.timezone;
    if (patch.drug_names !== undefined) values.drugNames = patch.drug_names;
    return toSettingsBody(await saveSettings(caller.clinicId, values, tx));
  });
}

/** The whole profile replaces the old one; a line left out is stored as null (not printed). */
function storedProfile(profile: SettingsPatch['clinic_profile']): StoredClinicProfile | null {
  if (!profile) return null;
  return {
    name: profile.name,
    address: profile.address ?? null,
    phone: profile.phone ?? null,
    crmv_registration: profile.crmv_registration ?? null,
  };
}

/**
 * What linking `token` stores: the key must be a live CRM key with `messages:send`. The workspace
 * linked is the key's own: holding a key of a workspace is the only proof a clinic can give, so no
 * workspace id is taken from the body. The token is sealed with the clinic id as additional data,
 * so a sealed value copied onto another clinic's row does not open.
 */
async function linkOf(deps: SettingsDeps, caller: NotesCaller, token: string): Promise<StoredCrmLink> {
  const key = await deps.crmLink.describeKey(token);
  if (!key) {
    throw new AppError('CRM_TOKEN_INVALID', 'The CRM key is malformed, unknown or revoked', { field: 'crm_link.token' });
  }
  if (!key.scopes.includes(CRM_SEND_SCOPE)) {
    throw new AppError('CRM_SCOPE_MISSING', `The CRM key lacks the ${CRM_SEND_SCOPE} scope`, {
      field: 'crm_link.token',
      required_scope: CRM_SEND_SCOPE,
      granted_scopes: [...key.scopes],
    });
  }
  return {
    sealed_token: deps.secrets().seal(token, caller.clinicId),
    key_id: key.keyId,
    key_prefix: key.prefix,
    workspace_id: key.workspaceId,
    workspace_name: key.workspaceName,
  };
}

/** The clinic's overrides after the patch; a range whose minimum passes its maximum → 422. */
function patchedRanges(current: RangeOverrides, patch: NonNullable<SettingsPatch['reference_ranges']>): RangeOverrides {
  try {
    return patchOverrides(current, patch);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new AppError('VALIDATION_ERROR', `Invalid ${error.message}: min is above max`, {
      field: error.message,
      reason: 'min is above max',
    });
  }
}

export function settingsService(deps: SettingsDeps) {
  return bindService(deps, { get: getSettings, update: updateSettings });
}

export type SettingsService = ReturnType<typeof settingsService>;
