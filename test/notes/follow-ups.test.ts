import { describe, expect, it } from 'vitest';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createTestApp } from '../helpers/app.ts';
import { rowsOf } from '../helpers/database.ts';
import { dictatedNote, startDictationServer } from '../helpers/dictated-notes.ts';
import { as, createClinicWithKeys, PREFIX } from '../helpers/notes.ts';

// GET /follow_ups: the clinic's follow-ups due in a range of days, oldest due first, paged as the
// note list; kept in step with every plan change, and gone with an erased note or patient.

const dictation = await startDictationServer();
const { app, db } = await createTestApp({ startWorkers: true, env: dictation.env });
const clinic = await createClinicWithKeys(db.database);
const other = await createClinicWithKeys(db.database, 'Outra');

const EMPTY = { medications: [], exams: [], vaccines: [], follow_ups: [] };
const followUp = (days: number | null, text = `retorno em ${days} dias`, kind = 'recheck') => ({ text, kind, due_in_days: days });

/** A completed note of `keys`' clinic seen on `visitDate`, its plan's follow-ups replaced by `followUps`. */
async function noteWith(name: string, visitDate: string, followUps: object[], keys = clinic, externalId = `pac-${name}`) {
  const id = await dictatedNote(
    app,
    keys,
    dictation,
    { name, visit_date: visitDate, external_id: externalId, species: 'feline' },
    {
      text: 'Consulta de rotina. Animal ativo, sem queixas.',
    },
  );
  const put = await app.inject({
    method: 'PUT',
    url: `${PREFIX}/notes/${id}/plan`,
    headers: as(keys.editor),
    payload: { ...EMPTY, follow_ups: followUps },
  });
  expect(put.statusCode, put.body).toBe(200);
  return id;
}

const worklist = (query: string, key = clinic.viewer) =>
  app.inject({ method: 'GET', url: `${PREFIX}/follow_ups?${query}`, headers: as(key) });

// Visit days in 2031, so no other file's notes (or this clinic's own) fall in these ranges by chance.
const luna = await noteWith('Luna', '2031-03-01', [
  followUp(15),
  followUp(7, 'trazer o hemograma', 'exam_result'),
  followUp(null, 'se piorar'),
]);
const bento = await noteWith('Bento', '2031-03-05', [followUp(3), followUp(30, 'reforço da V4', 'vaccine_booster')]);
const elsewhere = await noteWith('Outro', '2031-03-01', [followUp(7)], other);

describe('GET /notes/v1/follow_ups', () => {
  it('lists the follow-ups due in the range, inclusive, oldest due first, with their note and patient', async () => {
    const response = await worklist('due_from=2031-03-08&due_to=2031-03-16');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({
      status: 'success',
      data: [
        {
          note_id: bento,
          external_id: 'pac-Bento',
          name: 'Bento',
          species: 'feline',
          kind: 'recheck',
          due_date: '2031-03-08',
          text: 'retorno em 3 dias',
        },
        {
          note_id: luna,
          external_id: 'pac-Luna',
          name: 'Luna',
          species: 'feline',
          kind: 'exam_result',
          due_date: '2031-03-08',
          text: 'trazer o hemograma',
        },
        {
          note_id: luna,
          external_id: 'pac-Luna',
          name: 'Luna',
          species: 'feline',
          kind: 'recheck',
          due_date: '2031-03-16',
          text: 'retorno em 15 dias',
        },
      ].sort((a, b) => a.due_date.localeCompare(b.due_date) || a.note_id.localeCompare(b.note_id)),
      meta: { total: 3, page: 1, limit: 10, total_pages: 1 },
    });
    // One day: both bounds inclusive.
    expect((await worklist('due_from=2031-03-16&due_to=2031-03-16')).json().data.map((item: { text: string }) => item.text)).toEqual([
      'retorno em 15 dias',
    ]);
    expect((await worklist('due_from=2031-03-09&due_to=2031-03-15')).json()).toMatchObject({
      data: [],
      meta: { total: 0, total_pages: 0 },
    });
  });

  it('pages like the note list', async () => {
    const all = (await worklist('due_from=2031-03-01&due_to=2031-04-30')).json();
    expect(all.meta.total).toBe(4);
    const dates = all.data.map((item: { due_date: string }) => item.due_date);
    expect(dates).toEqual([...dates].sort());
    const first = (await worklist('due_from=2031-03-01&due_to=2031-04-30&limit=3')).json();
    const second = (await worklist('due_from=2031-03-01&due_to=2031-04-30&limit=3&page=2')).json();
    expect(first.meta).toEqual({ total: 4, page: 1, limit: 3, total_pages: 2 });
    expect(second.meta).toEqual({ total: 4, page: 2, limit: 3, total_pages: 2 });
    expect([...first.data, ...second.data]).toEqual(all.data);
    expect((await worklist('due_from=2031-03-01&due_to=2031-04-30&page=3&limit=3')).json().data).toEqual([]);
  });

  it("shows a clinic only its own notes' follow-ups", async () => {
    const mine = (await worklist('due_from=2031-03-01&due_to=2031-12-31')).json().data;
    expect(mine.map((item: { note_id: string }) => item.note_id)).not.toContain(elsewhere);
    const theirs = (await worklist('due_from=2031-03-01&due_to=2031-12-31', other.viewer)).json().data;
    expect(theirs).toEqual([expect.objectContaining({ note_id: elsewhere, due_date: '2031-03-08' })]);
  });

  it.each([
    ['a day that does not exist', 'due_from=2031-02-30&due_to=2031-03-10', 'due_from'],
    ['a day in another format', 'due_from=01/03/2031&due_to=2031-03-10', 'due_from'],
    ['due_to before due_from', 'due_from=2031-03-10&due_to=2031-03-09', 'due_to'],
    ['a limit over 100', 'due_from=2031-03-01&due_to=2031-03-10&limit=101', 'limit'],
    ['page 0', 'due_from=2031-03-01&due_to=2031-03-10&page=0', 'page'],
  ])('refuses %s with 422 VALIDATION_ERROR', async (_case, query, field) => {
    const response = await worklist(query);
    expect(response.statusCode, response.body).toBe(422);
    expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
  });

  it('follows a plan replaced, at once', async () => {
    const id = await noteWith('Mudanca', '2031-06-01', [followUp(10)]);
    expect((await worklist('due_from=2031-06-11&due_to=2031-06-11')).json().data).toEqual([expect.objectContaining({ note_id: id })]);
    await app.inject({
      method: 'PUT',
      url: `${PREFIX}/notes/${id}/plan`,
      headers: as(clinic.editor),
      payload: { ...EMPTY, follow_ups: [followUp(20)] },
    });
    expect((await worklist('due_from=2031-06-11&due_to=2031-06-11')).json().data).toEqual([]);
    expect((await worklist('due_from=2031-06-21&due_to=2031-06-21')).json().data).toEqual([expect.objectContaining({ note_id: id })]);
  });

  it("loses an erased note's follow-ups, and an erased patient's", async () => {
    const one = await noteWith('Apagada', '2031-09-01', [followUp(5)]);
    const twice = await noteWith('Paciente', '2031-09-01', [followUp(5)], clinic, 'pac-erase');
    const again = await noteWith('Paciente', '2031-09-02', [followUp(4)], clinic, 'pac-erase');
    const range = 'due_from=2031-09-06&due_to=2031-09-06';
    expect((await worklist(range)).json().meta.total).toBe(3);
    const deleted = await app.inject({ method: 'DELETE', url: `${PREFIX}/notes/${one}`, headers: as(clinic.admin) });
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect(
      (await worklist(range))
        .json()
        .data.map((item: { note_id: string }) => item.note_id)
        .sort(),
    ).toEqual([twice, again].sort());
    const erased = await app.inject({
      method: 'POST',
      url: `${PREFIX}/erasures`,
      headers: as(clinic.admin),
      payload: { external_id: 'pac-erase', reason: 'pedido do tutor (LGPD)' },
    });
    expect(erased.statusCode, erased.body).toBe(200);
    expect((await worklist(range)).json()).toMatchObject({ data: [], meta: { total: 0 } });
    const [left] = await rowsOf<{ n: number }>(
      db.database.db,
      sql`select count(*)::int as n from note_follow_ups where note_id in (${one}, ${twice}, ${again})`,
    );
    expect(left!.n).toBe(0);
  });
});
