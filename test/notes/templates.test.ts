import { describe, expect, it } from 'vitest';
import { PADRAO_TEMPLATE_ID, SOAP_TEMPLATE_ID } from '../../src/notes/templates/builtin-templates.ts';
import { createTestApp } from '../helpers/app.ts';
import { raceBehindLock } from '../helpers/database.ts';
import { as, createClinicWithKeys } from '../helpers/notes.ts';
import { fixture, postNote } from '../helpers/uploads.ts';

const { app, db } = await createTestApp();
const clinic = await createClinicWithKeys(db.database, 'Clínica A');
const other = await createClinicWithKeys(db.database, 'Clínica B');

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const list = (key: string) => app.inject({ method: 'GET', url: '/notes/v1/templates', headers: as(key) });
const get = (key: string, id: string) => app.inject({ method: 'GET', url: `/notes/v1/templates/${id}`, headers: as(key) });
const create = (key: string, payload: object) => app.inject({ method: 'POST', url: '/notes/v1/templates', headers: as(key), payload });
const patch = (key: string, id: string, payload: object) =>
  app.inject({ method: 'PATCH', url: `/notes/v1/templates/${id}`, headers: as(key), payload });
const remove = (key: string, id: string) => app.inject({ method: 'DELETE', url: `/notes/v1/templates/${id}`, headers: as(key) });
const settings = (key: string, payload?: object) =>
  app.inject({ method: payload ? 'PATCH' : 'GET', url: '/notes/v1/settings', headers: as(key), ...(payload ? { payload } : {}) });

const DERMA_SECTIONS = [
  {
    label: 'historico',
    title: 'Histórico',
    includes: ['anamnesis'],
    instructions: 'Tempo de evolução, prurido (0-10), banhos e produtos usados.',
  },
  {
    label: 'lesoes',
    title: 'Lesões',
    includes: ['physical_exam'],
    instructions: 'Distribuição e tipo de cada lesão (pápula, pústula, colarete, alopecia), sem abreviações.',
  },
  { label: 'diagnostico', title: 'Diagnóstico', includes: ['diagnosis'] },
  { label: 'conduta', title: 'Conduta', includes: ['treatment', 'follow_up'], instructions: null },
  { label: 'outros', title: 'Outros', includes: ['observations'] },
  { label: 'resumo_tutor', title: 'Resumo para o tutor', includes: [], instructions: 'Duas frases simples, sem termos técnicos.' },
];
const derma = { slug: 'dermatologia', name: 'Dermatologia', sections: DERMA_SECTIONS };

/** A valid body with one thing changed. */
const withSection = (index: number, change: object) => ({
  ...derma,
  slug: `t-${index}`,
  sections: DERMA_SECTIONS.map((section, i) => (i === index ? { ...section, ...change } : section)),
});

describe('built-in templates', () => {
  it('lists padrao then soap first, with fixed UUID v4 ids and the contract sections', async () => {
    const response = await list(clinic.viewer);
    expect(response.statusCode).toBe(200);
    const { status, data } = response.json();
    expect(status).toBe('success');
    expect(data.slice(0, 2).map((t: any) => [t.id, t.slug, t.builtin])).toEqual([
      [PADRAO_TEMPLATE_ID, 'padrao', true],
      [SOAP_TEMPLATE_ID, 'soap', true],
    ]);
    for (const template of data) expect(template.id).toMatch(UUID_V4);
    expect(data[0]).toEqual({
      id: PADRAO_TEMPLATE_ID,
      slug: 'padrao',
      name: 'Padrão',
      builtin: true,
      sections: [
        { label: 'anamnesis', title: 'Anamnese', includes: ['anamnesis'], instructions: null },
        { label: 'physical_exam', title: 'Exame Físico', includes: ['physical_exam'], instructions: null },
        { label: 'diagnosis', title: 'Diagnóstico', includes: ['diagnosis'], instructions: null },
        { label: 'treatment', title: 'Tratamento', includes: ['treatment'], instructions: null },
        { label: 'observations', title: 'Observações', includes: ['observations'], instructions: null },
        { label: 'follow_up', title: 'Seguimento', includes: ['follow_up'], instructions: null },
      ],
    });
    expect(data[1].sections).toEqual([
      { label: 'subjetivo', title: 'Subjetivo', includes: ['anamnesis'], instructions: null },
      { label: 'objetivo', title: 'Objetivo', includes: ['physical_exam'], instructions: null },
      { label: 'avaliacao', title: 'Avaliação', includes: ['diagnosis'], instructions: null },
      { label: 'plano', title: 'Plano', includes: ['treatment', 'follow_up', 'observations'], instructions: null },
    ]);
    expect((await get(other.viewer, SOAP_TEMPLATE_ID)).json().data).toEqual(data[1]);
  });

  it('cannot be changed or deleted (409 TEMPLATE_BUILTIN), nor shadowed by a custom slug (409 TEMPLATE_EXISTS)', async () => {
    for (const id of [PADRAO_TEMPLATE_ID, SOAP_TEMPLATE_ID]) {
      const changed = await patch(clinic.admin, id, { name: 'Outro' });
      expect(changed.statusCode).toBe(409);
      expect(changed.json()).toMatchObject({ error: 'conflict', code: 'TEMPLATE_BUILTIN' });
      const deleted = await remove(clinic.admin, id);
      expect(deleted.statusCode).toBe(409);
      expect(deleted.json().code).toBe('TEMPLATE_BUILTIN');
    }
    for (const slug of ['padrao', 'soap']) {
      const shadow = await create(clinic.admin, { ...derma, slug });
      expect(shadow.statusCode).toBe(409);
      expect(shadow.json()).toMatchObject({ code: 'TEMPLATE_EXISTS', details: { field: 'slug' } });
    }
    expect((await list(clinic.viewer)).json().data[1].name).toBe('SOAP');
  });
});

describe("a clinic's own templates", () => {
  let dermaId = '';

  it('are created by an administrator (201), listed after the built-ins and read by id', async () => {
    const response = await create(clinic.admin, derma);
    expect(response.statusCode, response.body).toBe(201);
    const { data } = response.json();
    dermaId = data.id;
    expect(data.id).toMatch(UUID_V4);
    expect(data).toEqual({
      id: data.id,
      slug: 'dermatologia',
      name: 'Dermatologia',
      builtin: false,
      sections: DERMA_SECTIONS.map((section) => ({ instructions: null, ...section })),
    });
    expect((await list(clinic.viewer)).json().data.map((t: any) => t.slug)).toEqual(['padrao', 'soap', 'dermatologia']);
    expect((await get(clinic.viewer, dermaId)).json().data).toEqual(data);
  });

  it('refuse a taken slug with 409 TEMPLATE_EXISTS', async () => {
    const again = await create(clinic.admin, { ...derma, name: 'Outra' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'TEMPLATE_EXISTS', details: { field: 'slug', slug: 'dermatologia' } });
  });

  it('are created and changed by administrators only', async () => {
    expect((await create(clinic.editor, { ...derma, slug: 'editor' })).statusCode).toBe(403);
    expect((await patch(clinic.editor, dermaId, { name: 'x' })).json().code).toBe('INSUFFICIENT_PERMISSIONS');
    expect((await remove(clinic.viewer, dermaId)).statusCode).toBe(403);
  });

  it('change their name and sections with the same validation; the slug never changes', async () => {
    const renamed = await patch(clinic.admin, dermaId, { name: 'Dermato' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json().data).toMatchObject({ slug: 'dermatologia', name: 'Dermato' });
    const resectioned = await patch(clinic.admin, dermaId, {
      sections: [
        { label: 'tudo', title: 'Tudo', includes: ['anamnesis', 'physical_exam', 'diagnosis', 'treatment', 'observations', 'follow_up'] },
      ],
    });
    expect(resectioned.statusCode).toBe(200);
    expect(resectioned.json().data.sections).toEqual([
      {
        label: 'tudo',
        title: 'Tudo',
        includes: ['anamnesis', 'physical_exam', 'diagnosis', 'treatment', 'observations', 'follow_up'],
        instructions: null,
      },
    ]);
    const missing = await patch(clinic.admin, dermaId, { sections: [{ label: 'a', title: 'A', includes: ['anamnesis'] }] });
    expect(missing.statusCode).toBe(422);
    expect(missing.json()).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'physical_exam', reason: 'in no section' } });
    const slug = await patch(clinic.admin, dermaId, { slug: 'outro' });
    expect(slug.statusCode).toBe(422);
    expect(slug.json().details.field).toBe('slug');
    const unchanged = await patch(clinic.admin, dermaId, {});
    expect(unchanged.json().data.name).toBe('Dermato');
    await patch(clinic.admin, dermaId, { name: 'Dermatologia', sections: DERMA_SECTIONS });
  });

  it('are deleted (204); the default that named one goes back to padrao', async () => {
    const temporary = (await create(clinic.admin, { ...derma, slug: 'temporario' })).json().data;
    expect((await settings(clinic.admin, { default_template: 'temporario' })).json().data.default_template).toBe('temporario');
    const deleted = await remove(clinic.admin, temporary.id);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    const gone = await get(clinic.admin, temporary.id);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().code).toBe('TEMPLATE_ID_NOT_FOUND');
    expect((await remove(clinic.admin, temporary.id)).statusCode).toBe(404);
    expect((await settings(clinic.viewer)).json().data.default_template).toBe('padrao');
  });

  it('can be the default: a built-in or one of its own', async () => {
    expect((await settings(clinic.admin, { default_template: 'dermatologia' })).statusCode).toBe(200);
    expect((await settings(clinic.admin, { default_template: 'soap' })).json().data).toMatchObject({ default_template: 'soap' });
    expect((await settings(clinic.viewer)).json().data.default_template).toBe('soap');
    await settings(clinic.admin, { default_template: 'padrao' });
  });

  describe('validation: 422 VALIDATION_ERROR naming the field, nothing created', () => {
    const cases: [string, object, string][] = [
      ['no slug', { name: 'x', sections: DERMA_SECTIONS }, 'slug'],
      ['an empty slug', { ...derma, slug: '' }, 'slug'],
      ['a slug of 51 characters', { ...derma, slug: 'a'.repeat(51) }, 'slug'],
      ['an upper-case slug', { ...derma, slug: 'Dermato' }, 'slug'],
      ['a slug with a space', { ...derma, slug: 'derma to' }, 'slug'],
      ['a slug with an underscore', { ...derma, slug: 'derma_to' }, 'slug'],
      ['no name', { slug: 'x1', sections: DERMA_SECTIONS }, 'name'],
      ['a blank name', { ...derma, slug: 'x2', name: '   ' }, 'name'],
      ['a name of 101 characters', { ...derma, slug: 'x3', name: 'n'.repeat(101) }, 'name'],
      ['no sections', { slug: 'x4', name: 'x' }, 'sections'],
      ['no section at all', { ...derma, slug: 'x5', sections: [] }, 'sections'],
      [
        '21 sections',
        {
          ...derma,
          slug: 'x6',
          sections: [
            {
              label: 'tudo',
              title: 'Tudo',
              includes: ['anamnesis', 'physical_exam', 'diagnosis', 'treatment', 'observations', 'follow_up'],
            },
            ...Array.from({ length: 20 }, (_, i) => ({ label: `extra_${i}`, title: 'Extra', includes: [] })),
          ],
        },
        'sections',
      ],
      ['a label with a hyphen', withSection(0, { label: 'his-torico' }), 'sections.0.label'],
      ['an upper-case label', withSection(1, { label: 'Lesoes' }), 'sections.1.label'],
      ['an empty label', withSection(2, { label: '' }), 'sections.2.label'],
      ['a label of 51 characters', withSection(2, { label: 'l'.repeat(51) }), 'sections.2.label'],
      ['a repeated label', withSection(4, { label: 'conduta' }), 'sections.4.label'],
      ['no title', withSection(0, { title: undefined }), 'sections.0.title'],
      ['a blank title', withSection(0, { title: ' ' }), 'sections.0.title'],
      ['a title of 101 characters', withSection(0, { title: 't'.repeat(101) }), 'sections.0.title'],
      ['no includes', withSection(0, { includes: undefined }), 'sections.0.includes'],
      ['an unknown base label', withSection(0, { includes: ['anamnese'] }), 'sections.0.includes.0'],
      ['includes that are not a list', withSection(0, { includes: 'anamnesis' }), 'sections.0.includes'],
      ['instructions of 2,001 characters', withSection(0, { instructions: 'i'.repeat(2001) }), 'sections.0.instructions'],
      ['instructions that are not text', withSection(0, { instructions: 5 }), 'sections.0.instructions'],
      ['an unknown section field', withSection(0, { order: 1 }), 'sections.0.order'],
      ['an unknown field', { ...derma, slug: 'x7', default: true }, 'default'],
      ['a base label in no section', withSection(4, { includes: [] }), 'observations'],
      ['a base label in two sections', withSection(5, { includes: ['diagnosis'] }), 'diagnosis'],
      ['a base label twice in one section', withSection(3, { includes: ['treatment', 'follow_up', 'treatment'] }), 'treatment'],
    ];
    it.each(cases)('%s', async (_, body, field) => {
      const response = await create(clinic.admin, body);
      expect(response.statusCode, response.body).toBe(422);
      expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
    });

    it('accepts the bounds themselves', async () => {
      const edges = {
        slug: `a-${'0'.repeat(48)}`,
        name: 'n'.repeat(100),
        sections: [
          { ...DERMA_SECTIONS[0], label: 'l'.repeat(50), title: 't'.repeat(100), instructions: 'i'.repeat(2000) },
          ...DERMA_SECTIONS.slice(1),
          ...Array.from({ length: 14 }, (_, i) => ({ label: `extra_${i}`, title: 'Extra', includes: [], instructions: '' })),
        ],
      };
      const response = await create(clinic.admin, edges);
      expect(response.statusCode, response.body).toBe(201);
      expect(response.json().data.sections).toHaveLength(20);
      expect(response.json().data.sections[19].instructions).toBeNull();
      expect((await remove(clinic.admin, response.json().data.id)).statusCode).toBe(204);
    });

    it('created none of them', async () => {
      expect((await list(clinic.viewer)).json().data.map((t: any) => t.slug)).toEqual(['padrao', 'soap', 'dermatologia']);
    });
  });

  describe('tenancy: another clinic never sees nor uses them', () => {
    it('lists only its own and the built-ins, and is refused one by id with 403', async () => {
      expect((await list(other.admin)).json().data.map((t: any) => t.slug)).toEqual(['padrao', 'soap']);
      for (const response of [
        await get(other.admin, dermaId),
        await patch(other.admin, dermaId, { name: 'x' }),
        await remove(other.admin, dermaId),
      ]) {
        expect(response.statusCode).toBe(403);
        expect(response.json().code).toBe('FORBIDDEN_TENANT');
      }
      expect((await get(clinic.viewer, dermaId)).json().data.name).toBe('Dermatologia');
    });

    it('may use the same slug for its own template', async () => {
      const own = await create(other.admin, { ...derma, name: 'Dermato B' });
      expect(own.statusCode).toBe(201);
      expect(own.json().data.id).not.toBe(dermaId);
      expect((await get(clinic.viewer, dermaId)).json().data.name).toBe('Dermatologia');
      expect((await remove(other.admin, own.json().data.id)).statusCode).toBe(204);
    });

    it("cannot make another clinic's template its default, nor upload a note with it (422 TEMPLATE_NOT_FOUND)", async () => {
      const defaulted = await settings(other.admin, { default_template: 'dermatologia' });
      expect(defaulted.statusCode).toBe(422);
      expect(defaulted.json()).toMatchObject({ code: 'TEMPLATE_NOT_FOUND', details: { field: 'default_template' } });

      const upload = await postNote(app, other.editor, {
        audio: { bytes: fixture('consultation.mp3'), fileName: 'consultation.mp3' },
        metadata: { name: 'Rex', template: 'dermatologia' },
      });
      expect(upload.statusCode).toBe(422);
      expect(upload.json()).toMatchObject({ code: 'TEMPLATE_NOT_FOUND', details: { field: 'metadata.template' } });
      expect((await app.inject({ method: 'GET', url: '/notes/v1/notes', headers: as(other.viewer) })).json().data).toEqual([]);
    });
  });
});

describe('an upload naming a template', () => {
  const upload = (metadata: object) =>
    postNote(app, clinic.editor, { audio: { bytes: fixture('consultation.mp3'), fileName: 'consultation.mp3' }, metadata });

  it('refuses an unknown slug or a value that is not a slug text, keeping nothing', async () => {
    const unknown = await upload({ name: 'Bidu', template: 'cardiologia' });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json()).toMatchObject({ code: 'TEMPLATE_NOT_FOUND', details: { field: 'metadata.template' } });
    const wrongType = await upload({ name: 'Bidu', template: 5 });
    expect(wrongType.statusCode).toBe(422);
    expect(wrongType.json()).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'metadata.template' } });
    const list = await app.inject({ method: 'GET', url: '/notes/v1/notes?name=Bidu', headers: as(clinic.viewer) });
    expect(list.json().data).toEqual([]);
  });

  it('shows the template it chose, or the default, on the note and in the list', async () => {
    const chosen = await upload({ name: 'Pipoca', template: 'dermatologia' });
    expect(chosen.statusCode, chosen.body).toBe(201);
    const note = await app.inject({ method: 'GET', url: `/notes/v1/notes/${chosen.json().data.id}`, headers: as(clinic.viewer) });
    expect(note.json().data.template).toEqual({ slug: 'dermatologia', name: 'Dermatologia' });
    const byDefault = await upload({ name: 'Paçoca' });
    const listed = await app.inject({ method: 'GET', url: '/notes/v1/notes?name=pacoca', headers: as(clinic.viewer) });
    expect(listed.json().data.map((n: any) => [n.id, n.template])).toEqual([
      [byDefault.json().data.id, { slug: 'padrao', name: 'Padrão' }],
    ]);
  });
});

describe.runIf(db.url !== undefined)('a template deleted while the default is set to it', () => {
  it('never leaves a default that names a deleted template, whichever commits first', async () => {
    const fresh = await createClinicWithKeys(db.database, 'Clínica corrida');
    const doomed = (await create(fresh.admin, { ...derma, slug: 'efemero' })).json().data;
    // Both requests wait on the clinic's configuration lock, held here, then go in either order:
    // the deletion resets a default set just before it, or the default finds the template gone.
    const answers = await raceBehindLock(db.url!, 'select 1 from clinics where id = $1 for no key update', [fresh.clinicId], 2, () =>
      Promise.all([settings(fresh.admin, { default_template: 'efemero' }), remove(fresh.admin, doomed.id)]),
    );
    const [defaulted, removed] = answers;
    expect(removed!.statusCode).toBe(204);
    expect([200, 422]).toContain(defaulted!.statusCode);
    expect((await settings(fresh.viewer)).json().data.default_template).toBe('padrao');
  });
});
