import type { Db } from '../../platform/db/client.ts';
import { appSettings } from '../../platform/db/schema/index.ts';
import { createClinic } from './clinics.service.ts';

const DEMO_MARKER = 'demo.notes_clinic';

/**
 * On the first start against an empty database: a demo clinic and its administrator key, returned
 * once so the operator can try the API. The marker row and the clinic commit together, so the key
 * is shown exactly once even when several processes start at the same time.
 */
export async function ensureDemoClinic(db: Db): Promise<{ clinicId: string; adminKey: string } | null> {
  return db.transaction(async (tx) => {
    const claimed = await tx
      .insert(appSettings)
      .values({ key: DEMO_MARKER, value: { created: true } })
      .onConflictDoNothing()
      .returning({ key: appSettings.key });
    if (claimed.length === 0) return null;
    const { clinic, adminKey } = await createClinic(tx, { name: 'Demo Clinic' });
    await tx.update(appSettings).set({ value: { created: true, clinic_id: clinic.id } });
    return { clinicId: clinic.id, adminKey };
  });
}
