import { describe, expect, it } from 'vitest';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createTestApp } from '../helpers/app.ts';
import { raceBehindLock } from '../helpers/database.ts';
import { as, createClinicWithKeys } from '../helpers/notes.ts';

// What a clinic may hold (templates, webhook endpoints, active API keys) and how their lists page.
const { app, db } = await createTestApp();
const run = (query: ReturnType<typeof sql>) => db.database.db.execute(query);

const SECTIONS = JSON.stringify([
  {
    label: 'tudo',
    title: 'Tudo',
    includes: ['anamnesis', 'physical_exam', 'diagnosis', 'treatment', 'observations', 'follow_up'],
    instructions: null,
  },
]);

/** Two creations at once: on Postgres both wait behind the clinic's row lock, then race. */
async function twoAtOnce<T>(clinicId: string, create: () => Promise<T>): Promise<T[]> {
  if (!db.url) return Promise.all([create(), create()]);
  return raceBehindLock(db.url, 'select 1 from clinics where id = $1 for no key update', [clinicId], 2, () =>
    Promise.all([create(), create()]),
  );
}

function expectOneRefused(answers: { statusCode: number; json(): any }[], limit: number, resource: string) {
  expect(answers.map((answer) => answer.statusCode).sort()).toEqual([201, 409]);
  const refused = answers.find((answer) => answer.statusCode === 409);
  expect(refused?.json()).toMatchObject({ code: 'LIMIT_REACHED', details: { limit, resource } });
}

describe('templates', () => {
  const template = (slug: string) => ({ slug, name: slug, sections: JSON.parse(SECTIONS) });

  it('pages the list, built-ins first; without paging parameters every template up to the cap', async () => {
    const clinic = await createClinicWithKeys(db.database, 'Modelos');
    await run(sql`
      insert into note_templates (clinic_id, slug, name, sections, created_at)
      select ${clinic.clinicId}, 'modelo-' || lpad(i::text, 3, '0'), 'Modelo ' || i, ${SECTIONS}::jsonb, now() + i * interval '1 ms'
      from generate_series(1, 30) as i`);
    const whole = await app.inject({ method: 'GET', url: '/notes/v1/templates', headers: as(clinic.viewer) });
    expect(whole.statusCode).toBe(200);
    const all = whole.json();
    expect(all.data).toHaveLength(32);
    expect(all.data.slice(0, 3).map((t: { slug: string }) => t.slug)).toEqual(['padrao', 'soap', 'modelo-001']);
    expect(all.meta).toEqual({ total: 32, page: 1, limit: 250, total_pages: 1 });

    const page = await app.inject({ method: 'GET', url: '/notes/v1/templates?page=2&limit=10', headers: as(clinic.viewer) });
    expect(page.json().meta).toEqual({ total: 32, page: 2, limit: 10, total_pages: 4 });
    expect(page.json().data.map((t: { slug: string }) => t.slug)).toEqual(all.data.slice(10, 20).map((t: { slug: string }) => t.slug));
    const last = await app.inject({ method: 'GET', url: '/notes/v1/templates?page=4&limit=10', headers: as(clinic.viewer) });
    expect(last.json().data.map((t: { slug: string }) => t.slug)).toEqual(['modelo-029', 'modelo-030']);
    const tooMany = await app.inject({ method: 'GET', url: '/notes/v1/templates?limit=251', headers: as(clinic.viewer) });
    expect(tooMany.statusCode).toBe(422);
  });

  it('refuses the 201st template with 409 LIMIT_REACHED, and of two creations at 199 only one succeeds', async () => {
    const clinic = await createClinicWithKeys(db.database, 'Modelos no limite');
    await run(sql`
      insert into note_templates (clinic_id, slug, name, sections)
      select ${clinic.clinicId}, 'modelo-' || i, 'Modelo ' || i, ${SECTIONS}::jsonb from generate_series(1, 199) as i`);
    let n = 0;
    const create = () =>
      app.inject({ method: 'POST', url: '/notes/v1/templates', headers: as(clinic.admin), payload: template(`novo-${++n}`) });
    expectOneRefused(await twoAtOnce(clinic.clinicId, create), 200, 'templates');
    const refused = await create();
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toMatch(/200/);

    const [first] = (await app.inject({ method: 'GET', url: '/notes/v1/templates?page=2&limit=200', headers: as(clinic.admin) })).json()
      .data;
    expect((await app.inject({ method: 'DELETE', url: `/notes/v1/templates/${first.id}`, headers: as(clinic.admin) })).statusCode).toBe(
      204,
    );
    expect((await create()).statusCode).toBe(201);
  });
});

describe('webhook endpoints', () => {
  it('refuses the 21st endpoint with 409 LIMIT_REACHED (of two at 19 only one succeeds) and pages the list', async () => {
    const clinic = await createClinicWithKeys(db.database, 'Ganchos');
    let n = 0;
    const create = () =>
      app.inject({
        method: 'POST',
        url: '/notes/v1/webhooks',
        headers: as(clinic.admin),
        payload: { url: `https://erp.example.com/hooks/${++n}`, events: ['note.completed'] },
      });
    for (let i = 0; i < 19; i++) expect((await create()).statusCode).toBe(201);
    expectOneRefused(await twoAtOnce(clinic.clinicId, create), 20, 'webhooks');

    const whole = (await app.inject({ method: 'GET', url: '/notes/v1/webhooks', headers: as(clinic.admin) })).json();
    expect(whole.data).toHaveLength(20);
    expect(whole.meta).toEqual({ total: 20, page: 1, limit: 100, total_pages: 1 });
    const page = (await app.inject({ method: 'GET', url: '/notes/v1/webhooks?page=3&limit=7', headers: as(clinic.admin) })).json();
    expect(page.meta).toEqual({ total: 20, page: 3, limit: 7, total_pages: 3 });
    expect(page.data.map((w: { id: string }) => w.id)).toEqual(whole.data.slice(14).map((w: { id: string }) => w.id));

    const [oldest] = page.data.slice(-1);
    expect((await app.inject({ method: 'DELETE', url: `/notes/v1/webhooks/${oldest.id}`, headers: as(clinic.admin) })).statusCode).toBe(
      200,
    );
    expect((await create()).statusCode).toBe(201);
  });
});

describe('API keys', () => {
  it('refuses the 501st active key with 409 LIMIT_REACHED (of two at 499 only one succeeds); inactive keys do not count', async () => {
    // The helper's clinic holds 3 active keys (administrator, editor, viewer) and 3 inactive ones.
    const clinic = await createClinicWithKeys(db.database, 'Chaves');
    await run(sql`
      insert into notes_api_keys (clinic_id, name, role, permissions, key_hash, prefix, revoked_at)
      select ${clinic.clinicId}, 'chave ' || i, 'viewer', array['notes:read'], md5(${clinic.clinicId} || '-' || i), 'vnk_0000',
             case when i > 496 then now() end
      from generate_series(1, 506) as i`);
    const create = () =>
      app.inject({ method: 'POST', url: '/notes/v1/api-keys', headers: as(clinic.admin), payload: { name: 'mais uma', role: 'viewer' } });
    expectOneRefused(await twoAtOnce(clinic.clinicId, create), 500, 'api_keys');

    const whole = (await app.inject({ method: 'GET', url: '/notes/v1/api-keys', headers: as(clinic.admin) })).json();
    expect(whole.meta).toEqual({ total: 513, page: 1, limit: 500, total_pages: 2 });
    expect(whole.data).toHaveLength(500);
    const page = (await app.inject({ method: 'GET', url: '/notes/v1/api-keys?page=2&limit=500', headers: as(clinic.admin) })).json();
    expect(page.data).toHaveLength(13);
    const ids = new Set([...whole.data, ...page.data].map((key: { id: string }) => key.id));
    expect(ids.size).toBe(513);

    expect(
      (await app.inject({ method: 'DELETE', url: `/notes/v1/api-keys/${clinic.viewerId}`, headers: as(clinic.admin) })).statusCode,
    ).toBe(200);
    expect((await create()).statusCode).toBe(201);
  });
});
