import { eq } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.ts';
import { appSettings, clinics } from '../../platform/db/schema/index.ts';
import { createClinic } from './clinics.service.ts';

const DEMO_MARKER = 'demo.notes_clinic';

/**
 * On the first start against a database without clinics: a demo clinic and its administrator key, returned
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
    // The marker stays either way: a database that had clinics before its first start (created with
    // `tenant create`) never gets a demo one later.
    if (claimed.length === 0 || (await tx.select({ id: clinics.id }).from(clinics).limit(1)).length > 0) return null;
    const { clinic, adminKey } = await createClinic(tx, { name: 'Demo Clinic' });
    await tx
      .update(appSettings)
      .set({ value: { created: true, clinic_id: clinic.id } })
      .where(eq(appSettings.key, DEMO_MARKER));
    return { clinicId: clinic.id, adminKey };
  });
}
