import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createClinic } from '../../src/notes/clinics/clinics.service.ts';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createTestApp } from '../helpers/app.ts';
import { createClinicWithKeys } from '../helpers/notes.ts';
import { filesUnder, fixture, postNote, type UploadParts } from '../helpers/uploads.ts';
import { hostileMp3 } from '../providers/hostile-audio.ts';

const { app, db, config } = await createTestApp({ env: { AUDIO_MAX_BYTES: '400000' } });
const clinic = await createClinicWithKeys(db.database);
const metadata = { name: 'Thor', gender: 'male', external_id: 'PAC-1', metadata: [{ key: 'tutor', value: 'Ana' }] };

const upload = (parts: UploadParts, headers: Record<string, string> = {}, key = clinic.editor) => postNote(app, key, parts, headers);

async function count(table: 'notes' | 'jobs'): Promise<number> {
  const query =
    table === 'notes'
      ? sql`select count(*)::int as n from notes`
      : sql`select count(*)::int as n from pgboss.job where name = 'notes.transcribe'`;
  const result = await db.database.db.execute(query);
  return (result as unknown as { rows: { n: number }[] }).rows[0]?.n ?? -1;
}

/** Runs `action` and checks it left no note, no job, no stored or temporary file behind. */
async function expectNothingLeftBehind(action: () => Promise<void>) {
  const before = { notes: await count('notes'), jobs: await count('jobs'), files: filesUnder(config.DATA_DIR).length };
  await action();
  expect(await count('notes')).toBe(before.notes);
  expect(await count('jobs')).toBe(before.jobs);
  expect(filesUnder(config.DATA_DIR)).toHaveLength(before.files);
}

describe('POST /notes accepts real audio in each format', () => {
  it.each([
    ['consultation.mp3', 'mp3'],
    ['consultation.m4a', 'm4a'],
    ['consultation.aac', 'aac'],
  ])('%s', async (file, format) => {
    // A misleading name and declared type: the bytes decide.
    const response = await upload({ audio: { bytes: fixture(file), fileName: 'gravacao.bin', type: 'text/plain' }, metadata });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body).toEqual({
      status: 'success',
      data: { id: expect.any(String), name: 'Thor', transcription_status: 'pending', created_at: expect.stringMatching(/Z$/) },
    });
    const stored = await db.database.db.execute(
      sql`select audio_format, audio_bytes, audio_duration_seconds, external_id from notes where id = ${body.data.id}`,
    );
    const row = (stored as unknown as { rows: Record<string, unknown>[] }).rows[0];
    expect(row).toMatchObject({ audio_format: format, external_id: 'PAC-1' });
    expect(Number(row?.audio_bytes)).toBe(fixture(file).length);
    expect(Number(row?.audio_duration_seconds)).toBeGreaterThan(10);
    const jobs = await db.database.db.execute(sql`select count(*)::int as n from pgboss.job where data->>'noteId' = ${body.data.id}`);
    expect((jobs as unknown as { rows: { n: number }[] }).rows[0]?.n).toBe(1);
    expect(filesUnder(path.join(config.DATA_DIR, 'audio')).some((name) => name.endsWith(`${body.data.id}.${format}`))).toBe(true);
  });

  it('takes patient_name for name and other top-level strings as metadata items', async () => {
    const response = await upload({
      audio: { bytes: fixture('consultation.mp3'), fileName: 'a.mp3' },
      metadata: { patient_name: 'Mel', owner_name: 'João' },
    });
    expect(response.statusCode).toBe(201);
    const note = await app.inject({
      method: 'GET',
      url: `/notes/v1/notes/${response.json().data.id}`,
      headers: { 'x-api-key': clinic.viewer },
    });
    expect(note.json().data).toMatchObject({
      name: 'Mel',
      gender: 'unidentified',
      metadata: [{ key: 'owner_name', value: 'João' }],
      note_style: 'verbatim', // NOTE_STYLE's default; note_style is not a metadata item
      review_flags: [],
    });
  });
});

describe('POST /notes from generated clients', () => {
  // openapi-generator sends a part whose encoding is application/json as a file: a Blob with that
  // type and a file name. Its text is the metadata all the same.
  async function withParts(parts: [string, Blob, string?][]) {
    const form = new FormData();
    for (const [name, value, fileName] of parts) form.append(name, value, fileName);
    const request = new Request('http://localhost/', { method: 'POST', body: form });
    return app.inject({
      method: 'POST',
      url: '/notes/v1/notes',
      payload: Buffer.from(await request.arrayBuffer()),
      headers: { 'content-type': request.headers.get('content-type') ?? '', 'x-api-key': clinic.editor },
    });
  }
  const audio = () => new Blob([new Uint8Array(fixture('consultation.mp3'))], { type: 'audio/mpeg' });

  it('takes the metadata sent as an application/json file part', async () => {
    const response = await withParts([
      ['metadata', new Blob([JSON.stringify({ name: 'Bidu', external_id: 'GEN-1' })], { type: 'application/json' }), 'blob'],
      ['audio', audio(), 'a.mp3'],
    ]);
    expect(response.statusCode, response.body).toBe(201);
    const note = await app.inject({
      method: 'GET',
      url: `/notes/v1/notes/${response.json().data.id}`,
      headers: { 'x-api-key': clinic.viewer },
    });
    expect(note.json().data).toMatchObject({ name: 'Bidu', external_id: 'GEN-1' });
  });

  it('still refuses a second audio file, and any other file part', async () => {
    await expectNothingLeftBehind(async () => {
      const twice = await withParts([
        ['metadata', new Blob([JSON.stringify({ name: 'Bidu' })], { type: 'application/json' }), 'blob'],
        ['audio', audio(), 'a.mp3'],
        ['audio', audio(), 'b.mp3'],
      ]);
      expect(twice.statusCode).toBe(422);
      expect(twice.json()).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'audio' } });
      const other = await withParts([
        ['metadata', new Blob([JSON.stringify({ name: 'Bidu' })], { type: 'application/json' }), 'blob'],
        ['photo', audio(), 'a.jpg'],
      ]);
      expect(other.statusCode).toBe(422);
      expect(other.json()).toMatchObject({ details: { field: 'photo' } });
    });
  });
});

describe('POST /notes rejects, leaving nothing behind', () => {
  it('a text file named .mp3 → 400 INVALID_AUDIO_FORMAT', async () => {
    await expectNothingLeftBehind(async () => {
      const response = await upload({ audio: { bytes: fixture('fake.mp3'), fileName: 'fake.mp3', type: 'audio/mpeg' }, metadata });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({
        error: 'bad_request',
        code: 'INVALID_AUDIO_FORMAT',
        details: { expected: ['mp3', 'wav', 'm4a', 'aac'], received: 'text' },
      });
    });
  });

  it('a truncated m4a → 400, not 500', async () => {
    await expectNothingLeftBehind(async () => {
      const response = await upload({ audio: { bytes: fixture('truncated.m4a'), fileName: 'x.m4a' }, metadata });
      expect(response.statusCode).toBe(400);
      expect(response.json().code).toBe('INVALID_AUDIO_FORMAT');
    });
  });

  it('an mp3 whose Xing frame count says 2000 s in 49 KB is measured by its frames (6 s → 422), before any note or job', async () => {
    await expectNothingLeftBehind(async () => {
      // The duration is counted from the frames that are there, never taken from the tag.
      const bytes = hostileMp3['Xing frame count (2000 s in 49 KB)']!();
      const response = await upload({ audio: { bytes, fileName: 'x.mp3' }, metadata });
      expect(response.statusCode).toBe(422);
      expect(response.json()).toMatchObject({ code: 'AUDIO_DURATION_INVALID', details: { duration: 6.12 } });
    });
  });

  it('a 5 s clip → 422 AUDIO_DURATION_INVALID', async () => {
    await expectNothingLeftBehind(async () => {
      const response = await upload({ audio: { bytes: fixture('too-short.mp3'), fileName: 'x.mp3' }, metadata });
      expect(response.statusCode).toBe(422);
      const { details } = response.json();
      expect(response.json().code).toBe('AUDIO_DURATION_INVALID');
      expect(details).toMatchObject({ min_duration: 10, max_duration: 3600 });
      expect(details.duration).toBeGreaterThan(4);
      expect(details.duration).toBeLessThan(6);
    });
  });

  it('a file over the size limit → 413 AUDIO_TOO_LARGE', async () => {
    await expectNothingLeftBehind(async () => {
      const response = await upload({ audio: { bytes: fixture('consultation.wav'), fileName: 'x.wav' }, metadata });
      expect(response.statusCode).toBe(413);
      expect(response.json()).toMatchObject({ code: 'AUDIO_TOO_LARGE', details: { max_size: 400000, max_size_mb: 0 } });
      expect(response.json().details.file_size).toBeGreaterThan(400000);
    });
  });

  it.each([
    [{ metadata: '{"name": "Thor"' }, 400, 'MALFORMED_JSON', 'metadata'],
    [{ metadata: { gender: 'male' } }, 422, 'VALIDATION_ERROR', 'metadata.name'],
    [{ metadata: { name: '' } }, 422, 'VALIDATION_ERROR', 'metadata.name'],
    [{ metadata: { name: 'x'.repeat(101) } }, 422, 'VALIDATION_ERROR', 'metadata.name'],
    [{ metadata: { name: 'Thor', external_id: 'x'.repeat(101) } }, 422, 'VALIDATION_ERROR', 'metadata.external_id'],
    [{ metadata: { name: 'Thor', gender: 'cat' } }, 422, 'VALIDATION_ERROR', 'metadata.gender'],
    [{ metadata: { name: 'Thor', metadata: [{ key: 'k'.repeat(51), value: 'v' }] } }, 422, 'VALIDATION_ERROR', 'metadata.metadata.0.key'],
    [{ metadata: { name: 'Thor', metadata: [{ key: 'k', value: '' }] } }, 422, 'VALIDATION_ERROR', 'metadata.metadata.0.value'],
    [{ metadata: { name: 'Thor', owner_age: 4 } }, 422, 'VALIDATION_ERROR', 'metadata.owner_age'],
    [{ metadata: '[1, 2]' }, 422, 'VALIDATION_ERROR', 'metadata'],
    [{ metadata: { name: 'Thor', note_style: 'summary' } }, 422, 'VALIDATION_ERROR', 'metadata.note_style'],
    // This server has no drafting provider (DRAFTING_PROVIDER=none): clinical notes are refused up front.
    [{ metadata: { name: 'Thor', note_style: 'clinical' } }, 422, 'VALIDATION_ERROR', 'metadata.note_style'],
    [{}, 422, 'VALIDATION_ERROR', 'metadata'],
  ])('metadata %j → %i %s (%s)', async (parts, status, code, field) => {
    await expectNothingLeftBehind(async () => {
      const response = await upload({ audio: { bytes: fixture('consultation.mp3'), fileName: 'x.mp3' }, ...parts });
      expect(response.statusCode).toBe(status);
      expect(response.json()).toMatchObject({ code, details: { field } });
    });
  });

  it('no audio part → 422 naming audio', async () => {
    await expectNothingLeftBehind(async () => {
      const response = await upload({ metadata });
      expect(response.statusCode).toBe(422);
      expect(response.json().details.field).toBe('audio');
    });
  });

  it('a JSON body → 415', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/notes/v1/notes',
      headers: { 'x-api-key': clinic.editor },
      payload: metadata,
    });
    expect(response.statusCode).toBe(415);
  });

  it('over the monthly quota → 403 QUOTA_EXCEEDED', async () => {
    const { adminKey } = await createClinic({ name: 'Tiny quota', quotaMinutes: 0 }, db.database.db);
    await expectNothingLeftBehind(async () => {
      const response = await upload({ audio: { bytes: fixture('consultation.mp3'), fileName: 'x.mp3' }, metadata }, {}, adminKey);
      expect(response.statusCode).toBe(403);
      const body = response.json();
      expect(body).toMatchObject({ error: 'forbidden', code: 'QUOTA_EXCEEDED', details: { current_usage: 0, quota_limit: 0 } });
      expect(body.details.reset_date).toMatch(/^\d{4}-\d\d-01T00:00:00Z$/);
    });
  });
});

describe('Idempotency-Key', () => {
  it('replays the first response for the same upload, and refuses the key for another', async () => {
    const parts = { audio: { bytes: fixture('consultation.mp3'), fileName: 'x.mp3' }, metadata: { name: 'Idem' } };
    const first = await upload(parts, { 'idempotency-key': 'upload-42' });
    expect(first.statusCode).toBe(201);
    const notesAfterFirst = await count('notes');
    const again = await upload(parts, { 'idempotency-key': 'upload-42' });
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await count('notes')).toBe(notesAfterFirst);

    await expectNothingLeftBehind(async () => {
      const other = await upload({ ...parts, metadata: { name: 'Someone else' } }, { 'idempotency-key': 'upload-42' });
      expect(other.statusCode).toBe(422);
      expect(other.json().code).toBe('IDEMPOTENCY_KEY_REUSED');
    });
  });

  it('answers simultaneous uploads with one key all alike, with one note and one stored recording', async () => {
    const parts = { audio: { bytes: fixture('consultation.mp3'), fileName: 'x.mp3' }, metadata: { name: 'Race' } };
    const before = { notes: await count('notes'), jobs: await count('jobs'), files: filesUnder(config.DATA_DIR).length };
    const answers = await Promise.all(Array.from({ length: 4 }, () => upload(parts, { 'idempotency-key': 'upload-race' })));
    for (const answer of answers) expect(answer.statusCode, answer.body).toBe(201);
    for (const answer of answers) expect(answer.json()).toEqual(answers[0]!.json());
    // The losers' recordings were stored before their transaction lost the key: removed again.
    expect(await count('notes')).toBe(before.notes + 1);
    expect(await count('jobs')).toBe(before.jobs + 1);
    expect(filesUnder(config.DATA_DIR)).toHaveLength(before.files + 1);
    expect(answers.filter((answer) => answer.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
  });

  it('is scoped to the clinic', async () => {
    const other = await createClinicWithKeys(db.database, 'Other clinic');
    const parts = { audio: { bytes: fixture('consultation.mp3'), fileName: 'x.mp3' }, metadata: { name: 'Idem' } };
    const mine = await upload(parts, { 'idempotency-key': 'shared-key' });
    const theirs = await upload(parts, { 'idempotency-key': 'shared-key' }, other.editor);
    expect(theirs.statusCode).toBe(201);
    expect(theirs.json().data.id).not.toBe(mine.json().data.id);
  });
});
