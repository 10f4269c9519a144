import { rmSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { runRetention } from '../../src/platform/retention.ts';
import { retentionTasks } from '../../src/retention.ts';
import { createTestApp, eventually } from '../helpers/app.ts';
import { createClinicWithKeys, PREFIX } from '../helpers/notes.ts';
import { filesUnder, fixture, waitUntilSettled } from '../helpers/uploads.ts';

// A live note's parts are its recording, joined into one file or not (docs/notes-live.md, "The
// joined recording"): a note whose parts differ in format keeps an empty audio key, and its audio,
// its retry and the clinic's audio retention still find its recording in the parts.

const t = await createTestApp({ startWorkers: true });
const { app } = t;
const db = t.db.database.db;
const clinic = await createClinicWithKeys(t.db.database);
const retained = await createClinicWithKeys(t.db.database, 'Clínica que apaga');
const audioDir = path.join(t.config.DATA_DIR, 'audio');
const quiet = createLogger(t.config, new Writable({ write: (_chunk, _encoding, done) => done() }));

const call = (method: 'GET' | 'POST' | 'PATCH', url: string, key: string, payload?: object, headers: Record<string, string> = {}) =>
  app.inject({ method, url: `${PREFIX}${url}`, headers: { 'x-api-key': key, ...headers }, ...(payload ? { payload } : {}) });
const filesOf = (noteId: string) => filesUnder(audioDir).filter((file) => file.includes(noteId));
const audioKeyOf = async (id: string) =>
  ((await db.execute(sql`select audio_key from notes where id = ${id}`)) as unknown as { rows: { audio_key: string }[] }).rows[0]!
    .audio_key;

/** A live note of `files` (fixtures, one part each), completed and settled; `joined` waits for its one file. */
async function liveNote(key: string, name: string, files: string[], expected: 'completed' | 'failed' = 'completed'): Promise<string> {
  const created = await call('POST', '/notes/live', key, { name });
  expect(created.statusCode, created.body).toBe(201);
  const id = created.json().data.id as string;
  for (const [i, file] of files.entries()) {
    const part = await app.inject({
      method: 'PUT',
      url: `${PREFIX}/notes/${id}/parts/${i + 1}`,
      headers: { 'x-api-key': key, 'content-type': 'application/octet-stream' },
      payload: fixture(file),
    });
    expect(part.statusCode, part.body).toBe(201);
  }
  expect((await call('POST', `/notes/${id}/complete`, key, { parts: files.length })).statusCode).toBe(202);
  expect(await waitUntilSettled(app, key, id)).toBe(expected);
  return id;
}

describe('a live note whose parts were not joined', () => {
  it('answers its audio with 409 AUDIO_IN_PARTS listing the parts, each served by its own route', async () => {
    const id = await liveNote(clinic.editor, 'Formatos misturados', ['consultation.wav', 'consultation.mp3']);
    // The join job ran and left it in parts (the formats differ: no single file without re-encoding).
    await eventually(async () => t.logs.some((line) => line.includes(id) && line.includes('live recording not joined')));
    expect(await audioKeyOf(id)).toBe('');

    const audio = await call('GET', `/notes/${id}/audio`, clinic.viewer);
    expect(audio.statusCode, audio.body).toBe(409);
    expect(audio.json()).toMatchObject({
      code: 'AUDIO_IN_PARTS',
      details: {
        capture_state: 'closed',
        parts: [
          {
            part: 1,
            format: 'wav',
            bytes: fixture('consultation.wav').length,
            url: `http://vetflow.test${PREFIX}/notes/${id}/parts/1/audio`,
          },
          {
            part: 2,
            format: 'mp3',
            bytes: fixture('consultation.mp3').length,
            url: `http://vetflow.test${PREFIX}/notes/${id}/parts/2/audio`,
          },
        ],
      },
    });

    const second = await call('GET', `/notes/${id}/parts/2/audio`, clinic.viewer);
    expect(second.statusCode).toBe(200);
    expect(second.headers['content-type']).toBe('audio/mpeg');
    expect(second.rawPayload.equals(fixture('consultation.mp3'))).toBe(true);
    const range = await call('GET', `/notes/${id}/parts/1/audio`, clinic.viewer, undefined, { range: 'bytes=0-3' });
    expect(range.statusCode).toBe(206);
    expect(range.body).toBe('RIFF');
    expect((await call('GET', `/notes/${id}/parts/3/audio`, clinic.viewer)).json().code).toBe('PART_NOT_FOUND');
    const history = (await call('GET', `/notes/${id}/history`, clinic.viewer)).json().data as { event: string; details: object }[];
    expect(history.filter((event) => event.event === 'audio_fetched').map((event) => event.details)).toEqual([
      { part: 2, range: null },
      { part: 1, range: 'bytes=0-3' },
    ]);

    // Another clinic's note is refused, as every route of a note.
    const other = await call('GET', `/notes/${id}/parts/1/audio`, (await createClinicWithKeys(t.db.database, 'Outra')).viewer);
    expect(other.json().code).toBe('FORBIDDEN_TENANT');
  });

  it('is retried from its parts', async () => {
    const id = await liveNote(clinic.editor, 'FAIL', ['consultation.wav', 'consultation.mp3'], 'failed');
    expect(await audioKeyOf(id)).toBe('');
    const retried = await call('POST', `/notes/${id}/retry`, clinic.editor);
    expect(retried.statusCode, retried.body).toBe(202);
    // The sandbox fails a patient named FAIL again: it was transcribed again, from the parts.
    expect(await waitUntilSettled(app, clinic.editor, id)).toBe('failed');
    const history = (await call('GET', `/notes/${id}/history`, clinic.viewer)).json().data as { event: string }[];
    expect(history.filter((event) => event.event === 'failed')).toHaveLength(2);
  });

  it('is refused a retry when a part is gone from storage, with nothing charged', async () => {
    const id = await liveNote(clinic.editor, 'FAIL', ['consultation.wav', 'consultation.mp3'], 'failed');
    const stored = (await db.execute(sql`select storage_key from note_parts where note_id = ${id} and part = 2`)) as unknown as {
      rows: { storage_key: string }[];
    };
    rmSync(path.join(audioDir, stored.rows[0]!.storage_key));
    const refused = await call('POST', `/notes/${id}/retry`, clinic.editor);
    expect(refused.statusCode).toBe(404);
    expect(refused.json().code).toBe('AUDIO_NOT_FOUND');
    const retries = (await db.execute(sql`select count(*)::int as n from note_retries where note_id = ${id}`)) as unknown as {
      rows: { n: number }[];
    };
    expect(retries.rows[0]!.n).toBe(0);
  });
});

describe('the audio retention of live notes', () => {
  it('at 0 days deletes every part file of every live note, joined or not, and the run succeeds', { timeout: 60_000 }, async () => {
    expect((await call('PATCH', '/settings', retained.admin, { audio_retention_days: 0 })).statusCode).toBe(200);
    const mixed = await liveNote(retained.editor, 'Misturado', ['consultation.wav', 'consultation.mp3']);
    const joined = await liveNote(retained.editor, 'Juntado', ['consultation.wav', 'consultation.wav']);
    await eventually(async () => (await audioKeyOf(joined)) !== '');
    expect(await audioKeyOf(mixed)).toBe('');
    expect(filesOf(mixed)).toHaveLength(2);
    expect(filesOf(joined)).toHaveLength(3);

    const report = await runRetention(retentionTasks(t.config, t.db.database), quiet);
    expect(report.audio_deleted).toBe(2);
    expect(filesOf(mixed)).toEqual([]);
    expect(filesOf(joined)).toEqual([]);
    for (const id of [mixed, joined]) {
      expect((await call('GET', `/notes/${id}/audio`, retained.viewer)).json().code).toBe('AUDIO_EXPIRED');
      expect((await call('GET', `/notes/${id}/parts/1/audio`, retained.viewer)).json().code).toBe('AUDIO_EXPIRED');
    }
    expect((await runRetention(retentionTasks(t.config, t.db.database), quiet)).audio_deleted).toBe(0);
  });
});
