import { describe, expect, it } from 'vitest';
import { SOAP } from '../../src/notes/templates/builtin-templates.ts';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createTestApp } from '../helpers/app.ts';
import { as, createClinicWithKeys } from '../helpers/notes.ts';

// GET /patients/{external_id} and GET /patients: a patient's notes as one history. Notes are
// written with SQL as the worker leaves them (sections, vitals, plan, visit date), so each kind of
// note (draft, signed, amended, failed, pending; two templates) is exactly what the test says.
const { app, db } = await createTestApp();
const clinic = await createClinicWithKeys(db.database);
const other = await createClinicWithKeys(db.database, 'Outra');
const run = db.database.db;

const range = (start: number) => ({ start, end: start + 2 });
const meloxicam = (dose: number, start: number) => ({
  id: crypto.randomUUID(),
  text: `meloxicam ${dose} mg/kg a cada 24 horas`,
  evidence: range(start),
  drug: 'meloxicam',
  dose_value: dose,
  dose_unit: 'mg/kg',
  route: 'oral',
  interval_hours: 24,
  duration_days: 5,
  status: 'prescribed',
  computed_total: null,
});
const recheck = (visit: string, days: number) => {
  const due = new Date(`${visit}T00:00:00Z`);
  due.setUTCDate(due.getUTCDate() + days);
  return {
    id: crypto.randomUUID(),
    text: `retorno em ${days} dias`,
    evidence: range(40),
    kind: 'recheck',
    due_in_days: days,
    due_date: due.toISOString().slice(0, 10),
  };
};
const weight = (kg: number) => ({
  code: 'weight',
  value: kg,
  unit: 'kg',
  comparator: null,
  text: `${kg} kg`,
  evidence: range(5),
  flag: null,
});
const today = new Date().toISOString().slice(0, 10);
const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);

interface Visit {
  clinicId?: string;
  externalId?: string;
  name?: string;
  visit: string;
  status?: string;
  record?: string;
  template?: typeof SOAP;
  sections?: Record<string, string>;
  vitals?: unknown[];
  plan?: { medications?: unknown[]; follow_ups?: unknown[] } | null;
  species?: string | null;
}

async function note(v: Visit): Promise<string> {
  const plan = v.plan === null ? null : { medications: [], exams: [], vaccines: [], follow_ups: [], ...v.plan };
  const template = v.template ? { id: v.template.id, slug: v.template.slug, name: v.template.name, sections: v.template.sections } : null;
  const result = (await run.execute(sql`
    insert into notes (clinic_id, name, external_id, species, audio_key, audio_format, audio_bytes, audio_sha256, audio_duration_seconds,
                       transcription_status, record_status, template, vitals, plan, visit_date, created_at)
    values (${v.clinicId ?? clinic.clinicId}, ${v.name ?? 'Thor'}, ${v.externalId ?? 'thor-1'}, ${v.species === undefined ? 'canine' : v.species},
            'k', 'mp3', 1, 'x', 1, ${v.status ?? 'completed'}, ${v.record ?? 'draft'}, ${template ? JSON.stringify(template) : null}::jsonb,
            ${JSON.stringify(v.vitals ?? [])}::jsonb, ${plan ? JSON.stringify(plan) : null}::jsonb, ${v.visit}::date, ${`${v.visit}T12:00:00Z`}::timestamptz)
    returning id`)) as unknown as { rows: { id: string }[] };
  const id = result.rows[0]!.id;
  let position = 0;
  for (const [label, content] of Object.entries(v.sections ?? {})) {
    position += 1;
    await run.execute(sql`insert into note_sections (note_id, label, title, content, "order", position)
      values (${id}, ${label}, ${label}, ${content}, ${String(position)}, ${position})`);
  }
  return id;
}

// Thor: three visits over a month (the dose of meloxicam changed at the second, a recheck at the
// third), plus a failed upload and one still pending.
const first = await note({
  visit: daysAgo(30),
  record: 'signed',
  sections: { anamnesis: 'Coça as orelhas.', diagnosis: 'Otite externa bilateral.' },
  vitals: [weight(30.1)],
  plan: { medications: [meloxicam(0.1, 10)], follow_ups: [recheck(daysAgo(30), 14)] },
});
const second = await note({
  visit: daysAgo(16),
  record: 'amended',
  template: SOAP,
  sections: { subjetivo: 'Melhorou.', avaliacao: 'Otite externa em melhora.' },
  vitals: [weight(29.4)],
  plan: { medications: [meloxicam(0.2, 12)], follow_ups: [recheck(daysAgo(16), 14)] },
});
const third = await note({
  visit: daysAgo(2),
  sections: { diagnosis: 'Otite resolvida.' },
  vitals: [weight(29.8)],
  plan: { follow_ups: [recheck(daysAgo(2), 30)] },
});
await note({ visit: daysAgo(1), status: 'failed', plan: null });
await note({ visit: today, status: 'pending', plan: null, species: null, name: 'Thor Silva' });
// Before plans existed: completed, no plan, no visit date's vitals.
const old = await note({ externalId: 'rex-9', name: 'Rex', visit: '2025-01-10', plan: null, sections: { diagnosis: 'Dermatite.' } });
// Another clinic uses the same external id for its own animal.
await note({ clinicId: other.clinicId, name: 'Outro Thor', visit: daysAgo(3), sections: { diagnosis: 'Fratura.' } });
await note({ clinicId: other.clinicId, externalId: 'only-other', name: 'Mimi', visit: daysAgo(3) });

async function history(externalId: string, key = clinic.viewer) {
  return app.inject({ method: 'GET', url: `/notes/v1/patients/${encodeURIComponent(externalId)}`, headers: as(key) });
}

describe('GET /patients/{external_id}', () => {
  it('assembles the visits, newest first, each item citing its note', async () => {
    const response = await history('thor-1');
    expect(response.statusCode, response.body).toBe(200);
    const { data } = response.json();
    expect(data).toMatchObject({
      external_id: 'thor-1',
      name: 'Thor Silva',
      species: 'canine',
      notes: 5,
      first_visit: daysAgo(30),
      last_visit: daysAgo(2),
    });
    expect(data.timeline.map((visit: { note_id: string }) => visit.note_id)).toEqual([third, second, first]);
    expect(data.timeline.map((visit: { record_status: string }) => visit.record_status)).toEqual(['draft', 'amended', 'signed']);
    // The diagnosis section is the template's: `diagnosis` in padrao, `avaliacao` in SOAP.
    expect(data.timeline.map((visit: { diagnosis: string }) => visit.diagnosis)).toEqual([
      'Otite resolvida.',
      'Otite externa em melhora.',
      'Otite externa bilateral.',
    ]);
    const doses = data.timeline.flatMap(
      (visit: { medications: { drug: string; dose_value: number; note_id: string; evidence: unknown }[] }) =>
        visit.medications.map((m) => [m.drug, m.dose_value, m.note_id, m.evidence]),
    );
    expect(doses).toEqual([
      ['meloxicam', 0.2, second, range(12)],
      ['meloxicam', 0.1, first, range(10)],
    ]);
    expect(data.timeline[0].vitals).toEqual([{ ...weight(29.8), note_id: third }]);
    expect(data.timeline[0].follow_ups[0]).toMatchObject({ note_id: third, kind: 'recheck', due_in_days: 30 });
  });

  it('charts the weights oldest first', async () => {
    const { data } = (await history('thor-1')).json();
    expect(data.weights).toEqual([
      { visit_date: daysAgo(30), kg: 30.1, note_id: first },
      { visit_date: daysAgo(16), kg: 29.4, note_id: second },
      { visit_date: daysAgo(2), kg: 29.8, note_id: third },
    ]);
  });

  it('keeps open only follow-ups due from today, or overdue with no later visit', async () => {
    const { data } = (await history('thor-1')).json();
    // The first visit's recheck (16 days ago) and the second's (2 days ago) were followed by later
    // visits; the third's is due in 28 days.
    expect(data.open_follow_ups.map((f: { note_id: string; due_date: string }) => [f.note_id, f.due_date])).toEqual([
      [third, recheck(daysAgo(2), 30).due_date],
    ]);
    const lone = await note({ externalId: 'lone-1', visit: daysAgo(20), plan: { follow_ups: [recheck(daysAgo(20), 7)] } });
    const overdue = (await history('lone-1')).json().data.open_follow_ups;
    expect(overdue.map((f: { note_id: string }) => f.note_id)).toEqual([lone]);
  });

  it('shows a note made before plans with empty lists', async () => {
    const { data } = (await history('rex-9')).json();
    expect(data.timeline).toEqual([
      {
        note_id: old,
        visit_date: '2025-01-10',
        record_status: 'draft',
        diagnosis: 'Dermatite.',
        medications: [],
        vitals: [],
        follow_ups: [],
      },
    ]);
    expect(data.weights).toEqual([]);
    expect(data.open_follow_ups).toEqual([]);
  });

  it('answers 404 PATIENT_NOT_FOUND for an id none of the clinic notes carries', async () => {
    const response = await history('nobody');
    expect(response.statusCode).toBe(404);
    expect(response.json().code).toBe('PATIENT_NOT_FOUND');
  });

  it("never shows another clinic's notes, even under the same external id", async () => {
    const theirs = (await history('thor-1', other.viewer)).json().data;
    expect(theirs.name).toBe('Outro Thor');
    expect(theirs.timeline.map((visit: { diagnosis: string }) => visit.diagnosis)).toEqual(['Fratura.']);
    const mine = await history('only-other');
    expect(mine.statusCode).toBe(404);
    expect(mine.json().code).toBe('PATIENT_NOT_FOUND');
  });

  it('leaves nothing of an erased patient, in its history or in a search', async () => {
    await note({ externalId: 'gone-1', name: 'Pipoca', visit: daysAgo(5), sections: { diagnosis: 'Cinomose suspeita.' } });
    expect((await history('gone-1')).statusCode).toBe(200);
    const erased = await app.inject({
      method: 'POST',
      url: '/notes/v1/erasures',
      headers: as(clinic.admin),
      payload: { external_id: 'gone-1', reason: 'Pedido do tutor (LGPD)' },
    });
    expect(erased.statusCode, erased.body).toBe(200);
    expect((await history('gone-1')).statusCode).toBe(404);
    const search = await app.inject({ method: 'GET', url: '/notes/v1/notes?q=cinomose', headers: as(clinic.viewer) });
    expect(search.json().meta.total).toBe(0);
    const listed = await app.inject({ method: 'GET', url: '/notes/v1/patients?q=pipoca', headers: as(clinic.viewer) });
    expect(listed.json().data).toEqual([]);
  });
});

describe('GET /patients', () => {
  async function list(params: Record<string, string>, key = clinic.viewer) {
    const response = await app.inject({ method: 'GET', url: `/notes/v1/patients?${new URLSearchParams(params)}`, headers: as(key) });
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  }

  it('lists the patients, the latest visit first', async () => {
    const body = await list({});
    expect(body.data.map((p: { external_id: string }) => p.external_id)).toEqual(['thor-1', 'lone-1', 'rex-9']);
    expect(body.data[0]).toEqual({ external_id: 'thor-1', name: 'Thor Silva', species: 'canine', notes: 5, last_visit: today });
    expect(body.meta).toEqual({ total: 3, page: 1, limit: 10, total_pages: 1 });
  });

  it('pages and finds by part of the name or the id, accents aside', async () => {
    const page = await list({ limit: '1', page: '2' });
    expect(page.data.map((p: { external_id: string }) => p.external_id)).toEqual(['lone-1']);
    expect(page.meta.total_pages).toBe(3);
    expect((await list({ q: 'RÉX' })).data.map((p: { external_id: string }) => p.external_id)).toEqual(['rex-9']);
    expect((await list({ q: 'lone' })).data.map((p: { external_id: string }) => p.external_id)).toEqual(['lone-1']);
    expect((await list({ q: '%' })).data).toEqual([]);
  });

  it("shows only the clinic's own patients", async () => {
    const theirs = await list({}, other.viewer);
    expect(theirs.data.map((p: { external_id: string }) => p.external_id).sort()).toEqual(['only-other', 'thor-1']);
    expect(theirs.data.find((p: { external_id: string }) => p.external_id === 'thor-1').name).toBe('Outro Thor');
  });
});
