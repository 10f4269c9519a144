import { describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/app.ts';
import { createLiveNote } from '../helpers/live-notes.ts';
import { as, createClinicWithKeys, PREFIX } from '../helpers/notes.ts';
import { postNote, uploadNote } from '../helpers/uploads.ts';

// What the plan is read with: the visit date an upload or a live note names (or the clinic's day),
// and the settings `timezone` and `drug_names`, each validated with the documented 422.

const { app, db } = await createTestApp();
const clinic = await createClinicWithKeys(db.database);

const noteOf = async (id: string) =>
  (await app.inject({ method: 'GET', url: `${PREFIX}/notes/${id}`, headers: as(clinic.viewer) })).json().data;
const patchSettings = (payload: object, key = clinic.admin) =>
  app.inject({ method: 'PATCH', url: `${PREFIX}/settings`, headers: as(key), payload });
const dayIn = (timeZone: string, at = new Date()) =>
  new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);

describe('visit_date', () => {
  it('is stored as sent by an upload and a live note', async () => {
    const uploaded = await uploadNote(app, clinic.editor, { name: 'Rex', visit_date: '2026-03-02' });
    expect((await noteOf(uploaded)).visit_date).toBe('2026-03-02');
    const live = await app.inject({
      method: 'POST',
      url: `${PREFIX}/notes/live`,
      headers: as(clinic.editor),
      payload: { name: 'Mia', visit_date: '2024-02-29' },
    });
    expect(live.statusCode, live.body).toBe(201);
    expect((await noteOf(live.json().data.id)).visit_date).toBe('2024-02-29');
  });

  it.each(['2026-02-30', '2026-13-01', '07/12/2026', '2026-1-5', '', 20261207])('refuses %j with 422 naming the field', async (bad) => {
    const uploaded = await postNote(app, clinic.editor, {
      audio: { bytes: Buffer.from('never read'), fileName: 'a.mp3' },
      metadata: { name: 'Rex', visit_date: bad },
    });
    expect(uploaded.statusCode, uploaded.body).toBe(422);
    expect(uploaded.json()).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'metadata.visit_date' } });
    const live = await app.inject({
      method: 'POST',
      url: `${PREFIX}/notes/live`,
      headers: as(clinic.editor),
      payload: { name: 'Mia', visit_date: bad },
    });
    expect(live.statusCode, live.body).toBe(422);
    expect(live.json()).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'visit_date' } });
  });

  // Kiritimati is UTC+14 and Pago Pago UTC-11: at any hour, one of them is not on the UTC day.
  it.each(['Pacific/Kiritimati', 'Pacific/Pago_Pago'])(
    "is, when absent, the day the note was created in the clinic's zone (%s)",
    async (zone) => {
      const other = await createClinicWithKeys(db.database, `Clínica ${zone}`);
      expect((await patchSettings({ timezone: zone }, other.admin)).statusCode).toBe(200);
      const before = dayIn(zone);
      const id = await createLiveNote(app, other.editor, 'Sem data');
      const after = dayIn(zone);
      const note = (await app.inject({ method: 'GET', url: `${PREFIX}/notes/${id}`, headers: as(other.viewer) })).json().data;
      expect([before, after]).toContain(note.visit_date);
    },
  );

  it('is, when absent, the day in São Paulo for a clinic that chose no zone', async () => {
    const before = dayIn('America/Sao_Paulo');
    const mine = await createLiveNote(app, clinic.editor, 'Sem data');
    expect([before, dayIn('America/Sao_Paulo')]).toContain((await noteOf(mine)).visit_date);
  });
});

describe('settings timezone and drug_names', () => {
  it('shows the defaults until changed', async () => {
    const fresh = await createClinicWithKeys(db.database, 'Clínica Nova');
    const settings = (await app.inject({ method: 'GET', url: `${PREFIX}/settings`, headers: as(fresh.viewer) })).json().data;
    expect(settings).toMatchObject({ timezone: 'America/Sao_Paulo', drug_names: [] });
  });

  it('takes an IANA zone (in its canonical spelling) and refuses anything else with 422', async () => {
    const changed = await patchSettings({ timezone: 'america/manaus' });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json().data.timezone).toBe('America/Manaus');
    for (const bad of ['Mars/Olympus', '-03:00', 'GMT-3 ', '', 'America/Sao Paulo', 42]) {
      const refused = await patchSettings({ timezone: bad });
      expect(refused.statusCode, `${bad}: ${refused.body}`).toBe(422);
      expect(refused.json()).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'timezone' } });
    }
    expect((await app.inject({ method: 'GET', url: `${PREFIX}/settings`, headers: as(clinic.viewer) })).json().data.timezone).toBe(
      'America/Manaus',
    );
  });

  it('keeps drug names trimmed, once each (case and accents aside), in the order sent', async () => {
    const changed = await patchSettings({
      drug_names: ['  Apoquel ', 'Cefalexina Manipulada', 'apoquel', 'CEFALEXINA manipulada', 'Óleo X'],
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json().data.drug_names).toEqual(['Apoquel', 'Cefalexina Manipulada', 'Óleo X']);
    // A PATCH replaces the list whole.
    expect((await patchSettings({ drug_names: [] })).json().data.drug_names).toEqual([]);
  });

  it.each([
    ['a name of one character', ['x'], 'drug_names.0'],
    ['a name of 61 characters', ['ok', 'y'.repeat(61)], 'drug_names.1'],
    ['blanks only', ['   '], 'drug_names.0'],
    ['501 names', Array.from({ length: 501 }, (_, i) => `droga ${i}`), 'drug_names'],
    ['a number', [12], 'drug_names.0'],
  ])('refuses %s with 422', async (_case, names, field) => {
    const refused = await patchSettings({ drug_names: names });
    expect(refused.statusCode, refused.body).toBe(422);
    expect(refused.json()).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
  });

  it('takes 500 names, and only from an administrator', async () => {
    const names = Array.from({ length: 500 }, (_, i) => `droga ${i}`);
    expect((await patchSettings({ drug_names: names })).json().data.drug_names).toHaveLength(500);
    const byEditor = await patchSettings({ drug_names: ['rimadyl'] }, clinic.editor);
    expect(byEditor.statusCode).toBe(403);
    expect(
      (await app.inject({ method: 'GET', url: `${PREFIX}/settings`, headers: as(clinic.viewer) })).json().data.drug_names,
    ).toHaveLength(500);
  });
});
