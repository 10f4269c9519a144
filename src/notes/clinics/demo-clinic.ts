import { claimSetting, updateSetting } from '../../platform/db/app-settings.repo.ts';
import type { Db } from '../../platform/db/client.ts';
import { DEMO_CREDENTIALS_DAYS } from '../../platform/demo-data.ts';
import type { CredentialBlock } from '../../platform/first-run-credentials.ts';
import { anyClinicExists } from './clinics.repo.ts';
import { createClinic } from './clinics.service.ts';

const DEMO_MARKER = 'demo.notes_clinic';

/**
 * On the first start against a database without clinics (the embedded one, or with DEMO_DATA=true:
 * main.ts asks `demoDataWanted`): a demo clinic and its administrator key, valid 30 days, returned
 * once so the operator can try the API. The marker row and the clinic commit together, so the key
 * is shown exactly once even when several processes start at the same time.
 */
export async function ensureDemoClinic(db: Db): Promise<{ clinicId: string; adminKey: string } | null> {
  return db.transaction(async (tx) => {
    const claimed = await claimSetting(DEMO_MARKER, { created: true }, tx);
    // The marker stays either way: a database that had clinics before its first start (created with
    // `tenant create`) never gets a demo one later.
    if (!claimed || (await anyClinicExists(tx))) return null;
    const adminKeyExpiresAt = new Date(Date.now() + DEMO_CREDENTIALS_DAYS * 86_400_000);
    const { clinic, adminKey } = await createClinic({ name: 'Demo Clinic', adminKeyExpiresAt }, tx);
    await updateSetting(DEMO_MARKER, { created: true, clinic_id: clinic.id }, tx);
    return { clinicId: clinic.id, adminKey };
  });
}

/** The demo clinic's key in the first-run credentials (platform/first-run-credentials.ts), never through the logger. */
export function demoClinicCredentials(demo: { clinicId: string; adminKey: string }, publicBaseUrl: string): CredentialBlock {
  return {
    title: `Notes API (${publicBaseUrl}/notes/v1): demo clinic`,
    fields: [
      { label: 'clinic', value: `Demo Clinic (${demo.clinicId})` },
      { label: 'administrator key', value: `${demo.adminKey}   (X-API-KEY header)` },
    ],
  };
}
