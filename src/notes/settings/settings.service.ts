import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import type { NotesCaller } from '../callers.ts';
import { lockClinic } from '../store/notes.repo.ts';
import { DEFAULT_TIMEZONE, findSettings, type SettingsRow, type SettingsValues, saveSettings } from '../store/settings.repo.ts';
import { findTemplateBySlug } from '../templates/find-template.ts';
import { effectiveRanges, patchOverrides, type RangeOverrides } from '../vitals/reference-ranges.ts';
import type { Settings, SettingsPatch } from './settings.schemas.ts';

export interface SettingsDeps {
  db: Db;
}

/** The API's settings: every setting, at the clinic's value or its default. */
export function toSettingsBody(row: SettingsRow | undefined): Settings {
  return {
    default_template: row?.defaultTemplate ?? 'padrao',
    reference_ranges: effectiveRanges((row?.referenceRanges ?? {}) as RangeOverrides),
    audio_retention_days: row?.audioRetentionDays ?? null,
    timezone: row?.timezone ?? DEFAULT_TIMEZONE,
    drug_names: row?.drugNames ?? [],
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
  return deps.db.transaction(async (tx) => {
    await lockClinic(caller.clinicId, tx);
    const values: SettingsValues = {};
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
    if (patch.timezone !== undefined) values.timezone = patch.timezone;
    if (patch.drug_names !== undefined) values.drugNames = patch.drug_names;
    return toSettingsBody(await saveSettings(caller.clinicId, values, tx));
  });
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
