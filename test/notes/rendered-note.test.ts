import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { NotesCaller } from '../../src/notes/callers.ts';
import { notesService } from '../../src/notes/reads/notes.service.ts';
import { withBaseUrl } from '../../src/notes/store/note-view.ts';
import { claimForProcessing, insertNote, markNoteCompleted, markNoteFailed, releaseNote } from '../../src/notes/store/notes.repo.ts';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { runRetention } from '../../src/platform/retention.ts';
import { retentionTasks } from '../../src/retention.ts';
import { createTestApp } from '../helpers/app.ts';
import { rowsOf } from '../helpers/database.ts';
import { definitionsIn, definitionsOf } from '../helpers/database-functions.ts';
import { type ClinicKeys, createClinicWithKeys, PREFIX } from '../helpers/notes.ts';
import { fixture, uploadNote, waitUntilSettled } from '../helpers/uploads.ts';

// GET /notes/{id} serves the note rendered when it last changed (note_renders, written by the
// triggers of src/notes/store/note-render.sql). Here every kind of write is made, and after each the
// stored render, the GET answer and the note assembled from its rows (notesService().assemble, the
// code that served the read before) must be the same note. A write that changed the note without
// rendering it again leaves the stored render behind the assembled note, and fails here.

const t = await createTestApp({ startWorkers: true });
const { app } = t;
const db = t.db.database.db;
const clinic = await createClinicWithKeys(t.db.database);
const other = await createClinicWithKeys(t.db.database, 'Outra');
const reference = notesService({ db, publicBaseUrl: t.config.PUBLIC_BASE_URL, listCountLimit: 10_000 });
// Audio retention is the clinic's: its own clinic, so that it meets only the notes made for it.
const retaining = await createClinicWithKeys(t.db.database, 'Guarda pouco');
const callerOf = (keys: ClinicKeys): NotesCaller => ({
  keyId: keys.viewerId,
  clinicId: keys.clinicId,
  role: 'viewer',
  permissions: ['notes:read'],
});
const quiet = createLogger(t.config, new Writable({ write: (_chunk, _encoding, done) => done() }));

const ANA = { name: 'Dra. Ana Souza', license: 'CRMV-SP 12345' };
type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
const call = (method: Method, url: string, key: string, payload?: object | Buffer, headers: Record<string, string> = {}) =>
  app.inject({ method, url: `${PREFIX}${url}`, headers: { 'x-api-key': key, ...headers }, ...(payload ? { payload } : {}) });

const assembledNow = async (keys: ClinicKeys, id: string) => JSON.parse(JSON.stringify(await reference.assemble(callerOf(keys), id)));

/**
 * The three forms of the note agree: stored render, GET answer, assembled reference. The worker may
 * move the note on meanwhile (pending → processing → completed): the render and the answer are read
 * between two assemblies, and compared only when nothing changed in between (every write moves the
 * note's `updated_at` or its state). Returns the note.
 */
async function sameEverywhere(id: string, step: string, keys = clinic) {
  for (let attempt = 0; attempt < 100; attempt++) {
    const before = await assembledNow(keys, id);
    const [stored] = await rowsOf<{ body: string; clinic_id: string }>(
      db,
      sql`select body, clinic_id from note_renders where note_id = ${id}`,
    );
    const response = await call('GET', `/notes/${id}`, keys.viewer);
    const after = await assembledNow(keys, id);
    if (JSON.stringify(before) !== JSON.stringify(after)) continue;
    expect(stored, `${step}: the note has a render`).toBeDefined();
    expect(stored!.clinic_id).toBe(keys.clinicId);
    expect(JSON.parse(withBaseUrl(stored!.body, t.config.PUBLIC_BASE_URL)), `${step}: stored render`).toEqual(before);
    expect(response.statusCode, step).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.json(), `${step}: GET`).toEqual({ status: 'success', data: before });
    // Same key order as the assembled note (what JSON.stringify of toNoteBody would send).
    expect(Object.keys(response.json().data)).toEqual(Object.keys(before));
    return before;
  }
  throw new Error(`${step}: the note kept changing`);
}

async function settled(name: string, expected: 'completed' | 'failed' = 'completed', keys = clinic) {
  const id = await uploadNote(app, keys.editor, { name });
  await sameEverywhere(id, `${name}: uploaded`, keys);
  expect(await waitUntilSettled(app, keys.viewer, id)).toBe(expected);
  return id;
}

describe('the rendered note', () => {
  it('follows an upload to completed, a section edit that changes vitals, a signature and an amendment', async () => {
    const id = await settled('Mel');
    const completed = await sameEverywhere(id, 'completed');
    expect(completed.transcription_url).toBe(`${t.config.PUBLIC_BASE_URL}/notes/v1/notes/${id}/transcription`);
    expect(completed.note_sections.length).toBeGreaterThan(0);
    const section = completed.note_sections[0];
    const edited = await call('PATCH', `/note_sections?section_id=${section.id}`, clinic.editor, {
      title: 'Exame físico',
      content: 'Temperatura 39,8 °C, peso 12,5 kg, frequência cardíaca 120 bpm. "Aspas" e \\ barra, ção.',
      order: '1',
    });
    expect(edited.statusCode, edited.body).toBe(200);
    const afterEdit = await sameEverywhere(id, 'section edited');
    expect(afterEdit.vitals.length).toBeGreaterThan(0);
    const replaced = await call('PUT', `/notes/${id}/plan`, clinic.editor, {
      medications: [
        {
          text: 'meloxicam 0,1 mg/kg',
          drug: 'meloxicam',
          dose_value: 0.1,
          dose_unit: 'mg/kg',
          route: 'oral',
          interval_hours: 24,
          duration_days: 5,
          status: 'prescribed',
        },
      ],
      exams: [],
      vaccines: [],
      follow_ups: [{ text: 'retorno em 15 dias', kind: 'recheck', due_in_days: 15 }],
    });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect((await sameEverywhere(id, 'plan replaced')).plan.medications[0]).toMatchObject({ drug: 'meloxicam', evidence: null });
    const signed = await call('POST', `/notes/${id}/sign`, clinic.editor, { signed_by: ANA, acknowledge_flags: true });
    expect(signed.statusCode, signed.body).toBe(200);
    expect((await sameEverywhere(id, 'signed')).signature.signed_by).toEqual(ANA);
    const amended = await call('POST', `/notes/${id}/amendments`, clinic.editor, {
      section_id: section.id,
      content: 'Corrigido.',
      reason: 'erro de digitação',
      signed_by: ANA,
    });
    expect(amended.statusCode, amended.body).toBe(201);
    expect((await sameEverywhere(id, 'amended')).record_status).toBe('amended');
  });

  it('follows a failure and a retry', async () => {
    const id = await settled('FAIL', 'failed');
    expect((await sameEverywhere(id, 'failed')).failure).toBeDefined();
    const retried = await call('POST', `/notes/${id}/retry`, clinic.editor);
    expect(retried.statusCode, retried.body).toBe(202);
    await sameEverywhere(id, 'retried');
    expect(await waitUntilSettled(app, clinic.viewer, id)).toBe('failed');
    await sameEverywhere(id, 'failed again');
  });

  it("follows the worker's own steps: claimed, released, completed, failed", async () => {
    const id = await uploadNote(app, clinic.editor, { name: 'Passos' });
    await waitUntilSettled(app, clinic.viewer, id);
    // A note no job knows of, moved by the repo functions the jobs use.
    const { id: _id, createdAt: _c, updatedAt: _u, ...copy } = (await rowsOf<any>(db, sql`select * from notes where id = ${id}`))[0];
    const note = await insertNote(
      {
        clinicId: clinic.clinicId,
        name: 'Sem fila',
        audioKey: copy.audio_key,
        audioFormat: copy.audio_format,
        audioBytes: Number(copy.audio_bytes),
        audioSha256: copy.audio_sha256,
        audioDurationSeconds: 12.345,
        metadata: [{ key: 'tutor', value: 'Maria' }],
      },
      db,
    );
    await sameEverywhere(note.id, 'inserted');
    expect(await claimForProcessing(note.id, db)).toBeDefined();
    await sameEverywhere(note.id, 'claimed');
    expect(await releaseNote(note.id, db)).toBe(true);
    await sameEverywhere(note.id, 'released');
    await claimForProcessing(note.id, db);
    const written = {
      style: 'clinical' as const,
      sections: [{ label: 'anamnesis', title: 'Anamnese', content: 'Vômito.', evidence: [{ start: 0, end: 1.5 }] }],
      reviewFlags: [],
      vitals: { species: 'dog', vitals: [] },
    };
    const transcript = { text: 'Vômito.', language: 'pt', duration: 1.5, segments: [], provider: 'test', model: null } as never;
    expect(await db.transaction((tx) => markNoteCompleted(note.id, transcript, written, tx))).toBe(true);
    expect((await sameEverywhere(note.id, 'completed by the repo')).note_sections).toHaveLength(1);
    const second = await insertNote(
      {
        clinicId: clinic.clinicId,
        name: 'Falha',
        audioKey: 'k',
        audioFormat: 'mp3',
        audioBytes: 1,
        audioSha256: 'x',
        audioDurationSeconds: 1,
      },
      db,
    );
    expect(await markNoteFailed(second.id, { code: 'TRANSCRIPTION_FAILED', message: 'x' }, db)).toBe(true);
    await sameEverywhere(second.id, 'failed by the repo');
  });

  it('follows a live capture: created, parts, completed, and its processing', async () => {
    const created = await call('POST', '/notes/live', clinic.editor, { name: 'Ao vivo' });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().data.id;
    expect((await sameEverywhere(id, 'live created')).capture.state).toBe('open');
    for (const part of [1, 2]) {
      const put = await call('PUT', `/notes/${id}/parts/${part}`, clinic.editor, fixture('consultation.wav'), {
        'content-type': 'audio/wav',
      });
      expect(put.statusCode, put.body).toBe(201);
      expect((await sameEverywhere(id, `part ${part}`)).capture.parts).toBe(part);
    }
    const complete = await call('POST', `/notes/${id}/complete`, clinic.editor, { parts: 2 });
    expect(complete.statusCode, complete.body).toBe(202);
    expect((await sameEverywhere(id, 'capture completed')).capture.state).toBe('closed');
    expect(await waitUntilSettled(app, clinic.viewer, id)).toBe('completed');
    await sameEverywhere(id, 'live completed');
  });

  it("follows the clinic's audio retention, an operator's SQL, and is gone with an erasure", async () => {
    const id = await settled('Guardada', 'completed', retaining);
    expect((await call('PATCH', '/settings', retaining.admin, { audio_retention_days: 0 })).statusCode).toBe(200);
    await runRetention(retentionTasks(t.config, t.db.database), quiet);
    expect((await sameEverywhere(id, 'audio expired', retaining)).audio.available).toBe(false);
    await db.execute(sql`update notes set name = 'Renomeada', external_id = 'erp-1' where id = ${id}`);
    expect((await sameEverywhere(id, 'operator update', retaining)).name).toBe('Renomeada');
    await db.execute(sql`update note_sections set content = 'Outro texto' where note_id = ${id}`);
    await sameEverywhere(id, 'operator update of sections', retaining);
    const erased = await call('DELETE', `/notes/${id}`, retaining.admin, { reason: 'pedido do tutor' });
    expect(erased.statusCode, erased.body).toBeLessThan(300);
    expect(await rowsOf(db, sql`select 1 from note_renders where note_id = ${id}`)).toEqual([]);
    expect((await call('GET', `/notes/${id}`, retaining.viewer)).statusCode).toBe(404);
  });

  it("answers 403 for another clinic's note and 404 for an unknown one, as before", async () => {
    const id = await settled('Tenancy');
    expect((await call('GET', `/notes/${id}`, other.viewer)).json()).toMatchObject({ code: 'FORBIDDEN_TENANT' });
    expect((await call('GET', `/notes/${id}`, other.viewer)).statusCode).toBe(403);
    expect((await call('GET', '/notes/00000000-0000-4000-8000-000000000000', clinic.viewer)).statusCode).toBe(404);
  });

  it('leaves a bulk insert of more than 1,000 notes unrendered, served assembled until a change renders it', async () => {
    const [template] = await rowsOf<Record<string, unknown>>(
      db,
      sql`select audio_key from notes where clinic_id = ${clinic.clinicId} limit 1`,
    );
    await db.execute(sql`insert into notes (clinic_id, name, audio_key, audio_format, audio_bytes, audio_sha256, audio_duration_seconds)
      select ${clinic.clinicId}, 'Importada ' || g, ${template!.audio_key}, 'mp3', 1, repeat('0', 64), 30 from generate_series(1, 1001) g`);
    const imported = await rowsOf<{ id: string; rendered: boolean }>(
      db,
      sql`select n.id, r.note_id is not null as rendered from notes n left join note_renders r on r.note_id = n.id where n.name like 'Importada %'`,
    );
    expect(imported).toHaveLength(1001);
    expect(imported.filter((note) => note.rendered)).toEqual([]);
    const id = imported[0]!.id;
    expect((await call('GET', `/notes/${id}`, clinic.viewer)).json()).toEqual({ status: 'success', data: await assembledNow(clinic, id) });
    await db.execute(sql`update notes set name = 'Importada e renomeada' where id = ${id}`);
    expect((await sameEverywhere(id, 'imported, then changed')).name).toBe('Importada e renomeada');
  });

  it('serves a note without a render (written with triggers off) assembled, never stale', async () => {
    const id = await settled('Sem render');
    await db.execute(sql`delete from note_renders where note_id = ${id}`);
    const response = await call('GET', `/notes/${id}`, clinic.viewer);
    expect(response.json()).toEqual({ status: 'success', data: await assembledNow(clinic, id) });
  });
});

describe('note-render.sql', () => {
  const source = readFileSync(new URL('../../src/notes/store/note-render.sql', import.meta.url), 'utf8');
  const tables = {
    notes: ['insert', 'update'],
    note_sections: ['insert', 'update', 'delete'],
    note_signatures: ['insert', 'update', 'delete'],
  };
  const objects = {
    functions: ['vetflow_api_timestamp', 'vetflow_note_bodies', 'vetflow_render_changed_notes', 'vetflow_render_notes'],
    triggers: Object.entries(tables).flatMap(([table, events]) => events.map((event) => `${table}_render_after_${event}`)),
  };
  it('is deployed exactly as the source file defines it', async () => {
    const expected = await definitionsOf(db, source, objects);
    expect(expected.map((row) => row.name).sort()).toEqual([...objects.functions, ...objects.triggers].sort());
    expect(await definitionsIn(db, 'public', objects)).toEqual(expected);
    const edited = source.replace("'simulated', n.simulated,", "'simulated', false,");
    expect(edited).not.toBe(source);
    expect(await definitionsIn(db, 'public', objects)).not.toEqual(await definitionsOf(db, edited, objects));
  });
});

describe('withBaseUrl', () => {
  it("puts the base URL before the note's own transcript path only", () => {
    const body =
      '{"name" : "\\"transcription_url\\" : \\"x", "transcription_url" : "/notes/v1/notes/a/transcription", "metadata" : [{"transcription_url" : "/y"}]}';
    expect(JSON.parse(withBaseUrl(body, 'https://v.example'))).toEqual({
      name: '"transcription_url" : "x',
      transcription_url: 'https://v.example/notes/v1/notes/a/transcription',
      metadata: [{ transcription_url: '/y' }],
    });
    const pending = '{"transcription_url" : null, "metadata" : [{"transcription_url" : "/y"}]}';
    expect(withBaseUrl(pending, 'https://v.example')).toBe(pending);
  });
});
