import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/platform/config.ts';
import { sql } from '../../src/platform/db/drizzle.ts';
import { toTimestamp } from '../../src/platform/http/schemas.ts';
import { createTestApp, testEnv } from '../helpers/app.ts';
import { as, createClinicWithKeys } from '../helpers/notes.ts';
import { uploadNote, waitUntilSettled } from '../helpers/uploads.ts';

const { app, db } = await createTestApp({ startWorkers: true });
const clinic = await createClinicWithKeys(db.database);
const other = await createClinicWithKeys(db.database, 'Outra');

const upload = (metadata: object, key = clinic.editor) => uploadNote(app, key, metadata);
const settle = (id: string) => waitUntilSettled(app, clinic.viewer, id);
const get = (url: string, key = clinic.viewer) => app.inject({ method: 'GET', url: `/notes/v1${url}`, headers: as(key) });

const joao = await upload({ name: 'João Ção', external_id: 'EXT-1' });
const maria = await upload({ name: 'Maria', external_id: 'EXT-2' });
const failed = await upload({ name: 'FAIL' });
await upload({ name: 'Joana' }, other.editor);
await Promise.all([settle(joao), settle(maria), settle(failed)]);
// An older note, to test the date filters.
await db.database.db.execute(sql`update notes set created_at = '2026-01-15T12:00:00Z' where id = ${maria}`);

describe('GET /notes', () => {
  it('lists only this clinic, newest first, in both documented shapes, without sections', async () => {
    const response = await get('/notes');
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.status).toBe('success');
    expect(body.data.map((note: { id: string }) => note.id)).toEqual([failed, joao, maria]);
    expect(body.notes).toEqual(body.data);
    expect(body.meta).toEqual({ total: 3, page: 1, limit: 10, total_pages: 1, total_exact: true });
    expect(body.pagination).toEqual({ current_page: 1, total_pages: 1, total_items: 3, total_items_exact: true });
    expect(body.data[0]).not.toHaveProperty('note_sections');
  });

  it.each([
    ['?name=joao', ['joao']],
    ['?name=CAO', ['joao']],
    ['?name=ria', ['maria']],
    ['?name=%25', []],
    ['?external_id=EXT-2', ['maria']],
    ['?external_id=EXT', []],
    ['?transcription_status=failed', ['failed']],
    ['?transcription_status=completed&name=jo', ['joao']],
    ['?from=2026-01-15&to=2026-01-15', ['maria']],
    ['?to=2026-01-14', []],
    ['?days=30', ['failed', 'joao']],
  ])('filters %s', async (query, expected) => {
    const ids = { joao, maria, failed } as Record<string, string>;
    const response = await get(`/notes${query}`);
    expect(response.statusCode).toBe(200);
    expect(response.json().data.map((note: { id: string }) => note.id)).toEqual(expected.map((name) => ids[name]));
  });

  it('pages', async () => {
    const body = (await get('/notes?limit=2&page=2')).json();
    expect(body.data).toHaveLength(1);
    expect(body.meta).toEqual({ total: 3, page: 2, limit: 2, total_pages: 2, total_exact: true });
    const beyond = (await get('/notes?limit=2&page=5')).json();
    expect(beyond.data).toEqual([]);
    expect(beyond.meta).toEqual({ total: 3, page: 5, limit: 2, total_pages: 2, total_exact: true });
  });

  it('counts up to NOTES_LIST_COUNT_LIMIT, then reports a lower bound unless count=exact', async () => {
    const capped = await buildApp(loadConfig(testEnv({ NOTES_LIST_COUNT_LIMIT: '2', LOG_LEVEL: 'silent' })), { database: db.database });
    try {
      const list = async (query: string) =>
        (await capped.inject({ method: 'GET', url: `/notes/v1/notes${query}`, headers: as(clinic.viewer) })).json();
      const first = await list('?limit=1');
      expect(first.meta).toEqual({ total: 2, page: 1, limit: 1, total_pages: 2, total_exact: false });
      expect(first.pagination).toEqual({ current_page: 1, total_pages: 2, total_items: 2, total_items_exact: false });
      // Pages past the lower bound still answer, and the bound grows with what has been seen.
      const third = await list('?limit=1&page=3');
      expect(third.data.map((note: { id: string }) => note.id)).toEqual([maria]);
      expect(third.meta).toMatchObject({ total: 3, total_exact: false });
      expect((await list('?limit=1&count=exact')).meta).toEqual({ total: 3, page: 1, limit: 1, total_pages: 3, total_exact: true });
      // Under the limit, or on a last page, the count is exact.
      expect((await list('?limit=1&name=maria')).meta).toMatchObject({ total: 1, total_exact: true });
      expect((await list('?limit=2&page=2')).meta).toMatchObject({ total: 3, total_exact: true });
      expect((await list('?count=estimate')).code).toBe('VALIDATION_ERROR');
    } finally {
      await capped.close();
    }
  });

  it.each(['?limit=0', '?limit=101', '?page=0', '?transcription_status=done', '?from=15-01-2026', '?days=-1'])(
    'refuses %s with 422',
    async (query) => {
      const response = await get(`/notes${query}`);
      expect(response.statusCode).toBe(422);
      expect(response.json().code).toBe('VALIDATION_ERROR');
    },
  );
});

describe('GET /notes/{id}/transcription', () => {
  it('returns the transcript as JSON with segments, or as text', async () => {
    const json = await get(`/notes/${joao}/transcription`);
    expect(json.statusCode).toBe(200);
    const data = json.json().data;
    expect(data).toMatchObject({ note_id: joao, provider: 'sandbox' });
    expect(data.text.length).toBeGreaterThan(50);
    expect(data.segments[0]).toEqual({ start: expect.any(Number), end: expect.any(Number), text: expect.any(String) });
    const text = await get(`/notes/${joao}/transcription?format=txt`);
    expect(text.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(text.body).toBe(data.text);
  });

  it('is 422 before completion, 400 for an unknown format, 403 across clinics', async () => {
    expect((await get(`/notes/${failed}/transcription`)).json().code).toBe('NOTE_NOT_COMPLETED');
    expect((await get(`/notes/${joao}/transcription?format=pdf`)).statusCode).toBe(400);
    expect((await get(`/notes/${joao}/transcription`, other.admin)).statusCode).toBe(403);
  });
});

describe('retry', () => {
  it('reprocesses a failed note once, even when called twice at once', async () => {
    const post = () => app.inject({ method: 'POST', url: `/notes/v1/notes/${failed}/retry`, headers: as(clinic.editor) });
    const [first, second] = await Promise.all([post(), post()]);
    const statuses = [first.statusCode, second.statusCode].sort();
    expect(statuses).toEqual([202, 422]);
    const accepted = first.statusCode === 202 ? first : second;
    expect(accepted.json()).toEqual({ status: 'success', data: { id: failed, transcription_status: 'pending' } });
    const jobs = await db.database.db.execute(sql`select count(*)::int as n from pgboss.job where data->>'noteId' = ${failed}`);
    expect((jobs as unknown as { rows: { n: number }[] }).rows[0]?.n).toBe(2); // the upload's and one retry
    expect(await settle(failed)).toBe('failed'); // FAIL fails again, by design
  });

  it('takes the note id in the body on /transcripts/retry and honours Idempotency-Key', async () => {
    const post = () =>
      app.inject({
        method: 'POST',
        url: '/notes/v1/transcripts/retry',
        headers: { ...as(clinic.editor), 'idempotency-key': 'r-1' },
        payload: { note_id: failed },
      });
    const first = await post();
    expect(first.statusCode).toBe(202);
    const again = await post();
    expect(again.statusCode).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    await settle(failed);
  });

  it('answers simultaneous retries with one Idempotency-Key all alike, with one job', async () => {
    const jobsOf = async () => {
      const result = await db.database.db.execute(sql`select count(*)::int as n from pgboss.job where data->>'noteId' = ${failed}`);
      return (result as unknown as { rows: { n: number }[] }).rows[0]!.n;
    };
    const before = await jobsOf();
    const post = () =>
      app.inject({ method: 'POST', url: `/notes/v1/notes/${failed}/retry`, headers: { ...as(clinic.editor), 'idempotency-key': 'r-2' } });
    const responses = await Promise.all([post(), post(), post()]);
    expect(responses.map((response) => response.statusCode)).toEqual([202, 202, 202]);
    expect(responses.filter((response) => response.headers['idempotent-replayed'] === 'true')).toHaveLength(2);
    for (const response of responses) {
      expect(response.json()).toEqual({ status: 'success', data: { id: failed, transcription_status: 'pending' } });
    }
    expect(await jobsOf()).toBe(before + 1);
    await settle(failed);
  });

  it('refuses notes that are not failed, other clinics, bad bodies and viewers', async () => {
    const notFailed = await app.inject({ method: 'POST', url: `/notes/v1/notes/${joao}/retry`, headers: as(clinic.editor) });
    expect(notFailed.statusCode).toBe(422);
    expect(notFailed.json()).toMatchObject({ code: 'NOTE_NOT_FAILED', details: { transcription_status: 'completed' } });
    expect((await app.inject({ method: 'POST', url: `/notes/v1/notes/${failed}/retry`, headers: as(other.editor) })).statusCode).toBe(403);
    const byBody = await app.inject({
      method: 'POST',
      url: '/notes/v1/transcripts/retry',
      headers: as(other.editor),
      payload: { note_id: failed },
    });
    expect(byBody.statusCode).toBe(403);
    expect(byBody.json().code).toBe('FORBIDDEN_TENANT');
    const badId = await app.inject({
      method: 'POST',
      url: '/notes/v1/transcripts/retry',
      headers: as(clinic.editor),
      payload: { note_id: 'x' },
    });
    expect(badId.statusCode).toBe(400);
    expect(badId.json()).toMatchObject({ code: 'INVALID_PARAMETER', details: { field: 'note_id' } });
    const noId = await app.inject({ method: 'POST', url: '/notes/v1/transcripts/retry', headers: as(clinic.editor), payload: {} });
    expect(noId.statusCode).toBe(422);
    expect(noId.json()).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'note_id' } });
    expect((await app.inject({ method: 'POST', url: `/notes/v1/notes/${failed}/retry`, headers: as(clinic.viewer) })).statusCode).toBe(403);
  });
});

describe('PATCH /note_sections', () => {
  it('updates a section, sets updated_at to the time of each update and keeps the old version', async () => {
    const note = (await get(`/notes/${joao}`)).json().data;
    const section = note.note_sections[0];
    const patch = (payload: object) =>
      app.inject({ method: 'PATCH', url: `/notes/v1/note_sections?section_id=${section.id}`, headers: as(clinic.editor), payload });
    const first = await patch({ title: 'Anamnese revisada', content: 'Tutor relata vômito há dois dias.', order: '7' });
    expect(first.statusCode).toBe(200);
    const updated = first.json();
    expect(updated).toMatchObject({ id: section.id, note_id: joao, title: 'Anamnese revisada', label: section.label, order: '7' });
    expect(Object.keys(updated).sort()).toEqual(['content', 'created_at', 'id', 'label', 'note_id', 'order', 'title', 'updated_at']);
    expect(updated.updated_at >= section.updated_at).toBe(true);
    expect(updated.updated_at <= toTimestamp(new Date())).toBe(true);
    const second = (await patch({ title: 'Anamnese', content: 'Outra versão.', order: '1', label: 'anamnesis' })).json();
    // Never earlier than the update before it, never later than its own answer (whole seconds, cut).
    expect(second.updated_at >= updated.updated_at).toBe(true);
    expect(second.updated_at <= toTimestamp(new Date())).toBe(true);

    const versions = await db.database.db.execute(
      sql`select content from note_section_versions where section_id = ${section.id} order by replaced_at`,
    );
    expect((versions as unknown as { rows: { content: string }[] }).rows.map((row) => row.content)).toEqual([
      section.content,
      'Tutor relata vômito há dois dias.',
    ]);
    const refetched = (await get(`/notes/${joao}`)).json().data.note_sections;
    expect(refetched[0]).toMatchObject({ id: section.id, content: 'Outra versão.' });
  });

  it('answers the documented errors', async () => {
    const note = (await get(`/notes/${joao}`)).json().data;
    const id = note.note_sections[1].id;
    const valid = { title: 't', content: 'c', order: '2' };
    const patch = (query: string, payload: object, key = clinic.editor) =>
      app.inject({ method: 'PATCH', url: `/notes/v1/note_sections${query}`, headers: as(key), payload });
    expect((await patch('?section_id=nope', valid)).json()).toMatchObject({ error: 'bad_request', code: 'INVALID_SECTION_ID' });
    expect((await patch('', valid)).json().code).toBe('INVALID_SECTION_ID');
    expect((await patch(`?section_id=${id}`, valid, clinic.viewer)).json().code).toBe('INSUFFICIENT_PERMISSIONS');
    expect((await patch(`?section_id=${id}`, valid, other.editor)).json().code).toBe('FORBIDDEN_TENANT');
    expect((await patch('?section_id=3f1c1d0e-2a7b-4c51-9d3e-0c8a4e7b2f10', valid)).json()).toMatchObject({
      error: 'not_found',
      code: 'SECTION_NOT_FOUND',
    });
    for (const payload of [
      { content: 'c', order: '1' },
      { title: 't', order: '1' },
      { title: 't', content: 'c' },
      { ...valid, order: 'one' },
    ]) {
      const response = await patch(`?section_id=${id}`, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(422);
    }
  });
});
