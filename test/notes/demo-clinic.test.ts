import { describe, expect, it } from 'vitest';
import { ensureDemoClinic } from '../../src/notes/clinics/demo-clinic.ts';
import { eq } from '../../src/platform/db/drizzle.ts';
import { appSettings, clinics } from '../../src/platform/db/schema/index.ts';
import { createTestApp } from '../helpers/app.ts';
import { createClinicWithKeys } from '../helpers/notes.ts';

// main.ts calls ensureDemoClinic on every start; the first start on a database without clinics
// creates one and prints its key (test/notes/notes-processes.test.ts runs that end to end).
describe('ensureDemoClinic', () => {
  it('creates the demo clinic once, marks it, and leaves other settings alone', async () => {
    const { app, db } = await createTestApp();
    try {
      const database = db.database.db;
      await database.insert(appSettings).values({ key: 'test.other', value: { untouched: true } });
      const demo = await ensureDemoClinic(database);
      expect(demo).toMatchObject({ clinicId: expect.any(String), adminKey: expect.stringMatching(/^vnk_[0-9a-f]{32}$/) });
      expect(await ensureDemoClinic(database)).toBeNull();
      expect(await database.select().from(clinics)).toHaveLength(1);
      const [other] = await database.select().from(appSettings).where(eq(appSettings.key, 'test.other'));
      expect(other?.value).toEqual({ untouched: true });
      const [marker] = await database.select().from(appSettings).where(eq(appSettings.key, 'demo.notes_clinic'));
      expect(marker?.value).toEqual({ created: true, clinic_id: demo!.clinicId });
    } finally {
      await app.close();
    }
  });

  it('creates nothing, ever, on a database that already has clinics', async () => {
    const { app, db } = await createTestApp();
    try {
      await createClinicWithKeys(db.database, 'Real clinic');
      expect(await ensureDemoClinic(db.database.db)).toBeNull();
      await db.database.db.delete(clinics);
      expect(await ensureDemoClinic(db.database.db)).toBeNull();
      expect(await db.database.db.select().from(clinics)).toHaveLength(0);
    } finally {
      await app.close();
    }
  });
});
