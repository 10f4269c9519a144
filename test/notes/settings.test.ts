import { describe, expect, it } from 'vitest';
import { clinicSettings } from '../../src/platform/db/schema/index.ts';
import { createTestApp } from '../helpers/app.ts';
import { as, createClinicWithKeys } from '../helpers/notes.ts';

const { app, db } = await createTestApp();
const clinic = await createClinicWithKeys(db.database, 'Clínica A');
const other = await createClinicWithKeys(db.database, 'Clínica B');

const getSettings = (key: string) => app.inject({ method: 'GET', url: '/notes/v1/settings', headers: as(key) });
const patchSettings = (key: string, payload: object) =>
  app.inject({ method: 'PATCH', url: '/notes/v1/settings', headers: as(key), payload });

describe('clinic settings', () => {
  it('start at their defaults, readable by any key of the clinic', async () => {
    const response = await getSettings(clinic.viewer);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ status: 'success', data: { default_template: 'padrao' } });
  });

  it('are changed by an administrator only', async () => {
    const byEditor = await patchSettings(clinic.editor, { default_template: 'padrao' });
    expect(byEditor.statusCode).toBe(403);
    expect(byEditor.json().code).toBe('INSUFFICIENT_PERMISSIONS');
    const byAdmin = await patchSettings(clinic.admin, { default_template: 'padrao' });
    expect(byAdmin.statusCode).toBe(200);
    expect(byAdmin.json().data.default_template).toBe('padrao');
  });

  it('refuses an unknown template, a misspelt setting and an empty value, changing nothing', async () => {
    const unknown = await patchSettings(clinic.admin, { default_template: 'nao-existe' });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json()).toMatchObject({ code: 'TEMPLATE_NOT_FOUND', details: { field: 'default_template' } });
    const misspelt = await patchSettings(clinic.admin, { default_templat: 'padrao' });
    expect(misspelt.statusCode).toBe(422);
    expect(misspelt.json().code).toBe('VALIDATION_ERROR');
    const empty = await patchSettings(clinic.admin, { default_template: '' });
    expect(empty.statusCode).toBe(422);
    expect((await getSettings(clinic.admin)).json().data.default_template).toBe('padrao');
  });

  it("are each clinic's own", async () => {
    await patchSettings(clinic.admin, { default_template: 'padrao' });
    const rows = await db.database.db.select({ clinicId: clinicSettings.clinicId }).from(clinicSettings);
    expect(rows).toEqual([{ clinicId: clinic.clinicId }]);
    expect((await getSettings(other.viewer)).json().data.default_template).toBe('padrao');
  });
});

describe('clinic settings changed at once', () => {
  it('keeps every change of simultaneous reference-range patches (none lost to another)', async () => {
    // Each patch is read, merged with the clinic's overrides and written back: without a lock, two at
    // once both merged into the same old overrides and the later write dropped the earlier change.
    const fresh = await createClinicWithKeys(db.database, 'Clínica simultânea');
    const species = ['canine', 'feline', 'equine', 'bovine', 'caprine', 'ovine', 'lagomorph', 'avian'];
    const answers = await Promise.all(
      species.map((name, i) => patchSettings(fresh.admin, { reference_ranges: { [name]: { heart_rate: { min: 1, max: 300 + i } } } })),
    );
    expect(answers.map((answer) => answer.statusCode)).toEqual(species.map(() => 200));
    const ranges = (await getSettings(fresh.admin)).json().data.reference_ranges;
    expect(species.map((name) => ranges[name].heart_rate)).toEqual(species.map((_, i) => ({ min: 1, max: 300 + i })));
  });
});
